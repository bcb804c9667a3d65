/**
 * What a run did, in counters that do not overlap: every row of the run's range is in exactly one of found, no
 * address, unprocessable, not a profile, errors, already done, not processed, blank (./outcomes.ts classifies).
 * Its time: the working time, and the paused or stopped stretches apart. Pure.
 */
import type { KindCounts, RunReason, RunSummary } from '../api';
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
    ...(job.origin === 'watch' ? { origin: 'watch' as const, runs: 1 } : {}),
  };
}

/** How many runs a spreadsheet remembers. */
export const HISTORY_LENGTH = 5;

const DAY_MS = 24 * 3600 * 1000;

/**
 * The history with `summary` first (replacing an older entry of the same run): the last HISTORY_LENGTH runs of
 * people, and one line for the watch, its runs of the day summed (a new day starts a new line), so the watch
 * never pushes a person's runs out.
 */
export function addToHistory(history: RunSummary[], summary: RunSummary): RunSummary[] {
  let entry = summary;
  const earlier = history.filter((old) => old.id !== summary.id);
  if (summary.origin === 'watch') {
    const today = earlier.find(
      (old) =>
        old.origin === 'watch' && Math.floor(old.endedAt / DAY_MS) === Math.floor(summary.endedAt / DAY_MS),
    );
    if (today) entry = sumWatchRuns(today, summary);
  }
  const all = [entry, ...earlier.filter((old) => !(entry.origin === 'watch' && old.origin === 'watch'))];
  const people = all.filter((old) => old.origin !== 'watch').slice(0, HISTORY_LENGTH);
  const watch = all.find((old) => old.origin === 'watch');
  return all.filter((old) => old === watch || people.includes(old));
}

/** The watch's line of the day with one more of its runs: the figures summed, the time of the last check. */
function sumWatchRuns(day: RunSummary, run: RunSummary): RunSummary {
  const sum = { ...run };
  for (const kind of RESULT_KINDS) sum[kind] = day[kind] + run[kind];
  // The rows a watch's run found done were done by earlier runs (counted there), not today's work.
  sum.alreadyDone = 0;
  sum.creditsSpent = day.creditsSpent + run.creditsSpent;
  sum.creditsMaybeLost = day.creditsMaybeLost + run.creditsMaybeLost;
  if (day.lookupsFound !== undefined && run.lookupsFound !== undefined)
    sum.lookupsFound = day.lookupsFound + run.lookupsFound;
  else delete sum.lookupsFound;
  sum.startedAt = day.startedAt;
  sum.durationMs = day.durationMs + run.durationMs;
  sum.runs = (day.runs ?? 1) + (run.runs ?? 1);
  return sum;
}
