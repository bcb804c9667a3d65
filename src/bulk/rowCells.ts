/** What a row's cells say (pure), and reading them: the URL cell, then the output cells (offsets in CELL). */
import type { ResultKind } from '../api';
import { CELL, OUT, STATUS, textColumnOffsets } from '../core/cells';
import { stableHash } from '../core/hash';
import { ADDON_NAME } from '../core/product';
import type { CellBlock, SheetPort } from '../core/sheet';
import { looksLikeUrl } from '../core/url';
import type { Job } from './job';

/** `count` rows from `row`: the URL cell, then `width - 1` output cells (columns between the two are left out). */
export function readJobCells(
  sheet: SheetPort,
  job: Pick<Job, 'urlColumn' | 'outputColumn'>,
  row: number,
  count: number,
  width: number,
  formulas = false,
): unknown[][] {
  if (count <= 0) return [];
  const gap = Math.max(0, job.outputColumn - job.urlColumn - 1);
  const block = { row, column: job.urlColumn, rows: count, columns: width + gap };
  const read = formulas ? sheet.valuesAndFormulas(block) : undefined;
  const values = read ? withFormulaCells(read.values, read.formulas) : sheet.values(block);
  return gap === 0 ? values : values.map((cells) => [cells[0], ...cells.slice(1 + gap)]);
}

/** `rows` rows from `row` of the `outputs` output cells from `outputColumn` that hold plain text (not Catch-all). */
export function textCells(row: number, rows: number, outputColumn: number, outputs: number): CellBlock[] {
  return textColumnOffsets(outputs).map((offset) => ({
    row,
    column: outputColumn + offset,
    rows,
    columns: 1,
  }));
}

/** The job's whole range. */
export function readJobRange(
  sheet: SheetPort,
  job: Pick<Job, 'urlColumn' | 'outputColumn' | 'firstRow' | 'lastRow'>,
  width: number,
): unknown[][] {
  return readJobCells(sheet, job, job.firstRow, job.lastRow - job.firstRow + 1, width);
}

/** A date by its time, so equal dates compare equal. */
export function cellText(value: unknown): string {
  return value instanceof Date ? String(value.getTime()) : String(value ?? '');
}

export function statusOfRow(row: unknown[]): string {
  return cellText(row[CELL.status]);
}

/** An output cell holding a formula is the user's, even one showing "": it reads as its formula. */
export function withFormulaCells(values: unknown[][], formulas: string[][]): unknown[][] {
  return values.map((row, r) => {
    const line = formulas[r];
    if (!line?.some((formula, c) => c >= CELL.email && formula !== '')) return row;
    return row.map((value, c) => (c >= CELL.email && line[c] ? line[c] : value));
  });
}

export function isHeaderText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '' && !looksLikeUrl(value);
}

export function isBlank(value: unknown): boolean {
  return value === '' || value === null || value === undefined;
}

/** The add-on's markers of a row without an address, with the kind of outcome each counts as (./outcomes.ts). */
export const STATUS_KINDS = new Map<string, ResultKind>([
  [STATUS.notFound, 'noAddress'],
  [STATUS.unprocessable, 'unprocessable'],
  [STATUS.invalidUrl, 'notProfile'],
  [STATUS.error, 'error'],
]);

/** One of the add-on's markers, or the service's `email_status` (an upper-case word) beside an address. */
export function isOwnStatus(value: unknown, email: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (STATUS_KINDS.has(value)) return true;
  return /^[A-Z][A-Z_]{1,30}$/.test(value) && typeof email === 'string' && /^[^\s@]+@[^\s@]+$/.test(email);
}

/** Output cells (Email first) that read as the add-on's; asked only inside its recorded blocks: the look confirms. */
export function isAddonOutput(output: unknown[]): boolean {
  const catchAll = output[OUT.catchAll];
  const status = output[OUT.status];
  if (!isOwnStatus(status, output[OUT.email])) return false;
  if (!(isBlank(catchAll) || typeof catchAll === 'boolean')) return false;
  const note = cellText(output[OUT.note]);
  if (!STATUS_KINDS.has(String(status))) return note === '';
  return ADDON_NOTES.some((pattern) => pattern.test(note));
}

/** The Notes of src/lookup/cellValues.ts beside a status without an address. */
const ADDON_NOTES = [
  /^No address found for this profile\.$/,
  /^The service could not process this profile/,
  /^Not looked up: /,
  /Check the profile URL in this row\./,
  new RegExp(ADDON_NAME),
];

export function isFailedStatus(status: string): boolean {
  return status === STATUS.error || status === STATUS.invalidUrl;
}

export function isFinalResult(status: string, email: unknown): boolean {
  return status !== '' && !isFailedStatus(status) && isOwnStatus(status, email);
}

/** A hash keeps the job's state small. */
export function cellHash(value: unknown): string {
  return stableHash(cellText(value));
}
