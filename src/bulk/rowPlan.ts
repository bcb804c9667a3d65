/**
 * What the bulk run does with each row of the sheet: plan a window, tell its own output from the user's data, and
 * decide whether existing columns can take the output. Pure. Rows read from the sheet hold the URL cell, then the
 * output cells (offsets in CELL); output rows start at the Email cell (offsets in OUT).
 */
import { CELL, OUT, outputHeaders, STATUS } from '../core/cells';
import { stableHash } from '../core/hash';
import { looksLikeUrl, type NetworkHosts, parseProfileInput } from '../core/url';

export type RowPlan =
  | { action: 'blank' }
  | { action: 'keep' } // holds a result already
  | { action: 'invalid'; reason: string; sent: string }
  | { action: 'lookup'; sent: string; key: string };

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

export function isPendingStatus(status: string, retryFailed: boolean): boolean {
  return status === '' || (retryFailed && (status === STATUS.error || status === STATUS.invalidUrl));
}

/** Retry failed rows: the row holds one of the add-on's statuses the run redoes (ERROR, UNPROCESSABLE). */
export function isRedone(row: unknown[], redo: readonly string[]): boolean {
  const status = statusOfRow(row);
  return redo.includes(status) && isOwnStatus(status, row[CELL.email]);
}

/**
 * Output columns can be reused when all of them carry this add-on's titles in the header row, or all are empty
 * in every row of the job, or they hold this add-on's own output (a status in the status column of every row
 * that has anything, a boolean or nothing in Catch-all); otherwise new columns are inserted.
 * `block` holds the output cells only (header row first when `headerIndex` is 0).
 */
export function canReuseOutputColumns(
  block: unknown[][],
  headerIndex: number | null,
  extraFields: boolean,
): boolean {
  const titles = outputHeaders(extraFields);
  if (headerIndex !== null && titles.every((title, column) => block[headerIndex]?.[column] === title)) {
    return true;
  }
  const owned = titles.map((_, column) => column);
  const empty = (row: unknown[] | undefined) => owned.every((column) => isBlank(row?.[column]));
  if (block.every(empty)) return true;
  if (headerIndex !== null && !empty(block[headerIndex])) return false;
  const rows = headerIndex === null ? block : block.filter((_, index) => index !== headerIndex);
  let ours = 0;
  for (const row of rows) {
    if (empty(row)) continue;
    const catchAll = row[OUT.catchAll];
    if (
      !isOwnStatus(row[OUT.status], row[OUT.email]) ||
      !(isBlank(catchAll) || typeof catchAll === 'boolean')
    ) {
      return false;
    }
    ours++;
  }
  return ours > 0;
}

/**
 * What to do with each row of a window. A row is pending when it has no status yet, or (on the first pass) an
 * ERROR (retried) or INVALID_URL (checked again: free). Later passes only pick up rows without a status: the
 * ones written this run are final.
 */
export function planRows(
  rows: unknown[][],
  recheck: boolean,
  retryFailed: boolean,
  hosts: NetworkHosts,
  redo?: readonly string[] | null,
): RowPlan[] {
  return rows.map((row) => {
    const input = parseProfileInput(row[CELL.url], hosts);
    if (input.kind === 'empty') return { action: 'blank' };
    const pending = redo
      ? isRedone(row, redo)
      : recheck || isPendingStatus(String(row[CELL.status] ?? ''), retryFailed);
    if (!pending) return { action: 'keep' };
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

/**
 * The row was pending when planned; it must still be (nobody wrote a result there meanwhile), and its output
 * cells must be empty or hold this add-on's result: never anything of the user's (e.g. a column moved there).
 * `recheckPass`: the first pass of a re-check, which overwrites the add-on's own results.
 */
export function stillPending(
  row: unknown[] | undefined,
  recheckPass: boolean,
  firstPass: boolean,
  redo?: readonly string[] | null,
): boolean {
  if (!row) return false;
  if (redo) return isRedone(row, redo);
  const status = statusOfRow(row);
  const blank = row.slice(CELL.email).every(isBlank);
  if (recheckPass) return blank || isOwnStatus(status, row[CELL.email]);
  if (status === '') return blank;
  return isPendingStatus(status, firstPass);
}

/** The first row of `rows` with a URL and no status yet, or -1. */
export function firstWithoutStatus(rows: unknown[][]): number {
  return rows.findIndex(
    (row) => parseProfileInput(row[CELL.url]).kind !== 'empty' && statusOfRow(row) === '',
  );
}

/**
 * Results the add-on wrote in these rows, by normalised URL (the output cells): a duplicate URL gets the same
 * result without a request.
 */
export function writtenResults(rows: unknown[][], hosts: NetworkHosts): Map<string, unknown[]> {
  const results = new Map<string, unknown[]>();
  for (const row of rows) {
    const input = parseProfileInput(row[CELL.url], hosts);
    const status = statusOfRow(row);
    if (input.kind !== 'url' || results.has(input.key)) continue;
    if (!isOwnStatus(status, row[CELL.email]) || isPendingStatus(status, true)) continue;
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

/** A cell's text in the job's state: a hash, so the state stays small whatever the cell holds. */
export function cellMark(value: unknown): string {
  return stableHash(cellText(value));
}
