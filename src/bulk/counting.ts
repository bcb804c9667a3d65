/** A run's counts, each row counted once by the one classifier (./outcomes.ts). Pure. */
import { CELL, OUT } from '../core/cells';
import { emptyRunCounts, RESULT_KINDS } from '../core/runWords';
import { isBlankCell, type NetworkHosts, parseProfileInput } from '../core/url';
import type { RowOutcome } from '../lookup/cellValues';
import type { Counts } from './job';
import { countAlreadyDone, countKind, kindOfOutcome, kindOfStatus } from './outcomes';
import { cellText } from './rowCells';
import type { RunScope } from './runScope';

export function countOutcome(counts: Counts, outcome: RowOutcome): void {
  countKind(counts, kindOfOutcome(outcome));
}

export function countCopy(counts: Counts, output: unknown[]): void {
  countKind(counts, kindOfStatus(cellText(output[OUT.status]), output[OUT.email]));
}

export interface SelectionCount {
  counts: Counts;
  hasDuplicates: boolean;
}

/** Rows the run does not touch are already done; every other non-blank row is the run's. */
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

/** The total: the range's non-blank rows at the end (inserted ones count), at least those processed. */
export function finalCounts(counts: Counts, rows: unknown[][]): Counts {
  const total = rows.filter((row) => !isBlankCell(row[CELL.url])).length;
  const processed = RESULT_KINDS.reduce((sum, kind) => sum + counts[kind], counts.alreadyDone);
  return { ...counts, processed, total: Math.max(total, processed) };
}
