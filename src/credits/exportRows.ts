/**
 * The rows of an export of the credits log (the Credits tab's Export, a visible sheet a person matches to their own
 * rows): each charge with the profile's URL as written in the sheet beside the one sent to the service, and the
 * credits it cost, so the sheet sums and looks up without reading the log's words. Pure.
 */
import { columnNumber } from '../core/a1';
import type { SheetPort } from '../core/sheet';
import { type NetworkHosts, parseProfileInput } from '../core/url';
import type { Charge } from '../store/credits';
import type { SheetLayout } from '../store/ports';

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
/** The credits column (1-based): numbers, so that a SUM adds them up. */
export const EXPORT_CREDITS_COLUMN = 8;

export const EXPORT_LAYOUT: SheetLayout = {
  name: 'Credits log',
  rows: 0,
  columns: EXPORT_COLUMNS,
  header: EXPORT_HEADER,
};

/**
 * One row of the log as the export writes it. A charge costs 1 credit; an answer lost on the way 0 (its outcome says
 * it may have been charged: the Credits tab counts it apart), a note of the watch 0. `written`: the URL as the sheet
 * has it, '' when it is not found there any more.
 */
export function exportRow(row: readonly unknown[], charge: Charge | undefined, written: string): unknown[] {
  const [when, source, payer, payerId, profile, outcome, where] = row.map((cell) => String(cell ?? ''));
  const credits = charge && charge.outcome !== 'lost' ? 1 : 0;
  return [when, source, payer, payerId, written, profile, outcome, credits, where];
}

/** The cells of the sheet a run's or a watch's charge names (src/bulk/runCharges.ts), or undefined for formulas. */
export interface ChargedRange {
  sheetName: string;
  column: string;
  first: number;
  last: number;
}

/** `run <id> · 'Leads'!A2:A110`, `watch <id> · 'Leads'!A rows 2–110` or `… row 5`. */
export function chargedRange(where: string): ChargedRange | undefined {
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

/** The sheet a person is on is read for formulas' profiles only up to this many cells (one read per export step). */
const FORMULAS_LOOK_MAX_CELLS = 200_000;

/**
 * The URLs as written in the spreadsheet of these charges' profiles, by profile: a run's or a watch's from the
 * cells its charge names, formulas' (which name no cell) from the sheet the person is on. One read per range.
 */
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

/** Adds to `written` each profile URL of these cells, by the profile it is (the first spelling met wins). */
function noteWritten(written: Map<string, string>, cells: unknown[][], hosts: NetworkHosts): void {
  for (const line of cells) {
    for (const value of line) {
      const input = parseProfileInput(value, hosts);
      if (input.kind === 'url' && !written.has(input.key)) written.set(input.key, String(value).trim());
    }
  }
}
