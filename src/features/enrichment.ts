/** Bulk enrichment of a selected column: a job in document properties, processed in time-boxed slices. */

import { lookupMany } from '../adapters/http';
import { loadJob, updateJob } from '../adapters/jobStore';
import { ResultCache, readApiKey, readScriptConfig, readSettings } from '../adapters/store';
import {
  ensureContinuationTrigger,
  removeContinuationTrigger,
  SETTINGS_PATH,
  showSidebar,
} from '../adapters/ui';
import { enrichmentRow, outputHeaders, type RowOutcome, STATUS } from '../core/cells';
import {
  canReuseOutputColumns,
  countOutcome,
  describeOutcomeState,
  emptyCounts,
  idleProgress,
  isHeaderText,
  type Job,
  MAX_PASSES,
  type Progress,
  planRows,
  progressOf,
  type RowPlan,
  sameInput,
} from '../core/job';
import type { LookupOutcome, LookupResult, ServiceError } from '../core/lookup';
import { DEFAULT_RETRY } from '../core/retry';
import { parseProfileInput } from '../core/url';

// Apps Script stops an execution after 6 minutes (https://developers.google.com/apps-script/guides/services/quotas).
// A slice works for at most this long, leaving a wide margin for the last batch, the write and the save.
export const DEFAULT_STEP_BUDGET_MS = 45_000;
export const DEFAULT_BATCH_SIZE = 20;
const MAX_BATCH_SIZE = 100;
/** A lease outlives its slice by this much, so a crashed slice does not block the job for long. */
const LEASE_GRACE_MS = 30_000;
const FIRST_SLICE_MAX_MS = 15_000;

interface SliceLimits {
  budgetMs: number;
  batchSize: number;
}

function sliceLimits(): SliceLimits {
  const config = readScriptConfig();
  return {
    budgetMs: config.stepBudgetMs ?? DEFAULT_STEP_BUDGET_MS,
    batchSize: Math.min(MAX_BATCH_SIZE, config.batchSize ?? DEFAULT_BATCH_SIZE),
  };
}

function findSheet(ss: GoogleAppsScript.Spreadsheet.Spreadsheet, sheetId: number) {
  return ss.getSheets().find((sheet) => sheet.getSheetId() === sheetId) ?? null;
}

/** The spreadsheet of this execution; in a time-driven trigger there may be none (see README, "Triggers"). */
function activeSpreadsheet(): GoogleAppsScript.Spreadsheet.Spreadsheet | null {
  try {
    return SpreadsheetApp.getActiveSpreadsheet();
  } catch {
    return null;
  }
}

const ACTIVE_STATES = ['running', 'paused', 'stopped'];

export function enrichSelection(): Progress {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const existing = loadJob();
  if (existing && ACTIVE_STATES.includes(existing.state)) {
    showSidebar('progress');
    return {
      ...progressOf(existing),
      message: `A run is already under way in this spreadsheet (${existing.state}). Resume or cancel it before starting another.`,
    };
  }
  const selection = ss.getActiveRange();
  if (!selection)
    throw new Error('Select the cells with profile URLs (one column), then choose Find e-mails again.');
  const job = createJob(selection);
  showSidebar('progress');
  // A short first slice: the sidebar, open now, drives the rest.
  return processSlice(job.id, FIRST_SLICE_MAX_MS);
}

