/** Bulk-run state and the per-window plan. Pure: the sheet and the service are reached by features/enrichment.ts. */
import { outputHeaders, type RowOutcome, STATUS } from './cells';
import { looksLikeUrl, type NetworkHosts, parseProfileInput } from './url';

export type JobState = 'idle' | 'running' | 'paused' | 'stopped' | 'cancelled' | 'done';

export interface Counts {
  total: number;
  processed: number;
  found: number;
  notFound: number;
  failed: number;
  skipped: number;
  creditsUsed: number;
}

export interface Job {
  id: string;
  sheetId: number;
  sheetName: string;
  urlColumn: number;
  /** First and last data row (1-based, header excluded). */
  firstRow: number;
  lastRow: number;
  headerRow: number | null;
  outputColumn: number;
  extraFields: boolean;
  recheck: boolean;
  /** Next row to look at in the current pass. */
  cursor: number;
  /** 1 = the first pass; later passes pick up rows that moved while the run went on. */
  pass: number;
  /**
   * The sheet's size and the URL cells at both ends of the range when last seen: rows or columns inserted or
   * deleted between two slices change the size, and the end values tell where the job's rows went.
   */
  maxRows: number;
  maxColumns: number;
  topValue: string;
  bottomValue: string;
  /** The header row's texts from the URL column through the last output column, when there is a header. */
  headerTexts: string[] | null;
  /** Some normalised URL occurs on more than one row: later rows copy the result written in the sheet. */
  hasDuplicates: boolean;
  state: JobState;
  message: string;
  counts: Counts;
  startedAt: number;
  updatedAt: number;
  /** Set while a slice runs, so a second caller (sidebar and trigger at once) does not work on the same rows. */
  leaseUntil: number;
  /** The slice holding the lease: a slice whose token is no longer the stored one stops and writes nothing. */
  leaseToken?: string;
}

export interface Progress extends Counts {
  state: JobState;
  message: string;
  sheetName?: string;
}

export const MAX_PASSES = 3;

export function emptyCounts(): Counts {
  return { total: 0, processed: 0, found: 0, notFound: 0, failed: 0, skipped: 0, creditsUsed: 0 };
}

export function idleProgress(
  message = 'No run yet. Select a column of profile URLs, then Find e-mails.',
): Progress {
  return { state: 'idle', message, ...emptyCounts() };
}

export function progressOf(job: Job | null): Progress {
  if (!job) return idleProgress();
  const counts = { ...job.counts, processed: Math.min(job.counts.processed, job.counts.total) };
  return { ...counts, state: job.state, message: job.message, sheetName: job.sheetName };
}

/** A header cell holds text that is not a URL. */
export function isHeaderText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '' && !looksLikeUrl(value);
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

export function isBlank(value: unknown): boolean {
  return value === '' || value === null || value === undefined;
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
  if (block.every((row) => owned.every((column) => isBlank(row[column])))) return true;
  const rows = headerIndex === null ? block : block.filter((_, index) => index !== headerIndex);
  if (headerIndex !== null && !owned.every((column) => isBlank(block[headerIndex]?.[column]))) return false;
  let ours = 0;
  for (const row of rows) {
    if (owned.every((column) => isBlank(row[column]))) continue;
    if (!isOwnStatus(row[1], row[0]) || !(isBlank(row[2]) || typeof row[2] === 'boolean')) return false;
    ours++;
  }
  return ours > 0;
}

/** How a written status counts: found, without an address, or failed (ERROR and INVALID_URL). */
export function statusKind(status: string): 'found' | 'notFound' | 'failed' | 'none' {
  if (status === '') return 'none';
  if (status === STATUS.notFound || status === STATUS.unprocessable) return 'notFound';
  if (status === STATUS.error || status === STATUS.invalidUrl) return 'failed';
  return 'found';
}

export type RowPlan =
  | { action: 'blank' }
  | { action: 'keep' } // holds a result already
  | { action: 'invalid'; reason: string; sent: string }
  | { action: 'lookup'; sent: string; key: string };

/**
 * What to do with each row of a window. `rows` hold the URL cell then the output cells.
 * A row is pending when it has no status yet, or (on the first pass) an ERROR (retried) or INVALID_URL (checked
 * again: free). Later passes only pick up rows without a status: the ones written this run are final.
 */
export function planRows(
  rows: unknown[][],
  recheck: boolean,
  retryFailed: boolean,
  hosts: NetworkHosts,
): RowPlan[] {
  return rows.map((row) => {
    const input = parseProfileInput(row[0], hosts);
    const status = String(row[2] ?? '');
    if (input.kind === 'empty') return { action: 'blank' };
    const pending = recheck || isPendingStatus(status, retryFailed);
    if (!pending) return { action: 'keep' };
    if (input.kind === 'invalid') return { action: 'invalid', reason: input.reason, sent: String(row[0]) };
    return { action: 'lookup', sent: input.sent, key: input.key };
  });
}

export function isPendingStatus(status: string, retryFailed: boolean): boolean {
  return status === '' || (retryFailed && (status === STATUS.error || status === STATUS.invalidUrl));
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

export function countOutcome(counts: Counts, outcome: RowOutcome): void {
  counts.processed++;
  if (outcome.kind === 'found') counts.found++;
  else if (outcome.kind === 'not_found' || outcome.kind === 'unprocessable') counts.notFound++;
  else counts.failed++;
}

export function describeOutcomeState(state: JobState, counts: Counts): string {
  switch (state) {
    case 'done':
      return `Done: ${counts.found} found, ${counts.notFound} without an address, ${counts.failed} failed, ${counts.skipped} already had a result. ${counts.creditsUsed} credits used.`;
    case 'cancelled':
      return `Cancelled. Results written so far are kept (${counts.processed} rows).`;
    default:
      return '';
  }
}
