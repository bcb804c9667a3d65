/** The bulk run's counts: from outcomes as rows are written, and from the sheet at the start and the end. Pure. */
import { CELL, OUT, type RowOutcome, STATUS } from './cells';
import { type Counts, emptyCounts } from './job';
import { cellText, isPendingStatus, isRedone, statusOfRow } from './rowPlan';
import { type NetworkHosts, parseProfileInput } from './url';

export type StatusKind = 'found' | 'notFound' | 'failed' | 'none';

/** How a written status counts: found, without an address, or failed (ERROR and INVALID_URL). */
export function statusKind(status: string): StatusKind {
  if (status === '') return 'none';
  if (status === STATUS.notFound || status === STATUS.unprocessable) return 'notFound';
  if (status === STATUS.error || status === STATUS.invalidUrl) return 'failed';
  return 'found';
}

function addKind(counts: Counts, kind: StatusKind): void {
  if (kind !== 'none') counts[kind]++;
}

/** A row written from an outcome. */
export function countOutcome(counts: Counts, outcome: RowOutcome): void {
  counts.processed++;
  if (outcome.kind === 'found') counts.found++;
  else if (outcome.kind === 'not_found' || outcome.kind === 'unprocessable') counts.notFound++;
  else counts.failed++;
}

/** A row written as a copy of another row's output (a duplicate URL). */
export function countCopy(counts: Counts, output: unknown[]): void {
  counts.processed++;
  addKind(counts, statusKind(cellText(output[OUT.status])));
}

/** What a new run finds in its rows, and whether a normalised URL occurs twice. */
export interface SelectionCount {
  counts: Counts;
  hasDuplicates: boolean;
}

/**
 * Counts describe the sheet: rows with a final result are skipped (and counted by kind) unless re-checking.
 * `readStatus`: the output columns are the add-on's (their status cells count).
 */
export function countSelection(
  rows: unknown[][],
  recheck: boolean,
  readStatus: boolean,
  hosts: NetworkHosts,
  redo?: readonly string[] | null,
): SelectionCount {
  const counts = emptyCounts();
  const keys = new Set<string>();
  let hasDuplicates = false;
  for (const row of rows) {
    const input = parseProfileInput(row[CELL.url], hosts);
    if (input.kind === 'empty') continue;
    counts.total++;
    if (input.kind === 'url') {
      if (keys.has(input.key)) hasDuplicates = true;
      keys.add(input.key);
    }
    const status = readStatus ? statusOfRow(row) : '';
    if (redo ? readStatus && isRedone(row, redo) : recheck || isPendingStatus(status, true)) continue;
    counts.skipped++;
    counts.processed++;
    addKind(counts, statusKind(status));
  }
  return { counts, hasDuplicates };
}

/** Totals at the end, from the sheet itself, so rows that moved during the run are counted once. */
export function countFinished(previous: Counts, rows: unknown[][]): Counts {
  const counts = { ...previous, total: 0, processed: 0, found: 0, notFound: 0, failed: 0 };
  for (const row of rows) {
    if (parseProfileInput(row[CELL.url]).kind === 'empty') continue;
    counts.total++;
    const kind = statusKind(statusOfRow(row));
    if (kind === 'none') continue;
    counts.processed++;
    addKind(counts, kind);
  }
  return counts;
}
