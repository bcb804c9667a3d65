/**
 * What a run did, in counters that do not overlap: every row of the run's range is in exactly one of found, no
 * address, unprocessable, not a profile, errors, already done, not processed, blank (./outcomes.ts classifies).
 * Its time: the working time, and the paused or stopped stretches apart. Pure.
 */

import type { KindCounts, RunReason, RunSummary } from '../api';
import { HISTORY_LENGTH } from '../core/limits';
import { RESULT_KINDS } from '../core/runWords';
import type { Job } from './job';

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

/** The history with `summary` first (replacing an older entry of the same run), at most HISTORY_LENGTH long. */
export function addToHistory(history: RunSummary[], summary: RunSummary): RunSummary[] {
  return [summary, ...history.filter((entry) => entry.id !== summary.id)].slice(0, HISTORY_LENGTH);
}
