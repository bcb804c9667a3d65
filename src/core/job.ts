/** The bulk run's stored state and what the sidebar sees of it. Pure: states change only in jobMachine.ts. */

export type JobState = 'idle' | 'running' | 'paused' | 'stopped' | 'cancelled' | 'done';

/**
 * Why a run is paused, stopped or cancelled, for the sidebar to render without reading the message:
 * `user` (Pause or Cancel pressed), the service's verdicts, the add-on's configuration, or the sheet.
 */
export type RunReason =
  | 'user'
  | 'out_of_credits'
  | 'key_rejected'
  | 'no_key'
  | 'quota'
  | 'configuration'
  | 'error'
  | 'no_spreadsheet'
  | 'sheet_missing'
  | 'sheet_changed';

export interface Counts {
  total: number;
  processed: number;
  found: number;
  notFound: number;
  failed: number;
  skipped: number;
  /** Charged answers received (found, not found, unprocessable). */
  creditsUsed: number;
  /**
   * Requests whose answer was lost to a connection failure: the service may have charged each (absent in jobs
   * stored by earlier versions).
   */
  creditsMaybeLost?: number;
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
  /** Set with a paused, stopped or cancelled state (absent in jobs stored by earlier versions). */
  reason?: RunReason;
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
  reason?: RunReason;
  message: string;
  sheetName?: string;
}

/** "37 credits used", and the answers lost to connection failures apart: "…, up to 45 more may have been charged …". */
export function creditsText(counts: Pick<Counts, 'creditsUsed' | 'creditsMaybeLost'>): string {
  const lost = counts.creditsMaybeLost ?? 0;
  const used = `${counts.creditsUsed} credits used`;
  return lost > 0
    ? `${used}, up to ${lost} more may have been charged for answers lost to connection failures`
    : used;
}

export function emptyCounts(): Counts {
  return {
    total: 0,
    processed: 0,
    found: 0,
    notFound: 0,
    failed: 0,
    skipped: 0,
    creditsUsed: 0,
    creditsMaybeLost: 0,
  };
}

export function idleProgress(
  message = 'No run yet. Select a column of profile URLs, then Find e-mails.',
): Progress {
  return { state: 'idle', message, ...emptyCounts() };
}

export function progressOf(job: Job | null): Progress {
  if (!job) return idleProgress();
  const counts = { ...job.counts, processed: Math.min(job.counts.processed, job.counts.total) };
  const progress: Progress = { ...counts, state: job.state, message: job.message, sheetName: job.sheetName };
  if (job.reason) progress.reason = job.reason;
  return progress;
}
