/** Bulk-run state and the per-window plan. Pure: the sheet and the service are reached by features/enrichment.ts. */
import { outputHeaders, type RowOutcome, STATUS, statusOf } from './cells';
import { looksLikeUrl, parseProfileInput } from './url';

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
  /** The sheet's last row when last seen: rows inserted or deleted inside the job move its end. */
  sheetLastRow: number;
  state: JobState;
  message: string;
  counts: Counts;
  startedAt: number;
  updatedAt: number;
  /** Set while a slice runs, so a second caller (sidebar and trigger at once) does not work on the same rows. */
  leaseUntil: number;
}

export interface Progress extends Counts {
  state: JobState;
  message: string;
  sheetName?: string;
  range?: string;
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

/**
 * Output columns can be reused when each one either carries this add-on's title in the header row
 * or is empty in every row of the job; otherwise new columns are inserted.
 */
export function canReuseOutputColumns(
  block: unknown[][],
  headerIndex: number | null,
  extraFields: boolean,
): boolean {
  const titles = outputHeaders(extraFields);
  return titles.every((title, column) => {
    if (headerIndex !== null && block[headerIndex]?.[column] === title) return true;
    return block.every((row) => row[column] === '' || row[column] === null || row[column] === undefined);
  });
}

export type RowPlan =
  | { action: 'blank' }
  | { action: 'keep' } // holds a result already
  | { action: 'invalid'; reason: string; sent: string }
  | { action: 'lookup'; sent: string; key: string };

/**
 * What to do with each row of a window. `rows` hold the URL cell then the output cells.
 * A row is pending when it has no status yet, or an ERROR (retried), or INVALID_URL (checked again: free).
 */
export function planRows(rows: unknown[][], recheck: boolean): RowPlan[] {
  return rows.map((row) => {
    const input = parseProfileInput(row[0]);
    const status = String(row[2] ?? '');
    if (input.kind === 'empty') return { action: 'blank' };
    const pending = recheck || status === '' || status === STATUS.error || status === STATUS.invalidUrl;
    if (!pending) return { action: 'keep' };
    if (input.kind === 'invalid') return { action: 'invalid', reason: input.reason, sent: String(row[0]) };
    return { action: 'lookup', sent: input.sent, key: input.key };
  });
}

/** True when the row still holds the URL it was planned from (a sort or insertion moves rows between slices). */
export function sameInput(cell: unknown, plan: RowPlan): boolean {
  if (plan.action === 'lookup') {
    const input = parseProfileInput(cell);
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

export { statusOf };
