/**
 * What a run did, in counters that do not overlap: every row of the run's range is in exactly one of found, no
 * address, unprocessable, not a profile, errors, already done, not processed, blank (./outcomes.ts classifies).
 * Its time: the working time, and the paused or stopped stretches apart. Pure.
 */
import type { KindCounts, RunReason, RunSummary } from '../api';
import type { Job } from './job';
import { RESULT_KINDS } from './outcomes';

/** The summary of an ended run: the figures its progress line shows, and its working time. */
export function summaryOf(job: Job, range: string): RunSummary {
  const kinds = {} as KindCounts;
  for (const kind of RESULT_KINDS) kinds[kind] = job.counts[kind];
  const endedAt = job.updatedAt;
  const waited: Partial<Record<RunReason, number>> = { ...job.waited };
  if (job.haltedSince !== undefined) {
    const why = job.reason ?? 'user';
    waited[why] = (waited[why] ?? 0) + Math.max(0, endedAt - job.haltedSince);
  }
  const waitedMs = Object.values(waited).reduce((sum, ms) => sum + (ms ?? 0), 0);
  return {
    id: job.id,
    state: job.state,
    retry: Boolean(job.redo),
    sheetName: job.sheetName,
    range,
    ...kinds,
    alreadyDone: job.counts.alreadyDone,
    creditsSpent: job.counts.creditsUsed,
    creditsMaybeLost: job.counts.creditsMaybeLost ?? 0,
    ...(job.counts.lookupsFound === undefined ? {} : { lookupsFound: job.counts.lookupsFound }),
    startedAt: job.startedAt,
    endedAt,
    durationMs: Math.max(0, endedAt - job.startedAt - waitedMs),
    waited,
  };
}

/** How many runs a spreadsheet remembers. */
export const HISTORY_LENGTH = 5;

/** The history with `summary` first (replacing an older entry of the same run), at most HISTORY_LENGTH long. */
export function addToHistory(history: RunSummary[], summary: RunSummary): RunSummary[] {
  return [summary, ...history.filter((entry) => entry.id !== summary.id)].slice(0, HISTORY_LENGTH);
}

/** What a paused or stopped run waited for, by the reason of the halt. */
const WAITED_FOR: Record<RunReason, string> = {
  user: 'while paused',
  out_of_credits: 'for credits',
  key_rejected: 'for a key',
  no_key: 'for a key',
  quota: "for Apps Script's daily limit",
  configuration: 'for the configuration',
  error: 'after an error',
  no_spreadsheet: 'for the spreadsheet',
  sheet_missing: 'for the sheet',
  sheet_changed: 'for the sheet',
};

/** "12 s", or the working time with the waits apart: "3 s of work, waited 26 s for a key". */
export function timeTakenText(summary: Pick<RunSummary, 'durationMs' | 'waited'>): string {
  const waits = Object.entries(summary.waited ?? {})
    .filter(([, ms]) => Math.round((ms ?? 0) / 1000) > 0)
    .map(([why, ms]) => `waited ${durationText(ms ?? 0)} ${WAITED_FOR[why as RunReason] ?? 'while halted'}`);
  const work = durationText(summary.durationMs);
  return waits.length > 0 ? `${work} of work, ${waits.join(', ')}` : work;
}

/** "2 h 5 min", "3 min 4 s", "12 s". */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
