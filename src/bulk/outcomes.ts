/**
 * The one classifier of a row's outcome. Every figure a person sees of a run (the progress line, the counts beside
 * it, the summary box, the run history, Retry failed rows, Select the first failed row) comes from these kinds:
 * each row of a run is in exactly one of found, no address, unprocessable, not a profile, error, already done
 * (it kept the result it had before the run), or not processed yet. Blank cells are not rows of the run. Pure.
 */
import type { KindCounts, ResultKind, RunCounts } from '../api';
import { type RowOutcome, STATUS, statusOf } from '../core/cells';
import { countText, hitRateText } from '../core/text';
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
  return {
    total: 0,
    processed: 0,
    ...emptyKinds(),
    alreadyDone: 0,
    creditsUsed: 0,
    creditsMaybeLost: 0,
    lookupsFound: 0,
  };
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

/**
 * Every figure of a run names its unit: rows (the kinds, from this classifier) or lookups and credits (what the
 * service answered and charged). "Found" alone would mean both.
 */
const ROWS_WORDS: Record<ResultKind | 'alreadyDone', string> = {
  found: 'with an address',
  noAddress: 'with no address',
  unprocessable: 'unprocessable',
  notProfile: 'not a profile',
  error: 'with an error',
  alreadyDone: 'already done',
};

/**
 * "4 rows with an address, 2 rows with no address, 1 row not a profile, 18 rows already done": rows with an
 * address always, the other figures when not 0.
 */
export function kindsText(counts: KindCounts & Pick<RunCounts, 'alreadyDone'>): string {
  const kinds = [...RESULT_KINDS, 'alreadyDone'] as const;
  return kinds
    .filter((kind) => kind === 'found' || counts[kind] > 0)
    .map((kind) => `${countText(counts[kind], 'row')} ${ROWS_WORDS[kind]}`)
    .join(', ');
}

/**
 * "7 credits used: 5 of 7 lookups found an address (71 %)", and the answers lost to connection failures apart:
 * "…, up to 2 more may have been charged …".
 */
export function creditsText(
  counts: Pick<RunCounts, 'creditsUsed' | 'creditsMaybeLost' | 'lookupsFound'>,
): string {
  const lost = counts.creditsMaybeLost ?? 0;
  const rate =
    counts.lookupsFound !== undefined && counts.creditsUsed > 0
      ? `: ${hitRateText(counts.creditsUsed, counts.lookupsFound)}`
      : '';
  const used = `${countText(counts.creditsUsed, 'credit')} used${rate}`;
  return lost > 0
    ? `${used}, up to ${lost} more may have been charged for answers lost to connection failures`
    : used;
}

/** Rows with an address beyond the lookups that found one: "3 rows reused an address already found" ('' if none). */
export function reusedText(counts: Pick<RunCounts, 'found' | 'lookupsFound'>): string {
  if (counts.lookupsFound === undefined) return '';
  const reused = counts.found - counts.lookupsFound;
  return reused > 0
    ? `${countText(reused, 'row')} reused an address already found (a repeated or known profile)`
    : '';
}

/** A run's figures in sentences: its rows, then its credits and lookups. */
export function runText(counts: RunCounts): string {
  const reused = reusedText(counts);
  return `${kindsText(counts)}. ${creditsText(counts)}${reused ? `; ${reused}` : ''}`;
}
