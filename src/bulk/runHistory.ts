/** A run's summary (counters that do not overlap, ./outcomes.ts; its working time), the last runs, the first failed row. */
import type { KindCounts, RunHistory, RunReason, RunSummary } from '../api';
import { columnLetters } from '../core/a1';
import { CELL, outputHeaders } from '../core/cells';
import { HISTORY_LENGTH } from '../core/limits';
import type { Platform } from '../core/ports';
import { RUN_HISTORY_PROPERTY } from '../core/propertyNames';
import { FAILED_KINDS, RESULT_KINDS } from '../core/runWords';
import { checkedRecord, type FieldSpecs, parseStored } from '../core/storedJson';
import type { Job } from './job';
import { loadJob } from './jobStore';
import { kindOfStatus } from './outcomes';
import { cellText, readJobRange } from './rowCells';

const ENDED = ['done', 'cancelled'];

const SUMMARY_FIELDS: FieldSpecs<RunSummary> = {
  id: 'string',
  state: 'string',
  retry: 'boolean',
  sheetName: 'string',
  range: 'string',
  found: 'number',
  noAddress: 'number',
  unprocessable: 'number',
  notProfile: 'number',
  error: 'number',
  alreadyDone: 'number',
  creditsSpent: 'number',
  creditsMaybeLost: 'number',
  lookupsFound: 'number?',
  startedAt: 'number',
  endedAt: 'number',
  durationMs: 'number',
  // timeTakenText reads a missing one as no wait, so a summary without it is still listed.
  waited: 'object?',
  origin: 'string?',
  runs: 'number?',
};

/** Newest first; an entry that is not a run's summary is left out. */
function readHistory(platform: Platform): RunSummary[] {
  const history = parseStored(platform.documentProperties().getProperty(RUN_HISTORY_PROPERTY));
  if (!Array.isArray(history)) return [];
  return history.flatMap((entry) => checkedRecord<RunSummary>(entry, SUMMARY_FIELDS) ?? []);
}

export function summarize(job: Job): RunSummary {
  const column = columnLetters(job.urlColumn);
  const watch = job.origin === 'watch';
  const kinds = Object.fromEntries(RESULT_KINDS.map((kind) => [kind, job.counts[kind]])) as KindCounts;
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
    range: watch ? `${column}:${column}` : `${column}${job.firstRow}:${column}${job.lastRow}`,
    ...kinds,
    alreadyDone: watch ? 0 : job.counts.alreadyDone,
    creditsSpent: job.counts.creditsUsed,
    creditsMaybeLost: job.counts.creditsMaybeLost ?? 0,
    ...(job.counts.lookupsFound === undefined ? {} : { lookupsFound: job.counts.lookupsFound }),
    startedAt: job.startedAt,
    endedAt,
    durationMs: Math.max(0, endedAt - job.startedAt - waitedMs),
    waited,
    ...(watch ? { origin: 'watch' as const, runs: 1 } : {}),
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

/** Once per run. Call it holding the document lock. */
export function recordRun(platform: Platform, job: Job): RunSummary | null {
  if (!ENDED.includes(job.state)) return null;
  const history = readHistory(platform);
  const recorded = history.find((entry) => entry.id === job.id);
  if (recorded) return recorded;
  const summary = summarize(job);
  const updated = addToHistory(history, summary, (ms) => platform.clock.day(ms));
  platform.documentProperties().setProperty(RUN_HISTORY_PROPERTY, JSON.stringify(updated));
  return summary;
}

/** The last run is recorded the first time it is asked for after it ended. */
export function getRunHistory(platform: Platform): RunHistory {
  const stored = loadJob(platform);
  const job = stored && ENDED.includes(stored.state) ? stored : null;
  if (job && !readHistory(platform).some((entry) => entry.id === job.id)) {
    // Cancelled while a slice works: its counts arrive when it saves (the summary is recorded after that).
    const busy = job.leaseUntil > platform.clock.now();
    const last = busy ? summarize(job) : platform.lock.with(() => recordRun(platform, job));
    return { last, history: readHistory(platform) };
  }
  const history = readHistory(platform);
  return { last: job ? (history.find((entry) => entry.id === job.id) ?? null) : null, history };
}

export function selectFirstFailedRow(platform: Platform): string {
  const job = loadJob(platform);
  const sheet = job && platform.spreadsheet().sheetById(job.sheetId);
  if (!job || !sheet) return 'There is no run to look at in this spreadsheet.';
  // URL, Email, Email status.
  const rows = readJobRange(sheet, job, CELL.status + 1);
  const index = rows.findIndex((row) => {
    const kind = kindOfStatus(cellText(row[CELL.status]), row[CELL.email]);
    return kind !== null && FAILED_KINDS.includes(kind);
  });
  if (index < 0) return 'No row of the last run failed.';
  const row = job.firstRow + index;
  const width = job.outputColumn - job.urlColumn + outputHeaders(job.extraFields).length;
  sheet.select({ row, column: job.urlColumn, rows: 1, columns: width });
  return `Row ${row} is selected (${cellText(rows[index][CELL.status])}).`;
}
