/** The bulk run's stored state and what the sidebar sees of it. Pure: states change only in jobMachine.ts. */
import type { JobState, PlanSummary, Progress, RunCounts, RunReason } from '../api';
import { WAITING_AFTER_MS } from '../core/limits';
import { SETTINGS_PATH } from '../core/product';
import {
  EVERY_ROW_PAUSED_MESSAGE,
  EVERY_ROW_PAUSED_OTHERS,
  emptyRunCounts,
  pausedWithEveryRow,
} from '../core/runWords';
import type { Pace } from '../lookup/pace';

export interface Job {
  id: string;
  sheetId: number;
  sheetName: string;
  urlColumn: number;
  /** 1-based, header excluded. */
  firstRow: number;
  lastRow: number;
  headerRow: number | null;
  outputColumn: number;
  extraFields: boolean;
  recheck: boolean;
  cursor: number;
  /** Later passes pick up rows that moved during the run. */
  pass: number;
  /** The sheet's size and the range's end URL cells when last seen: they tell where the rows went (./relocate.ts). */
  maxRows: number;
  maxColumns: number;
  topValue: string;
  bottomValue: string;
  headerTexts: string[] | null;
  hasDuplicates: boolean;
  /** Rows whose output cells the add-on owned at the start (./blocks.ts): the only ones it may write over. */
  owns?: Array<[number, number]>;
  state: JobState;
  reason?: RunReason;
  message: string;
  counts: RunCounts;
  startedAt: number;
  haltedSince?: number;
  /** Ended paused and stopped stretches, in ms by reason: not working time. */
  waited?: Partial<Record<RunReason, number>>;
  updatedAt: number;
  /** The starter's opaque runner id; only their executions work on the run. */
  ownerId: string;
  /** Their e-mail address when Apps Script gives it. */
  ownerName?: string;
  /** The latest end of a window lease (set with `windows`): some slice works on the run until then. */
  leaseUntil: number;
  /** Rows from `cursor` on were never leased in this pass. */
  windows?: WindowLease[];
  pace?: Pace;
  /** Retry failed rows: only rows with these statuses (absent: every row). */
  redo?: string[];
  plan?: PlanSummary;
  /** Absent: a person's run. */
  origin?: 'watch';
}

/** `until` 0: free again. */
export interface WindowLease {
  from: number;
  to: number;
  token: string;
  until: number;
  /** Lookups its batch holds: the run's slices together send no more than its pace. */
  sent?: number;
}

export function idleProgress(
  message = 'No run yet. Select a column of profile URLs, then Find e-mails.',
): Progress {
  return { state: 'idle', message, ...emptyRunCounts() };
}

export function mayDrive(job: Pick<Job, 'ownerId'>, runnerId: string | null): boolean {
  return job.ownerId === runnerId;
}

export function starterName(job: Pick<Job, 'ownerName'>): string {
  return job.ownerName || 'another editor of this spreadsheet';
}

export function notYourRun(job: Pick<Job, 'ownerName'>): string {
  return `This run was started by ${starterName(job)}; only they can run, pause or resume it. It uses their API key and credits.`;
}

/** A watch's run leaves out the rows it found done: "40 of 41" for one new row would read as 40 rows of its work. */
export function countsShown(job: Pick<Job, 'counts' | 'origin'>): RunCounts {
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

export const SIDEBAR_CLOSED_MESSAGE = `Paused: the sidebar was closed. It goes on when you open the sidebar again (${SETTINGS_PATH}); every result so far is written.`;

export const STARTER_AWAY_MESSAGE =
  "Paused: its starter's sidebar is closed. It goes on when they open their sidebar again.";

export function progressOf(job: Job | null, viewer?: { runnerId: string | null; now: number }): Progress {
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
  if (job.pace?.reason && job.state === 'running') progress.paceReason = job.pace.reason;
  if (!viewer) return progress;
  if (!mayDrive(job, viewer.runnerId)) {
    progress.readOnly = true;
    progress.startedBy = starterName(job);
  }
  // No slice for a while: its sidebar was closed, though the close may not have reached the server.
  const undriven = job.leaseUntil <= viewer.now && viewer.now - job.updatedAt >= WAITING_AFTER_MS;
  if (job.state === 'running' && undriven) {
    progress.waiting = true;
    if (job.origin !== 'watch')
      progress.message = progress.readOnly ? STARTER_AWAY_MESSAGE : SIDEBAR_CLOSED_MESSAGE;
  }
  if (job.state === 'paused' && job.reason === 'sidebar_closed' && progress.readOnly)
    progress.message = STARTER_AWAY_MESSAGE;
  if (job.state === 'paused' && job.reason === 'error' && progress.readOnly)
    progress.message = `Paused after an unexpected error. ${starterName(job)} can Resume it in their Progress tab.`;
  if (pausedWithEveryRow(progress))
    progress.message = progress.readOnly ? EVERY_ROW_PAUSED_OTHERS : EVERY_ROW_PAUSED_MESSAGE;
  return progress;
}
