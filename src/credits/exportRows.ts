/** The credits log's export: each charge with its URL as the sheet writes it. Pure. */
import { columnNumber } from '../core/a1';
import type { SheetLayout } from '../core/ports';
import type { SheetPort } from '../core/sheet';
import { type NetworkHosts, parseProfileInput } from '../core/url';
import type { Charge } from '../store/credits';

export const EXPORT_HEADER = [
  'When (UTC)',
  'Source',
  'Paid by',
  'Payer id',
  'Profile URL in the sheet',
  'Profile as sent',
  'Outcome',
  'Credits',
  'Where',
];
export const EXPORT_COLUMNS = EXPORT_HEADER.length;
/** 1-based: numbers, so that a SUM adds them up. */
export const EXPORT_CREDITS_COLUMN = 8;

export const EXPORT_LAYOUT: SheetLayout = {
  name: 'Credits log',
  rows: 0,
  columns: EXPORT_COLUMNS,
  header: EXPORT_HEADER,
};

/** A lost answer and a watch's note cost 0 (a lost one may have been charged: counted apart); `written` may be ''. */
export function exportRow(row: readonly unknown[], charge: Charge | undefined, written: string): unknown[] {
  const [when, source, payer, payerId, profile, outcome, where] = row.map((cell) => String(cell ?? ''));
  const credits = charge && charge.outcome !== 'lost' ? 1 : 0;
  return [when, source, payer, payerId, written, profile, outcome, credits, where];
}

/** `run <id> · 'Leads'!A2:A110`, `watch <id> · 'Leads'!A rows 2–110` or `… row 5`. */
function chargedRange(where: string) {
  const run = /· '(.+)'!([A-Z]+)(\d+):[A-Z]+(\d+)$/.exec(where);
  if (run) return { sheetName: run[1], column: run[2], first: Number(run[3]), last: Number(run[4]) };
  const watch = /· '(.+)'!([A-Z]+) rows? (\d+)(?:–(\d+))?$/.exec(where);
  if (watch)
    return {
      sheetName: watch[1],
      column: watch[2],
      first: Number(watch[3]),
      last: Number(watch[4] ?? watch[3]),
    };
  return undefined;
}

/** The active sheet is read for formulas' profiles only up to this (one read per export step). */
const FORMULAS_LOOK_MAX_CELLS = 200_000;

/** By profile: from the cells a charge names; formulas' (no cell) from the active sheet. */
export function writtenUrls(
  charges: readonly Charge[],
  sheetNamed: (name: string) => SheetPort | undefined,
  activeSheet: () => SheetPort,
  hosts: NetworkHosts,
): Map<string, string> {
  const written = new Map<string, string>();
  const read = new Set<string>();
  for (const charge of charges) {
    const range = chargedRange(charge.where);
    const name = range && `${range.sheetName}!${range.column}${range.first}:${range.last}`;
    if (!range || !name || read.has(name)) continue;
    read.add(name);
    const sheet = sheetNamed(range.sheetName);
    const last = sheet ? Math.min(range.last, sheet.maxRows()) : 0;
    if (!sheet || last < range.first) continue;
    const block = {
      row: range.first,
      column: columnNumber(range.column),
      rows: last - range.first + 1,
      columns: 1,
    };
    noteWritten(written, sheet.values(block), hosts);
  }
  if (charges.every((charge) => written.has(charge.profile))) return written;
  const sheet = activeSheet();
  const rows = Math.max(1, sheet.lastRow());
  const columns = Math.max(1, sheet.lastColumn());
  if (rows * columns <= FORMULAS_LOOK_MAX_CELLS)
    noteWritten(written, sheet.values({ row: 1, column: 1, rows, columns }), hosts);
  return written;
}

/** The first spelling met wins. */
function noteWritten(written: Map<string, string>, cells: unknown[][], hosts: NetworkHosts): void {
  for (const line of cells) {
    for (const value of line) {
      const input = parseProfileInput(value, hosts);
      if (input.kind === 'url' && !written.has(input.key)) written.set(input.key, String(value).trim());
    }
  }
}
