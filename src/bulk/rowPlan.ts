/**
 * Planning a run's rows: what a window does with each row (blank, keep, not a profile, look up) as the run's scope
 * says, whether a row still holds the URL it was planned from, where the next pass starts, the results a duplicate
 * row copies, and the runs of adjacent rows a write covers. Pure. Rows read from the sheet hold the URL cell, then
 * the output cells (offsets in CELL).
 */
import { CELL } from '../core/cells';
import { isBlankCell, type NetworkHosts, parseProfileInput } from '../core/url';
import { isFinalResult, statusOfRow } from './rowCells';
import type { RunScope } from './runScope';

export type RowPlan =
  | { action: 'blank' }
  | { action: 'keep' } // holds a result already
  | { action: 'invalid'; reason: string; sent: string }
  | { action: 'lookup'; sent: string; key: string };

/** What to do with each row of a window in this pass: the rows the run does not touch keep what they hold. */
export function planRows(rows: unknown[][], scope: RunScope, pass: number, hosts: NetworkHosts): RowPlan[] {
  return rows.map((row) => {
    const input = parseProfileInput(row[CELL.url], hosts);
    if (input.kind === 'empty') return { action: 'blank' };
    if (!scope.touchesRow(row, pass)) return { action: 'keep' };
    if (input.kind === 'invalid') {
      return { action: 'invalid', reason: input.reason, sent: String(row[CELL.url]) };
    }
    return { action: 'lookup', sent: input.sent, key: input.key };
  });
}

/** True when the row still holds the URL it was planned from (a sort or insertion moves rows between slices). */
export function sameInput(cell: unknown, plan: RowPlan, hosts: NetworkHosts): boolean {
  if (plan.action === 'lookup') {
    const input = parseProfileInput(cell, hosts);
    return input.kind === 'url' && input.key === plan.key;
  }
  if (plan.action === 'invalid') return String(cell) === plan.sent;
  return false;
}

/** The first row of `rows` with a URL and no status yet, or -1. */
export function firstWithoutStatus(rows: unknown[][]): number {
  return rows.findIndex((row) => !isBlankCell(row[CELL.url]) && statusOfRow(row) === '');
}

/**
 * Results the add-on wrote in these rows, by normalised URL (the output cells): a duplicate URL gets the same
 * result without a request.
 */
export function writtenResults(rows: unknown[][], hosts: NetworkHosts): Map<string, unknown[]> {
  const results = new Map<string, unknown[]>();
  for (const row of rows) {
    const input = parseProfileInput(row[CELL.url], hosts);
    if (input.kind !== 'url' || results.has(input.key)) continue;
    if (!isFinalResult(statusOfRow(row), row[CELL.email])) continue;
    results.set(input.key, row.slice(CELL.email));
  }
  return results;
}

/** Indices (ascending) grouped into runs of adjacent rows: one write per run, never over a row in between. */
export function adjacentRuns(indices: number[]): Array<{ from: number; count: number }> {
  const runs: Array<{ from: number; count: number }> = [];
  for (const index of indices) {
    const last = runs[runs.length - 1];
    if (last && last.from + last.count === index) last.count++;
    else runs.push({ from: index, count: 1 });
  }
  return runs;
}
