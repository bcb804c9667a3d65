/**
 * The bulk run's counts as rows are written, and what a new run finds in its rows. Each row is counted once, by
 * the one classifier (./outcomes.ts); the sentence, the counts and the summary box all render these. Pure.
 */
import { CELL, OUT, type RowOutcome } from './cells';
import type { Counts } from './job';
import {
  countAlreadyDone,
  countKind,
  emptyKinds,
  emptyRunCounts,
  type KindCounts,
  kindOfOutcome,
  kindOfStatus,
  RESULT_KINDS,
} from './outcomes';
import { cellText, isPendingStatus, isRedone, statusOfRow } from './rowPlan';
import { type NetworkHosts, parseProfileInput } from './url';

/** A row written from an outcome. */
export function countOutcome(counts: Counts, outcome: RowOutcome): void {
  countKind(counts, kindOfOutcome(outcome));
}

/** A row written as a copy of another row's output (a duplicate URL). */
export function countCopy(counts: Counts, output: unknown[]): void {
  countKind(counts, kindOfStatus(cellText(output[OUT.status]), output[OUT.email]));
}

/** What a new run finds in its rows, and whether a normalised URL occurs twice. */
export interface SelectionCount {
  counts: Counts;
  /** The kinds of the rows kept as they are (already done). */
  kept: KindCounts;
  hasDuplicates: boolean;
}

/**
 * Rows with a final result are already done (kept as they are) unless re-checking or retried; every other row
 * with something in its URL cell is the run's to process. `readStatus`: the output columns are the add-on's.
 */
export function countSelection(
  rows: unknown[][],
  recheck: boolean,
  readStatus: boolean,
  hosts: NetworkHosts,
  redo?: readonly string[] | null,
): SelectionCount {
  const counts = emptyRunCounts();
  const kept = emptyKinds();
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
    countAlreadyDone(counts);
    const kind = readStatus ? kindOfStatus(status, row[CELL.email]) : null;
    if (kind) kept[kind]++;
  }
  return { counts, kept, hasDuplicates };
}

/**
 * The counts a run ends with, from one read of its rows at the end (rows that moved during the run count once,
 * rows deleted not at all): every kind in the sheet minus the kinds of the rows it kept (`baseline`).
 */
export function finalCounts(counts: Counts, rows: unknown[][], baseline: KindCounts = emptyKinds()): Counts {
  const after = emptyKinds();
  let total = 0;
  for (const row of rows) {
    if (parseProfileInput(row[CELL.url]).kind === 'empty') continue;
    total++;
    const kind = kindOfStatus(statusOfRow(row), row[CELL.email]);
    if (kind) after[kind]++;
  }
  const final: Counts = { ...counts };
  for (const kind of RESULT_KINDS) final[kind] = Math.max(0, after[kind] - baseline[kind]);
  final.processed = RESULT_KINDS.reduce((sum, kind) => sum + final[kind], counts.alreadyDone);
  final.total = Math.max(total, final.processed);
  return final;
}
