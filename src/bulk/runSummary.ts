/** What a run did, in counters that do not overlap (./outcomes.ts), and its working time. Pure. */
import type { KindCounts, RunReason, RunSummary } from '../api';
import { HISTORY_LENGTH } from '../core/limits';
import { RESULT_KINDS } from '../core/runWords';
import type { Job } from './job';

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

/** People's last HISTORY_LENGTH runs, and one line summing the watch's runs of the day (it never pushes them out). */
export function addToHistory(
  history: RunSummary[],
  summary: RunSummary,
  dayOf: (ms: number) => string,
): RunSummary[] {
  let entry = summary;
  const earlier = history.filter((old) => old.id !== summary.id);
  if (summary.origin === 'watch') {
    const day = dayOf(summary.endedAt);
    const today = earlier.find((old) => old.origin === 'watch' && dayOf(old.endedAt) === day);
    if (today) entry = sumWatchRuns(today, summary);
  }
  const all = [entry, ...earlier.filter((old) => !(entry.origin === 'watch' && old.origin === 'watch'))];
  const people = all.filter((old) => old.origin !== 'watch').slice(0, HISTORY_LENGTH);
  const watch = all.find((old) => old.origin === 'watch');
  return all.filter((old) => old === watch || people.includes(old));
}

function sumWatchRuns(day: RunSummary, run: RunSummary): RunSummary {
  const sum = { ...run };
  for (const kind of RESULT_KINDS) sum[kind] = day[kind] + run[kind];
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
