/** What a row's cells say. Pure. A row read from the sheet: the URL cell, then the output cells (offsets in CELL). */
import { CELL, OUT, STATUS } from '../core/cells';
import { stableHash } from '../core/hash';
import { ADDON_NAME } from '../core/product';
import { looksLikeUrl } from '../core/url';

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

const NO_ADDRESS_STATUSES: string[] = [
  STATUS.notFound,
  STATUS.unprocessable,
  STATUS.invalidUrl,
  STATUS.error,
];

/** One of the add-on's markers, or the service's `email_status` (an upper-case word) beside an address. */
export function isOwnStatus(value: unknown, email: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (NO_ADDRESS_STATUSES.includes(value)) return true;
  return /^[A-Z][A-Z_]{1,30}$/.test(value) && typeof email === 'string' && /^[^\s@]+@[^\s@]+$/.test(email);
}

/** Output cells (Email first) that read as the add-on's; asked only inside its recorded blocks: the look confirms. */
export function isAddonOutput(output: unknown[]): boolean {
  const catchAll = output[OUT.catchAll];
  const status = output[OUT.status];
  if (!isOwnStatus(status, output[OUT.email])) return false;
  if (!(isBlank(catchAll) || typeof catchAll === 'boolean')) return false;
  const note = cellText(output[OUT.note]);
  if (!NO_ADDRESS_STATUSES.includes(String(status))) return note === '';
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
