/**
 * What a row's cells say: a cell's text, a blank, a header, the add-on's own status (and a final result), a cell
 * holding a formula (the user's), a cell's mark. Pure. Rows read from the sheet hold the URL cell, then the output
 * cells (offsets in CELL).
 */
import { CELL, OUT, STATUS } from '../core/cells';
import { stableHash } from '../core/hash';
import { ADDON_NAME } from '../core/product';
import { looksLikeUrl } from '../core/url';

/** A cell's text as the job compares it (a date by its time, so equal dates compare equal). */
export function cellText(value: unknown): string {
  return value instanceof Date ? String(value.getTime()) : String(value ?? '');
}

/** The status cell of a row read from the sheet. */
export function statusOfRow(row: unknown[]): string {
  return cellText(row[CELL.status]);
}

/**
 * The rows as the run judges them: an output cell holding a formula is the user's data, whatever it shows (a
 * formula showing "" must never read as a free cell), so it reads as its formula text. `formulas` is the same
 * block's getFormulas() ('' for a cell without one); the URL cell keeps its value.
 */
export function withFormulaCells(values: unknown[][], formulas: string[][]): unknown[][] {
  return values.map((row, r) => {
    const line = formulas[r];
    if (!line?.some((formula, c) => c >= CELL.email && formula !== '')) return row;
    return row.map((value, c) => (c >= CELL.email && line[c] ? line[c] : value));
  });
}

/** A header cell holds text that is not a URL. */
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

/**
 * A status this add-on writes: one of its markers, or the service's `email_status` (an upper-case word) next to
 * an address in the Email cell; a user's column of YES/NO is not one.
 */
export function isOwnStatus(value: unknown, email: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (NO_ADDRESS_STATUSES.includes(value)) return true;
  return /^[A-Z][A-Z_]{1,30}$/.test(value) && typeof email === 'string' && /^[^\s@]+@[^\s@]+$/.test(email);
}

/**
 * Output cells (Email first) that read as the add-on's: its status, a real boolean or nothing in Catch-all, and its
 * own Note (none beside an address), so a row a person typed into is theirs. Only ever asked of cells inside the
 * add-on's recorded blocks (src/bulk/blocks.ts): the look confirms, never decides.
 */
export function isAddonOutput(output: unknown[]): boolean {
  const catchAll = output[OUT.catchAll];
  const status = output[OUT.status];
  if (!isOwnStatus(status, output[OUT.email])) return false;
  if (!(isBlank(catchAll) || typeof catchAll === 'boolean')) return false;
  const note = cellText(output[OUT.note]);
  if (!NO_ADDRESS_STATUSES.includes(String(status))) return note === '';
  return ADDON_NOTES.some((pattern) => pattern.test(note));
}

/** The Notes the add-on writes beside a status without an address (src/lookup/cellValues.ts). */
const ADDON_NOTES = [
  /^No address found for this profile\.$/,
  /^The service could not process this profile/,
  /^Not looked up: /,
  /Check the profile URL in this row\./,
  new RegExp(ADDON_NAME),
];

/** A status a run may write again (ERROR, INVALID_URL) rather than a final result. */
export function isFailedStatus(status: string): boolean {
  return status === STATUS.error || status === STATUS.invalidUrl;
}

/** The add-on's own final result: a duplicate URL may copy it, a run keeps it. */
export function isFinalResult(status: string, email: unknown): boolean {
  return status !== '' && !isFailedStatus(status) && isOwnStatus(status, email);
}

/** A cell's text in the job's state: a hash, so the state stays small whatever the cell holds. */
export function cellHash(value: unknown): string {
  return stableHash(cellText(value));
}
