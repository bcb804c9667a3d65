/** The one classifier of a row's outcome, and a run's counts by it: every figure shown of a run comes from it. Pure. */
import type { ResultKind, RunCounts } from '../api';
import { CELL, OUT } from '../core/cells';
import { emptyRunCounts, RESULT_KINDS } from '../core/runWords';
import { isBlankCell, type NetworkHosts, parseProfileInput } from '../core/url';
import { type RowOutcome, statusOf } from '../lookup/cellValues';
import { cellText, isOwnStatus, STATUS_KINDS } from './rowCells';
import type { RunScope } from './runScope';

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

export function countOutcome(counts: RunCounts, outcome: RowOutcome): void {
  countKind(counts, kindOfOutcome(outcome));
}

export function countCopy(counts: RunCounts, output: unknown[]): void {
  countKind(counts, kindOfStatus(cellText(output[OUT.status]), output[OUT.email]));
}

/** Rows the run does not touch are already done; every other non-blank row is the run's. */
export function countSelection(
  rows: unknown[][],
  scope: RunScope,
  hosts: NetworkHosts,
): { counts: RunCounts; hasDuplicates: boolean } {
  const counts = emptyRunCounts();
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
    if (!scope.touchesRow(row, 1)) countAlreadyDone(counts);
  }
  return { counts, hasDuplicates };
}

/** The total: the range's non-blank rows at the end (inserted ones count), at least those processed. */
export function finalCounts(counts: RunCounts, rows: unknown[][]): RunCounts {
  const total = rows.filter((row) => !isBlankCell(row[CELL.url])).length;
  const processed = RESULT_KINDS.reduce((sum, kind) => sum + counts[kind], counts.alreadyDone);
  return { ...counts, processed, total: Math.max(total, processed) };
}

/** What the run's folded sending records spent and found. */
export function addFolded(counts: RunCounts, mine: { used: number; found: number; lost: number }): void {
  counts.creditsUsed += mine.used;
  counts.lookupsFound = (counts.lookupsFound ?? 0) + mine.found;
  counts.creditsMaybeLost += mine.lost;
}
