/** The bulk run's stored state and what the sidebar sees of it. Pure: states change only in jobMachine.ts. */
import type { PaceReason } from './pace';
import type { RunPlan } from './runPlan';
import type { KindCounts } from './runSummary';
import { countText } from './text';

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
  /** A re-check's first pass: hashes of the keys of rows written ahead of the cursor, already counted. */
  writtenAhead?: string[];
  state: JobState;
  /** Set with a paused, stopped or cancelled state (absent in jobs stored by earlier versions). */
  reason?: RunReason;
  message: string;
  counts: Counts;
  startedAt: number;
  updatedAt: number;
  /**
   * Who started the run: an opaque id kept in the starter's own user properties (src/adapters/runner.ts), and
   * their e-mail address when Apps Script gives it ('' otherwise). Only the starter's executions work on the run
   * or change its state. Absent in jobs stored by earlier versions: anyone may drive those.
   */
  ownerId?: string;
  ownerName?: string;
  /** Set while a slice runs, so a second caller (two sidebars of the starter at once) does not work on the same rows. */
  leaseUntil: number;
  /** The slice holding the lease: a slice whose token is no longer the stored one stops and writes nothing. */
  leaseToken?: string;
  /** Retry failed rows: only rows with these statuses are worked on (absent: every row). */
  redo?: string[];
  /** The kinds of the results the rows held when the run started (its summary counts what it added). */
  baseline?: KindCounts;
  /** The plan the run was started with, as the sidebar shows it. */
  plan?: PlanSummary;
  /** Why the last slice's batches were held small, if they were (src/core/pace.ts paceReason). */
  paceReason?: PaceReason;
}

/** What the progress view shows of the plan a run started with. */
export type PlanSummary = Pick<
  RunPlan,
  'range' | 'rows' | 'newProfiles' | 'knownProfiles' | 'notProfiles' | 'blanks' | 'alreadyDone' | 'credits'
> & { columns: string; effect: string; retry: boolean; recheck: boolean };

export interface Progress extends Counts {
  state: JobState;
  reason?: RunReason;
  message: string;
  sheetName?: string;
  /** The run's id (the sidebar fetches its summary when it ends). */
  runId?: string;
  plan?: PlanSummary;
  /** Set for a viewer who did not start the run: who did, as the sidebar shows it. */
  startedBy?: string;
  /** The viewer did not start the run: they see it, and can neither run, pause, resume nor cancel it. */
  readOnly?: boolean;
  /** Running, but no execution has worked on it lately: it waits for its starter's sidebar to be open. */
  waiting?: boolean;
  /** Running with batches held small: 'connection_failures' or 'rate_limited' (src/core/pace.ts paceReason). */
  paceReason?: PaceReason;
}

/** "37 credits used", and the answers lost to connection failures apart: "…, up to 45 more may have been charged …". */
export function creditsText(counts: Pick<Counts, 'creditsUsed' | 'creditsMaybeLost'>): string {
  const lost = counts.creditsMaybeLost ?? 0;
  const used = `${countText(counts.creditsUsed, 'credit')} used`;
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

/** Who may see a run and who may drive it: the viewer's runner id (src/adapters/runner.ts) and the time. */
export interface Viewer {
  runnerId: string | null;
  now: number;
}

/**
 * A running job untouched this long waits for a driver: longer than a slice (45 s) and its saves, so a run
 * driven right now never reads as waiting.
 */
export const WAITING_AFTER_MS = 90_000;

/** The starter (or anyone, for a job of an earlier version without one) may drive the run. */
export function mayDrive(job: Pick<Job, 'ownerId'>, runnerId: string | null): boolean {
  return job.ownerId === undefined || job.ownerId === runnerId;
}

/** How the sidebar names the starter to someone else. */
export function starterName(job: Pick<Job, 'ownerName'>): string {
  return job.ownerName || 'another editor of this spreadsheet';
}

/** The refusal another editor gets for Run, Pause, Resume or Cancel. */
export function notYourRun(job: Pick<Job, 'ownerName'>): string {
  return `This run was started by ${starterName(job)}; only they can run, pause or resume it. It uses their API key and credits.`;
}

export function progressOf(job: Job | null, viewer?: Viewer): Progress {
  if (!job) return idleProgress();
  const counts = { ...job.counts, processed: Math.min(job.counts.processed, job.counts.total) };
  const progress: Progress = {
    ...counts,
    state: job.state,
    message: job.message,
    sheetName: job.sheetName,
    runId: job.id,
  };
  if (job.reason) progress.reason = job.reason;
  if (job.plan) progress.plan = job.plan;
  if (job.paceReason && job.state === 'running') progress.paceReason = job.paceReason;
  if (!viewer) return progress;
  if (!mayDrive(job, viewer.runnerId)) {
    progress.readOnly = true;
    progress.startedBy = starterName(job);
  }
  if (
    job.state === 'running' &&
    job.leaseUntil <= viewer.now &&
    viewer.now - job.updatedAt >= WAITING_AFTER_MS
  ) {
    progress.waiting = true;
  }
  return progress;
}
