/**
 * The bulk run's counts as rows are written, and what a new run finds in its rows. Each row is counted once, by
 * the one classifier (./outcomes.ts); the sentence, the counts and the summary box all render these. Pure.
 */
import { CELL, OUT } from '../core/cells';
import { emptyRunCounts, RESULT_KINDS } from '../core/runWords';
import { isBlankCell, type NetworkHosts, parseProfileInput } from '../core/url';
import type { RowOutcome } from '../lookup/cellValues';
import type { Counts } from './job';
import { countAlreadyDone, countKind, kindOfOutcome, kindOfStatus } from './outcomes';
import { cellText } from './rowCells';
import type { RunScope } from './runScope';

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
  hasDuplicates: boolean;
}

/**
 * Rows the run does not touch (src/bulk/runScope.ts) are already done, kept as they are; every other row with
 * something in its URL cell is the run's to process.
 */
export function countSelection(rows: unknown[][], scope: RunScope, hosts: NetworkHosts): SelectionCount {
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

/**
 * The counts a run ends with: the rows it wrote (each once, when written) and those it kept, which a later read
 * cannot tell apart from the rest. The total is the rows in the range at the end (rows inserted during the run
 * and filled by a later pass count), at least those processed; total minus processed rows have no result.
 */
export function finalCounts(counts: Counts, rows: unknown[][]): Counts {
  const total = rows.filter((row) => !isBlankCell(row[CELL.url])).length;
  const processed = RESULT_KINDS.reduce((sum, kind) => sum + counts[kind], counts.alreadyDone);
  return { ...counts, processed, total: Math.max(total, processed) };
}
