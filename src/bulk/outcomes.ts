/**
 * The one classifier of a row's outcome. Every figure a person sees of a run (the progress line, the counts beside
 * it, the summary box, the run history, Retry failed rows, Select the first failed row) comes from these kinds:
 * each row of a run is in exactly one of found, no address, unprocessable, not a profile, error, already done
 * (it kept the result it had before the run), or not processed yet. Blank cells are not rows of the run. Pure.
 */
import type { KindCounts, ResultKind, RunCounts } from '../api';
import { STATUS } from '../core/cells';
import { countText } from '../core/text';
import { type RowOutcome, statusOf } from '../lookup/cellValues';
import { isOwnStatus } from './rowCells';

export const RESULT_KINDS: readonly ResultKind[] = [
  'found',
  'noAddress',
  'unprocessable',
  'notProfile',
  'error',
];

export function emptyKinds(): KindCounts {
  return { found: 0, noAddress: 0, unprocessable: 0, notProfile: 0, error: 0 };
}

export function emptyRunCounts(): RunCounts {
  return { total: 0, processed: 0, ...emptyKinds(), alreadyDone: 0, creditsUsed: 0, creditsMaybeLost: 0 };
}

/** The kind of a status the add-on wrote, or null (no status, or not the add-on's). */
export function kindOfStatus(status: string, email: unknown = ''): ResultKind | null {
  switch (status) {
    case '':
      return null;
    case STATUS.notFound:
      return 'noAddress';
    case STATUS.unprocessable:
      return 'unprocessable';
    case STATUS.invalidUrl:
      return 'notProfile';
    case STATUS.error:
      return 'error';
    default:
      return isOwnStatus(status, email) ? 'found' : null;
  }
}

/** The kind of the row written from an outcome (a 400 is "not a profile", as its status INVALID_URL says). */
export function kindOfOutcome(outcome: RowOutcome): ResultKind {
  return kindOfStatus(statusOf(outcome), outcome.kind === 'found' ? outcome.email : '') ?? 'found';
}

/** A row the run wrote, of this kind (null: not the add-on's status, not counted). */
export function countKind(counts: RunCounts, kind: ResultKind | null): void {
  if (!kind) return;
  counts[kind]++;
  counts.processed++;
}

/** A row that keeps the result it had before the run. */
export function countAlreadyDone(counts: RunCounts): void {
  counts.alreadyDone++;
  counts.processed++;
}

/** Rows the summary offers to select: the failed kinds (errors, unprocessable, not a profile). */
export const FAILED_KINDS: readonly ResultKind[] = ['error', 'unprocessable', 'notProfile'];
/** Rows Retry failed rows redoes: errors, and unprocessable ones when asked (a not-a-profile cell needs the user). */
export const RETRIED_KINDS: readonly ResultKind[] = ['error', 'unprocessable'];

export const sumOf = (counts: KindCounts, kinds: readonly ResultKind[]): number =>
  kinds.reduce((sum, kind) => sum + counts[kind], 0);

/** How each figure reads, the same in the progress line, its counts and the summary box. */
export const KIND_LABELS: Record<ResultKind | 'alreadyDone', string> = {
  found: 'Found',
  noAddress: 'No address',
  unprocessable: 'Unprocessable',
  notProfile: 'Not a profile',
  error: 'Errors',
  alreadyDone: 'Already done',
};

/** "4 found, 2 no address, 1 not a profile, 18 already done": found always, the other figures when not 0. */
export function kindsText(counts: KindCounts & Pick<RunCounts, 'alreadyDone'>): string {
  const parts = [`${counts.found} found`];
  if (counts.noAddress > 0) parts.push(`${counts.noAddress} no address`);
  if (counts.unprocessable > 0) parts.push(`${counts.unprocessable} unprocessable`);
  if (counts.notProfile > 0) parts.push(`${counts.notProfile} not a profile`);
  if (counts.error > 0) parts.push(countText(counts.error, 'error'));
  if (counts.alreadyDone > 0) parts.push(`${counts.alreadyDone} already done`);
  return parts.join(', ');
}

/** "7 credits used", and the answers lost to connection failures apart: "…, up to 2 more may have been charged …". */
export function creditsText(counts: Pick<RunCounts, 'creditsUsed' | 'creditsMaybeLost'>): string {
  const lost = counts.creditsMaybeLost ?? 0;
  const used = `${countText(counts.creditsUsed, 'credit')} used`;
  return lost > 0
    ? `${used}, up to ${lost} more may have been charged for answers lost to connection failures`
    : used;
}
