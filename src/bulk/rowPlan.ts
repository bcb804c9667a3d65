/** Planning a run's rows. Pure. Rows read from the sheet hold the URL cell, then the output cells (offsets in CELL). */
import { CELL } from '../core/cells';
import { isBlankCell, type NetworkHosts, parseProfileInput } from '../core/url';
import { isFinalResult, statusOfRow } from './rowCells';
import type { RunScope } from './runScope';

export type RowPlan =
  | { action: 'blank' }
  | { action: 'keep' } // holds a result already
  | { action: 'invalid'; reason: string; sent: string }
  | { action: 'lookup'; sent: string; key: string };

export function planRows(rows: unknown[][], scope: RunScope, pass: number, hosts: NetworkHosts): RowPlan[] {
  return rows.map((row) => {
    const input = parseProfileInput(row[CELL.url], hosts);
    if (input.kind === 'empty') return { action: 'blank' };
    if (!scope.touchesRow(row, pass)) return { action: 'keep' };
    if (input.kind === 'invalid')
      return { action: 'invalid', reason: input.reason, sent: String(row[CELL.url]) };
    return { action: 'lookup', sent: input.sent, key: input.key };
  });
}

/** A sort or insertion moves rows between slices. */
export function sameInput(cell: unknown, plan: RowPlan, hosts: NetworkHosts): boolean {
  if (plan.action === 'lookup') {
    const input = parseProfileInput(cell, hosts);
    return input.kind === 'url' && input.key === plan.key;
  }
  if (plan.action === 'invalid') return String(cell) === plan.sent;
  return false;
}

export function firstWithoutStatus(rows: unknown[][]): number {
  return rows.findIndex((row) => !isBlankCell(row[CELL.url]) && statusOfRow(row) === '');
}

/** The output cells the add-on wrote, by normalised URL: a duplicate URL copies them. */
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

/** Ascending indices as runs of adjacent rows: one write per run, never over a row in between. */
export function adjacentRuns(indices: number[]): Array<{ from: number; count: number }> {
  const runs: Array<{ from: number; count: number }> = [];
  for (const index of indices) {
    const last = runs[runs.length - 1];
    if (last && last.from + last.count === index) last.count++;
    else runs.push({ from: index, count: 1 });
  }
  return runs;
}
