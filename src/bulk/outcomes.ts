/**
 * The one classifier of a row's outcome. Every figure a person sees of a run (the progress line, the counts beside
 * it, the summary box, the run history, Retry failed rows, Select the first failed row) comes from these kinds:
 * each row of a run is in exactly one of found, no address, unprocessable, not a profile, error, already done
 * (it kept the result it had before the run), or not processed yet. Blank cells are not rows of the run. Pure.
 */
import type { ResultKind, RunCounts } from '../api';
import { STATUS } from '../core/cells';
import { type RowOutcome, statusOf } from '../lookup/cellValues';
import { isOwnStatus } from './rowCells';

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