function createJob(selection: GoogleAppsScript.Spreadsheet.Range): Job {
  const settings = readSettings();
  const sheet = selection.getSheet();
  const urlColumn = selection.getColumn();
  const outputCount = outputHeaders(settings.extraFields).length;
  const sheetLastRow = sheet.getLastRow();
  const top = selection.getRow();
  // A whole-column selection (A:A) ends at the sheet's last row with data, not at row 1,000,000.
  const bottom = Math.min(selection.getLastRow(), sheetLastRow);
  if (bottom < top) throw new Error('The selected cells are empty: select the profile URLs, then try again.');
  const readTop = top > 1 ? top - 1 : top;
  const spareColumns = sheet.getMaxColumns() - urlColumn;
  const readWidth = 1 + Math.max(0, Math.min(outputCount, spareColumns));
  const block = sheet.getRange(readTop, urlColumn, bottom - readTop + 1, readWidth).getValues();
  const firstSelected = block[top - readTop][0];
  let headerRow: number | null = null;
  if (isHeaderText(firstSelected)) headerRow = top;
  else if (top > 1 && isHeaderText(block[0][0])) headerRow = top - 1;
  const firstRow = headerRow === top ? top + 1 : top;
  if (firstRow > bottom)
    throw new Error('There are no profile URLs under the header: select the URLs, then try again.');
  const dataRows = block.slice(firstRow - readTop);
  const total = dataRows.filter((row) => parseProfileInput(row[0]).kind !== 'empty').length;
  if (total === 0) throw new Error('The selected cells are empty: select the profile URLs, then try again.');

  const ownedRows = block.slice((headerRow ?? firstRow) - readTop).map((row) => row.slice(1));
  const headerIndex = headerRow === null ? null : 0;
  const reusable =
    readWidth === 1 + outputCount &&
    canReuseOutputColumns(
      ownedRows.map((row) => padRow(row, outputCount)),
      headerIndex,
      settings.extraFields,
    );
  // Never overwrite the user's data: insert fresh columns right of the URL column instead.
  if (!reusable) sheet.insertColumnsAfter(urlColumn, outputCount);
  const outputColumn = urlColumn + 1;

  // Service values are written as plain text so an address such as =HYPERLINK(...) can never become a formula.
  // The Catch-all column keeps real booleans.
  const rows = bottom - firstRow + 1;
  const textColumns = [0, 1, 3, 4, 5].filter((offset) => offset < outputCount);
  sheet
    .getRangeList(
      textColumns.map((offset) => sheet.getRange(firstRow, outputColumn + offset, rows, 1).getA1Notation()),
    )
    .setNumberFormat('@');
  if (headerRow !== null && settings.writeHeader) {
    sheet.getRange(headerRow, outputColumn, 1, outputCount).setValues([outputHeaders(settings.extraFields)]);
  }
  const multiColumn = selection.getNumColumns() > 1;
  const now = Date.now();
  const job: Job = {
    id: `${now.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    urlColumn,
    firstRow,
    lastRow: bottom,
    headerRow,
    outputColumn,
    extraFields: settings.extraFields,
    recheck: settings.recheck,
    cursor: firstRow,
    pass: 1,
    sheetLastRow,
    state: 'running',
    message: multiColumn
      ? `Several columns were selected: using the first one (${sheet.getRange(1, urlColumn).getA1Notation().replace(/\d+$/, '')}).`
      : 'Starting…',
    counts: { ...emptyCounts(), total },
    startedAt: now,
    updatedAt: now,
    leaseUntil: 0,
  };
  updateJob(() => job);
  ensureContinuationTrigger();
  return job;
}

function padRow(row: unknown[], width: number): unknown[] {
  const padded = row.slice(0, width);
  while (padded.length < width) padded.push('');
  return padded;
}

export function continueEnrichment(): Progress {
  const job = loadJob();
  if (job?.state !== 'running') return progressOf(job);
  return processSlice(job.id);
}

export function resumeEnrichment(): Progress {
  const job = updateJob((stored) => {
    if (!stored || (stored.state !== 'paused' && stored.state !== 'stopped')) return stored;
    return { ...stored, state: 'running', message: 'Resuming…', updatedAt: Date.now() };
  });
  if (job?.state !== 'running') return progressOf(job);
  ensureContinuationTrigger();
  return processSlice(job.id);
}

export function pauseEnrichment(): Progress {
  const job = updateJob((stored) =>
    stored && stored.state === 'running'
      ? {
          ...stored,
          state: 'paused',
          message: 'Paused. Resume to continue where it stopped.',
          updatedAt: Date.now(),
        }
      : stored,
  );
  return progressOf(job);
}

export function cancelEnrichment(): Progress {
  const job = updateJob((stored) =>
    stored && ACTIVE_STATES.includes(stored.state)
      ? {
          ...stored,
          state: 'cancelled',
          message: describeOutcomeState('cancelled', stored.counts),
          updatedAt: Date.now(),
        }
      : stored,
  );
  removeContinuationTrigger();
  return progressOf(job);
}

export function getEnrichmentProgress(): Progress {
  const job = loadJob();
  return job ? progressOf(job) : idleProgress();
}

function haltJob(job: Job, error: ServiceError): void {
  job.state = error.effect === 'pause' ? 'paused' : 'stopped';
  if (error.error === 'payment_required') {
    job.message = `${error.message} Rows not yet processed stay empty. Add credits to your account, then Resume.`;
  } else if (error.error === 'unauthorized' || error.error === 'missing_key') {
    job.message = `${error.message} Save a valid key in ${SETTINGS_PATH}, then Resume.`;
  } else job.message = error.message;
}

/**
 * Works on the job for one time budget: per batch one read (the batch's rows to check them, plus the next batch's)
 * and one write of the outputs, never a call per cell.
 */
function processSlice(jobId: string, maxBudgetMs = Number.POSITIVE_INFINITY): Progress {
  const started = Date.now();
  const configured = sliceLimits();
  const limits = { ...configured, budgetMs: Math.min(configured.budgetMs, maxBudgetMs) };
  const deadline = started + limits.budgetMs;
  let leased = false;
  let job = updateJob((stored) => {
    if (!stored || stored.id !== jobId || stored.state !== 'running' || stored.leaseUntil > started)
      return stored;
    leased = true;
    return { ...stored, leaseUntil: deadline + LEASE_GRACE_MS };
  });
  if (!job || !leased) return progressOf(job);
  const cache = new ResultCache();
  try {
    runSlice(job, limits, deadline, cache);
  } catch (error) {
    job.state = 'paused';
    job.message = `Paused after an unexpected error: ${error instanceof Error ? error.message : String(error)}. Resume to retry.`;
  }
  job.leaseUntil = 0;
  job.updatedAt = Date.now();
  const finished = job;
  job =
    updateJob((stored) => {
      if (!stored || stored.id !== finished.id) return stored;
      // A pause or cancel from the sidebar during the slice wins over "running".
      if (finished.state === 'running' && stored.state !== 'running') {
        return { ...finished, state: stored.state, message: stored.message };
      }
      return finished;
    }) ?? finished;
  if (job.state === 'done' || job.state === 'cancelled') removeContinuationTrigger();
  return progressOf(job);
}

function runSlice(job: Job, limits: SliceLimits, deadline: number, cache: ResultCache): void {
  const apiKey = readApiKey();
  if (!apiKey) {
    haltJob(job, {
      kind: 'error',
      error: 'missing_key',
      message: 'No API key is saved for you.',
      retryable: false,
      effect: 'stop',
    });
    return;
  }
  const config = readScriptConfig();
  if (!config.endpoint.ok) {
    job.state = 'stopped';
    job.message = config.endpoint.message;
    return;
  }
  const ss = activeSpreadsheet();
  const sheet = ss && findSheet(ss, job.sheetId);
  if (!sheet) {
    job.state = 'stopped';
    job.message = ss
      ? `The sheet "${job.sheetName}" no longer exists.`
      : 'Waiting for the spreadsheet to be open.';
    return;
  }
  // Rows inserted or deleted inside the job range move its end by as many rows.
  const sheetLastRow = sheet.getLastRow();
  job.lastRow = Math.max(job.firstRow - 1, job.lastRow + (sheetLastRow - job.sheetLastRow));
  job.sheetLastRow = sheetLastRow;

  const width = 1 + outputHeaders(job.extraFields).length;
  const lookupCache = cache.snapshot();
  const known = new Map<string, LookupResult>();
  const cachedResult = (key: string): LookupResult | undefined => {
    const hit = known.get(key);
    if (hit) return hit;
    const cached = lookupCache(key);
    // A re-check ignores results stored before this run started.
    if (cached && (!job.recheck || cached.savedAt * 1000 >= job.startedAt - 1000)) return cached.result;
    return undefined;
  };
  const read = (from: number, count: number): unknown[][] =>
    count <= 0 ? [] : sheet.getRange(from, job.urlColumn, count, width).getValues();
  let block: unknown[][] | null = null;
  let blockStart = 0;

  // At least one batch per slice, so a slice always makes progress.
  for (let batch = 0; job.state === 'running' && (batch === 0 || Date.now() < deadline); batch++) {
    if (job.cursor > job.lastRow) {
      if (!startNextPass(job, sheet, width)) break;
      block = null;
      continue;
    }
    const windowEnd = Math.min(job.cursor + limits.batchSize - 1, job.lastRow);
    const windowSize = windowEnd - job.cursor + 1;
    if (!block || blockStart !== job.cursor || block.length < windowSize) {
      block = read(job.cursor, windowSize);
      blockStart = job.cursor;
    }
    const plans = planRows(block.slice(0, windowSize), job.recheck && job.pass === 1);

    const toSend: string[] = [];
    const keyOfSent = new Map<string, string>();
    for (const plan of plans) {
      if (plan.action !== 'lookup' || cachedResult(plan.key) || keyOfSent.has(plan.sent)) continue;
      if (toSend.some((sent) => keyOfSent.get(sent) === plan.key)) continue;
      toSend.push(plan.sent);
      keyOfSent.set(plan.sent, plan.key);
    }
    const report = toSend.length
      ? lookupMany(toSend, {
          apiKey,
          endpoint: config.endpoint.endpoint,
          concurrency: limits.batchSize,
          deadline,
          retry: DEFAULT_RETRY,
        })
      : { outcomes: new Map<string, LookupOutcome>(), halt: undefined, requestsSent: 0 };
    const fresh: Array<[string, LookupResult]> = [];
    const errors = new Map<string, ServiceError>();
    for (const [sent, outcome] of report.outcomes) {
      const key = keyOfSent.get(sent)!;
      if (outcome.kind === 'error') errors.set(key, outcome);
      else {
        known.set(key, outcome);
        fresh.push([key, outcome]);
        job.counts.creditsUsed++;
      }
    }

    // Check the rows again right before writing: the user may have sorted or inserted rows meanwhile.
    // The same read brings the next batch's rows.
    const nextEnd = Math.min(windowEnd + limits.batchSize, job.lastRow);
    const check = read(job.cursor, nextEnd - job.cursor + 1);
    const outputs: unknown[][] = check.slice(0, windowSize).map((row) => row.slice(1));
    let firstChanged = -1;
    let lastChanged = -1;
    let stopAt = windowSize;
    for (let index = 0; index < windowSize; index++) {
      const plan = plans[index];
      const outcome = rowOutcome(plan, cachedResult, errors);
      if (plan.action === 'keep') {
        if (job.pass === 1) {
          job.counts.skipped++;
          job.counts.processed++;
        }
        continue;
      }
      if (plan.action === 'blank') continue;
      if (!outcome || (outcome.kind === 'error' && outcome.effect !== 'continue')) {
        // Not sent in time, or halted (401/402/quota): this row and the ones after it wait for the next slice.
        stopAt = index;
        break;
      }
      if (!sameInput(check[index]?.[0], plan) || !stillPending(check[index], plans[index], job)) continue;
      outputs[index] = enrichmentRow(outcome, job.extraFields);
      countOutcome(job.counts, outcome);
      if (firstChanged < 0) firstChanged = index;
      lastChanged = index;
    }
    if (firstChanged >= 0) {
      sheet
        .getRange(job.cursor + firstChanged, job.outputColumn, lastChanged - firstChanged + 1, width - 1)
        .setValues(outputs.slice(firstChanged, lastChanged + 1) as unknown[][]);
    }
    const advancedTo = job.cursor + stopAt;
    block = check.slice(stopAt);
    blockStart = advancedTo;
    job.cursor = advancedTo;
    if (report.halt) haltJob(job, report.halt);
    else if (job.state === 'running')
      job.message = `Working: ${job.counts.processed} of ${job.counts.total} rows.`;
    saveProgress(job, cache.encode(fresh));
    cache.evictIfFull();
    if (stopAt < windowSize && !report.halt) break; // out of time for this slice
  }
}

function rowOutcome(
  plan: RowPlan,
  cachedResult: (key: string) => LookupResult | undefined,
  errors: Map<string, ServiceError>,
): RowOutcome | undefined {
  if (plan.action === 'invalid') return { kind: 'invalid', reason: plan.reason };
  if (plan.action !== 'lookup') return undefined;
  return cachedResult(plan.key) ?? errors.get(plan.key);
}

/** The row was pending when planned; it must still be (nobody wrote a result there meanwhile). */
function stillPending(row: unknown[] | undefined, plan: RowPlan, job: Job): boolean {
  if (!row) return false;
  if (job.recheck && job.pass === 1) return true;
  const status = String(row[2] ?? '');
  return plan.action !== 'keep' && (status === '' || status === STATUS.error || status === STATUS.invalidUrl);
}

/** Writes the job's progress and the new results in one property write; a pause or cancel meanwhile wins. */
function saveProgress(job: Job, cachedValues: Record<string, string>): void {
  updateJob((stored) => {
    if (stored && stored.id === job.id && stored.state !== 'running' && job.state === 'running') {
      job.state = stored.state;
      job.message = stored.message;
    }
    job.updatedAt = Date.now();
    return job;
  }, cachedValues);
}

/**
 * After the last row: one read of the whole range finds rows still without a result (they moved during the run).
 * Returns false when the job is finished.
 */
function startNextPass(job: Job, sheet: GoogleAppsScript.Spreadsheet.Sheet, width: number): boolean {
  const rows = job.lastRow - job.firstRow + 1;
  const values =
    rows > 0 ? sheet.getRange(job.firstRow, job.urlColumn, rows, Math.min(width, 3)).getValues() : [];
  const pendingIndex = values.findIndex(
    (row) => parseProfileInput(row[0]).kind !== 'empty' && String(row[2] ?? '') === '',
  );
  if (pendingIndex < 0 || job.pass >= MAX_PASSES) {
    finishJob(job, values, pendingIndex >= 0);
    return false;
  }
  job.pass++;
  job.cursor = job.firstRow + pendingIndex;
  return true;
}

/** Totals come from the sheet itself, so rows that moved during the run are counted once. */
function finishJob(job: Job, values: unknown[][], leftPending: boolean): void {
  let total = 0;
  let withResult = 0;
  for (const row of values) {
    if (parseProfileInput(row[0]).kind === 'empty') continue;
    total++;
    if (String(row[2] ?? '') !== '') withResult++;
  }
  job.counts = { ...job.counts, total, processed: withResult };
  job.state = 'done';
  job.message = describeOutcomeState('done', job.counts);
  if (leftPending)
    job.message += ' Some rows kept moving during the run and have no result: run it again for them.';
}
