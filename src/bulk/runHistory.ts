/** An ended run's summary, the spreadsheet's last runs, and selecting the first failed row. */
import type { RunHistory, RunSummary } from '../api';
import { columnLetters } from '../core/a1';
import { CELL, outputHeaders } from '../core/cells';
import type { Platform } from '../core/ports';
import { RUN_HISTORY_PROPERTY } from '../core/propertyNames';
import { FAILED_KINDS } from '../core/runWords';
import type { SheetPort } from '../core/sheet';
import { checkedRecord, type FieldSpecs, parseStored } from '../core/storedJson';
import { readJobCells } from './columns';
import type { Job } from './job';
import { loadJob } from './jobStore';
import { kindOfStatus } from './outcomes';
import { cellText } from './rowCells';
import { addToHistory, summaryOf } from './runSummary';

const ENDED = ['done', 'cancelled'];

function sheetOf(platform: Platform, job: Job): SheetPort | undefined {
  return platform.spreadsheet().sheetById(job.sheetId);
}

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

/** URL, Email, Email status. */
function jobRows(platform: Platform, job: Job): unknown[][] {
  const sheet = sheetOf(platform, job);
  if (!sheet || job.lastRow < job.firstRow) return [];
  return readJobCells(sheet, job, job.firstRow, job.lastRow - job.firstRow + 1, CELL.status + 1);
}

export function summarize(job: Job): RunSummary {
  const column = columnLetters(job.urlColumn);
  const summary = summaryOf(
    job,
    job.origin === 'watch' ? `${column}:${column}` : `${column}${job.firstRow}:${column}${job.lastRow}`,
  );
  return job.origin === 'watch' ? { ...summary, alreadyDone: 0 } : summary;
}

/** Once per run. Call it holding the document lock. */
export function recordRun(platform: Platform, job: Job): RunSummary | null {
  if (!ENDED.includes(job.state)) return null;
  const history = readHistory(platform);
  const recorded = history.find((entry) => entry.id === job.id);
  if (recorded) return recorded;
  const summary = summarize(job);
  platform
    .documentProperties()
    .setProperty(
      RUN_HISTORY_PROPERTY,
      JSON.stringify(addToHistory(history, summary, (ms) => platform.clock.day(ms))),
    );
  return summary;
}

/** The last run is recorded the first time it is asked for after it ended. */
export function getRunHistory(platform: Platform): RunHistory {
  const job = loadJob(platform);
  if (job && ENDED.includes(job.state) && !readHistory(platform).some((entry) => entry.id === job.id)) {
    // Cancelled while a slice works: its counts arrive when it saves (the summary is recorded after that).
    if (job.leaseUntil > platform.clock.now())
      return { last: summarize(job), history: readHistory(platform) };
    const last = platform.lock.with(() => recordRun(platform, job));
    return { last, history: readHistory(platform) };
  }
  const history = readHistory(platform);
  const last =
    job && ENDED.includes(job.state) ? (history.find((entry) => entry.id === job.id) ?? null) : null;
  return { last, history };
}

const failed = (row: unknown[]): boolean => {
  const kind = kindOfStatus(cellText(row[CELL.status]), row[CELL.email]);
  return kind !== null && FAILED_KINDS.includes(kind);
};

export function selectFirstFailedRow(platform: Platform): string {
  const job = loadJob(platform);
  const sheet = job && sheetOf(platform, job);
  if (!job || !sheet) return 'There is no run to look at in this spreadsheet.';
  const rows = jobRows(platform, job);
  const index = rows.findIndex(failed);
  if (index < 0) return 'No row of the last run failed.';
  const row = job.firstRow + index;
  const width = job.outputColumn - job.urlColumn + outputHeaders(job.extraFields).length;
  sheet.select({ row, column: job.urlColumn, rows: 1, columns: width });
  return `Row ${row} is selected (${cellText(rows[index][CELL.status])}).`;
}
