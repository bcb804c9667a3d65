/**
 * The bulk run's stored state and what the sidebar sees of it (the types the sidebar receives: src/api.ts). Pure:
 * states change only in jobMachine.ts.
 */

import type { JobState, PaceReason, PlanSummary, Progress, RunCounts, RunReason } from '../api';
import { WAITING_AFTER_MS } from '../core/limits';
import { SETTINGS_PATH } from '../core/product';
import {
  EVERY_ROW_PAUSED_MESSAGE,
  EVERY_ROW_PAUSED_OTHERS,
  emptyRunCounts,
  pausedWithEveryRow,
} from '../core/runWords';
import type { PaceState } from '../lookup/pace';

/** A run's counters (src/bulk/outcomes.ts classifies every row). */
export type Counts = RunCounts;

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
  /**
   * The rows whose output cells the add-on owned when the run started (its recorded blocks, src/bulk/blocks.ts): the
   * only ones the run may write over; any other row is written only where its output cells are empty.
   */
  owns?: Array<[number, number]>;
  state: JobState;
  /** Set with a paused, stopped or cancelled state. */
  reason?: RunReason;
  message: string;
  counts: Counts;
  startedAt: number;
  /** Since when the run is paused or stopped (the clock's time), while it is. */
  haltedSince?: number;
  /** The paused and stopped stretches that ended, in ms by the reason of the halt: not working time. */
  waited?: Partial<Record<RunReason, number>>;
  updatedAt: number;
  /**
   * Who started the run: an opaque id kept in the starter's own user properties (src/adapters/runner.ts), and
   * their e-mail address when Apps Script gives it ('' otherwise). Only the starter's executions work on the run
   * or change its state.
   */
  ownerId: string;
  ownerName?: string;
  /** The latest end of a window lease (`windows`): some slice works on the run until then. */
  leaseUntil: number;
  /**
   * The windows of rows slices hold, and rows given back (src/bulk/lease.ts): rows from `cursor` on were never
   * leased in this pass; a window is worked on only by the slice holding its token until `until`.
   */
  windows?: WindowLease[];
  /**
   * The run's pace (src/lookup/pace.ts): `size` is its requests at the service at once, across its slices; each
   * batch is observed in the hold that writes it, under the lock.
   */
  pace?: PaceState;
  /** Slices waiting for room in the run's pace (token -> until when): the others' shares make room for them. */
  waiting?: Record<string, number>;
  /** Retry failed rows: only rows with these statuses are worked on (absent: every row). */
  redo?: string[];
  /** The plan the run was started with, as the sidebar shows it. */
  plan?: PlanSummary;
  /** 'watch': a run a watch started (src/watch/), charged to the watch in the credits log. Absent: a person's run. */
  origin?: 'watch';
  /** Why the last slice's batches were held small, if they were (src/lookup/pace.ts paceReason). */
  paceReason?: PaceReason;
}

/**
 * Rows `from`..`to` of the current pass, leased to the slice holding `token` until `until` (0: free, to be leased
 * again), with `n` requests at the service for them since `at`; `waits`: given back because another execution was
 * looking up a profile of these rows.
 */
export interface WindowLease {
  from: number;
  to: number;
  token: string;
  until: number;
  n?: number;
  at?: number;
  waits?: 1;
}

export const emptyCounts = emptyRunCounts;

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

/** Only the starter may drive the run. */
export function mayDrive(job: Pick<Job, 'ownerId'>, runnerId: string | null): boolean {
  return job.ownerId === runnerId;
}

/** How the sidebar names the starter to someone else. */
export function starterName(job: Pick<Job, 'ownerName'>): string {
  return job.ownerName || 'another editor of this spreadsheet';
}

/** The refusal another editor gets for Run, Pause, Resume or Cancel. */
export function notYourRun(job: Pick<Job, 'ownerName'>): string {
  return `This run was started by ${starterName(job)}; only they can run, pause or resume it. It uses their API key and credits.`;
}

/**
 * A run's counts as a person sees them, wherever they are shown (the sidebar, the status line, the progress
 * message). A watch's run leaves out the rows it found done: earlier runs did them, and "40 of 41" for one new row
 * would read as 40 rows of its work.
 */
export function countsShown(job: Pick<Job, 'counts' | 'origin'>): Counts {
  const counts = { ...job.counts, processed: Math.min(job.counts.processed, job.counts.total) };
  if (job.origin !== 'watch') return counts;
  const done = counts.alreadyDone;
  return {
    ...counts,
    total: counts.total - done,
    processed: Math.max(0, counts.processed - done),
    alreadyDone: 0,
  };
}

/** A run whose starter's sidebar was closed, as its starter reads it: nothing moves until it is open again. */
export const SIDEBAR_CLOSED_MESSAGE = `Paused: the sidebar was closed. It goes on when you open the sidebar again (${SETTINGS_PATH}); every result so far is written.`;

/** The same run as another editor reads it. */
export const STARTER_AWAY_MESSAGE =
  "Paused: its starter's sidebar is closed. It goes on when they open their sidebar again.";

export function progressOf(job: Job | null, viewer?: Viewer): Progress {
  if (!job) return idleProgress();
  const counts = countsShown(job);
  const progress: Progress = {
    ...counts,
    state: job.state,
    message: job.message,
    sheetName: job.sheetName,
    runId: job.id,
  };
  if (job.reason) progress.reason = job.reason;
  if (job.plan) progress.plan = job.plan;
  if (job.origin) progress.origin = job.origin;
  if (job.paceReason && job.state === 'running') progress.paceReason = job.paceReason;
  if (!viewer) return progress;
  if (!mayDrive(job, viewer.runnerId)) {
    progress.readOnly = true;
    progress.startedBy = starterName(job);
  }
  // No slice works on it and none has for a while: its sidebar was closed (the close itself may not have reached
  // the server). Nothing moves until the starter's sidebar is open again.
  const undriven = job.leaseUntil <= viewer.now && viewer.now - job.updatedAt >= WAITING_AFTER_MS;
  if (job.state === 'running' && undriven) {
    progress.waiting = true;
    // A watch's run goes on at its triggers' next event, not with a sidebar.
    if (job.origin !== 'watch')
      progress.message = progress.readOnly ? STARTER_AWAY_MESSAGE : SIDEBAR_CLOSED_MESSAGE;
  }
  if (job.state === 'paused' && job.reason === 'sidebar_closed' && progress.readOnly)
    progress.message = STARTER_AWAY_MESSAGE;
  // An unexpected error's text is for its starter, who can act on it; another editor reads that it paused.
  if (job.state === 'paused' && job.reason === 'error' && progress.readOnly)
    progress.message = `Paused after an unexpected error. ${starterName(job)} can Resume it in their Progress tab.`;
  // Paused with nothing left to look up: not "Paused" at 100 %, but a run waiting only for its end.
  if (pausedWithEveryRow(progress))
    progress.message = progress.readOnly ? EVERY_ROW_PAUSED_OTHERS : EVERY_ROW_PAUSED_MESSAGE;
  return progress;
}
