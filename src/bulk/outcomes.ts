/** The one classifier of a row's outcome: every figure shown of a run comes from these kinds. Pure. */
import type { ResultKind, RunCounts } from '../api';
import { STATUS } from '../core/cells';
import { type RowOutcome, statusOf } from '../lookup/cellValues';
import { isOwnStatus } from './rowCells';

const STATUS_KINDS = new Map<string, ResultKind>([
  [STATUS.notFound, 'noAddress'],
  [STATUS.unprocessable, 'unprocessable'],
  [STATUS.invalidUrl, 'notProfile'],
  [STATUS.error, 'error'],
]);

/** Null: no status, or not the add-on's. */
export function kindOfStatus(status: string, email: unknown = ''): ResultKind | null {
  if (status === '') return null;
  return STATUS_KINDS.get(status) ?? (isOwnStatus(status, email) ? 'found' : null);
}

export function kindOfOutcome(outcome: RowOutcome): ResultKind {
  return kindOfStatus(statusOf(outcome), outcome.kind === 'found' ? outcome.email : '') ?? 'found';
}

export function countKind(counts: RunCounts, kind: ResultKind | null): void {
  if (!kind) return;
  counts[kind]++;
  counts.processed++;
}

export function countAlreadyDone(counts: RunCounts): void {
  counts.alreadyDone++;
  counts.processed++;
}
