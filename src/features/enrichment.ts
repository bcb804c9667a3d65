/** Bulk enrichment of a selected column: a job in document properties, processed in time-boxed slices. */

import { BULK_CLAIM, claimKey, putClaims, readClaims, releaseClaims } from '../adapters/claims';
import { type LookupReport, lookupMany } from '../adapters/http';
import { deleteJob, hasDocument, loadJob, saveJob, updateJob, withJobLock } from '../adapters/jobStore';
import { ResultCache, readApiKey, readScriptConfig, readSettings } from '../adapters/store';
import {
  ensureContinuationTrigger,
  removeContinuationTrigger,
  SETTINGS_PATH,
  showSidebar,
} from '../adapters/ui';
import {
  enrichmentRow,
  outputHeaders,
  type RowOutcome,
  reinterpretedBySheets,
  textColumnOffsets,
} from '../core/cells';
import { stableHash } from '../core/hash';
import {
  canReuseOutputColumns,
  countOutcome,
  describeOutcomeState,
  emptyCounts,
  idleProgress,
  isBlank,
  isHeaderText,
  isOwnStatus,
  isPendingStatus,
  type Job,
  MAX_PASSES,
  type Progress,
  planRows,
  progressOf,
  type RowPlan,
  sameInput,
  statusKind,
} from '../core/job';
import type { LookupOutcome, LookupResult, ServiceError } from '../core/lookup';
import { DEFAULT_RETRY } from '../core/retry';
import { type NetworkHosts, parseProfileInput } from '../core/url';

// Apps Script stops an execution after 6 minutes (https://developers.google.com/apps-script/guides/services/quotas).
// A slice works for at most this long, leaving a wide margin for the last batch, the write and the save.
export const DEFAULT_STEP_BUDGET_MS = 45_000;
export const DEFAULT_BATCH_SIZE = 20;
const MAX_BATCH_SIZE = 100;
/**
 * A slice's lease lasts as long as an execution may (6 minutes): its last batch always goes out, and UrlFetchApp
 * gives up on a request only after about a minute, so a shorter lease could end while the slice still works.
 */
const LEASE_MS = 6 * 60_000;
/** The bulk run's claims on URLs it sends outlive the execution sending them (same reason). */
const BULK_CLAIM_SECONDS = LEASE_MS / 1000;
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

/** The spreadsheet of this execution; in a time-driven trigger there may be none (README, "Using it"). */
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
  // Check and create under one lock: two quick clicks must not create two jobs (nor insert columns twice).
  const outcome = withJobLock((): { existing: Job } | { created: Job } => {
    const stored = loadJob();
    if (stored && ACTIVE_STATES.includes(stored.state)) return { existing: stored };
    const selection = ss.getActiveRange();
    if (!selection)
      throw new Error('Select the cells with profile URLs (one column), then choose Find e-mails again.');
    const { job: created, prepareSheet } = createJob(selection);
    // The job's state is saved first: if it cannot be, the sheet is left untouched.
    saveJob(created);
    try {
      prepareSheet();
    } catch (error) {
      deleteJob();
      throw error;
    }
    return { created };
  });
  showSidebar('progress');
  if ('existing' in outcome) {
    return {
      ...progressOf(outcome.existing),
      message: `A run is already under way in this spreadsheet (${outcome.existing.state}). Resume or cancel it before starting another.`,
    };
  }
  ensureContinuationTrigger();
  // A short first slice: the sidebar, open now, drives the rest.
  return processSlice(outcome.created.id, FIRST_SLICE_MAX_MS);
}

function cellText(value: unknown): string {
  return value instanceof Date ? String(value.getTime()) : String(value ?? '');
}

/** A cell's text in the job's state: a hash, so the state stays small whatever the cell holds. */
function cellMark(value: unknown): string {
  return stableHash(cellText(value));
}

function createJob(selection: GoogleAppsScript.Spreadsheet.Range): { job: Job; prepareSheet: () => void } {
  const settings = readSettings();
  const sheet = selection.getSheet();
  const urlColumn = selection.getColumn();
  const titles = outputHeaders(settings.extraFields);
  const outputCount = titles.length;
  const top = selection.getRow();
  // A whole-column selection (A:A) ends at the sheet's last row with data, not at row 1,000,000.
  const bottom = Math.min(selection.getLastRow(), sheet.getLastRow());
  if (bottom < top) throw new Error('The selected cells are empty: select the profile URLs, then try again.');
  const readTop = top > 1 ? top - 1 : top;
  const spareColumns = sheet.getMaxColumns() - urlColumn;
  const readWidth = 1 + Math.max(0, Math.min(outputCount, spareColumns));
  const block = sheet.getRange(readTop, urlColumn, bottom - readTop + 1, readWidth).getValues();
  const firstSelected = block[top - readTop][0];
  let headerRow: number | null = null;
  if (isHeaderText(firstSelected)) headerRow = top;
  else if (top > 1 && isHeaderText(block[0][0])) headerRow = top - 1;
  const afterHeader = headerRow === top ? top + 1 : top;
  // The job's rows run from the first to the last non-empty URL cell: its ends identify it later.
  const filled = (row: number) => parseProfileInput(block[row - readTop][0]).kind !== 'empty';
  let firstRow = afterHeader;
  while (firstRow <= bottom && !filled(firstRow)) firstRow++;
  let lastRow = bottom;
  while (lastRow >= firstRow && !filled(lastRow)) lastRow--;
  if (firstRow > lastRow) {
    throw new Error(
      headerRow === null
        ? 'The selected cells are empty: select the profile URLs, then try again.'
        : 'There are no profile URLs under the header: select the URLs, then try again.',
    );
  }
  const dataRows = block.slice(firstRow - readTop, lastRow - readTop + 1);
  const headerIndex = headerRow === null ? null : 0;
  const ownedRows = [...(headerRow === null ? [] : [block[headerRow - readTop]]), ...dataRows].map((row) =>
    padRow(row.slice(1), outputCount),
  );
  const reusable =
    readWidth === 1 + outputCount && canReuseOutputColumns(ownedRows, headerIndex, settings.extraFields);
  const outputColumn = urlColumn + 1;
  const rows = lastRow - firstRow + 1;
  const prepareSheet = () => {
    // Never overwrite the user's data: insert fresh columns right of the URL column instead.
    if (!reusable) sheet.insertColumnsAfter(urlColumn, outputCount);
    // Service values are written as plain text so an address such as =HYPERLINK(...) can never become a formula.
    // The Catch-all column keeps real booleans.
    const textColumns = textColumnOffsets(outputCount);
    sheet
      .getRangeList(
        textColumns.map((offset) => sheet.getRange(firstRow, outputColumn + offset, rows, 1).getA1Notation()),
      )
      .setNumberFormat('@');
    if (headerRow !== null && settings.writeHeader) {
      sheet.getRange(headerRow, outputColumn, 1, outputCount).setValues([titles]);
    }
  };
  let headerTexts: string[] | null = null;
  if (headerRow !== null) {
    const existing = reusable
      ? padRow(block[headerRow - readTop].slice(1), outputCount)
      : titles.map(() => '');
    const written = settings.writeHeader ? titles : existing;
    headerTexts = [block[headerRow - readTop][0], ...written].map(cellMark);
  }

  // Counts describe the sheet: rows with a final result are skipped (and counted by kind) unless re-checking.
  const counts = emptyCounts();
  const keys = new Set<string>();
  let hasDuplicates = false;
  const hosts = readScriptConfig().networkHosts;
  for (const row of dataRows) {
    const input = parseProfileInput(row[0], hosts);
    if (input.kind === 'empty') continue;
    counts.total++;
    if (input.kind === 'url') {
      if (keys.has(input.key)) hasDuplicates = true;
      keys.add(input.key);
    }
    const status = reusable ? cellText(row[2]) : '';
    if (settings.recheck || isPendingStatus(status, true)) continue;
    counts.skipped++;
    counts.processed++;
    const kind = statusKind(status);
    if (kind !== 'none') counts[kind]++;
  }

  const multiColumn = selection.getNumColumns() > 1;
  const now = Date.now();
  const job: Job = {
    id: `${now.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    urlColumn,
    firstRow,
    lastRow,
    headerRow,
    outputColumn,
    extraFields: settings.extraFields,
    recheck: settings.recheck,
    cursor: firstRow,
    pass: 1,
    maxRows: sheet.getMaxRows(),
    maxColumns: sheet.getMaxColumns() + (reusable ? 0 : outputCount),
    topValue: cellMark(dataRows[0][0]),
    bottomValue: cellMark(dataRows[dataRows.length - 1][0]),
    headerTexts,
    hasDuplicates,
    state: 'running',
    message: multiColumn
      ? `Several columns were selected: using the first one (${sheet.getRange(1, urlColumn).getA1Notation().replace(/\d+$/, '')}).`
      : 'Starting…',
    counts,
    startedAt: now,
    updatedAt: now,
    leaseUntil: 0,
  };
  return { job, prepareSheet };
}

function padRow(row: unknown[], width: number): unknown[] {
  const padded = row.slice(0, width);
  while (padded.length < width) padded.push('');
  return padded;
}

export function continueEnrichment(): Progress {
  // The hourly trigger may run without the spreadsheet: nothing to continue from here, and nothing to break.
  if (!hasDocument())
    return idleProgress('No spreadsheet in this run: the run continues when its sidebar is open.');
  const job = loadJob();
  if (job?.state !== 'running') return progressOf(job);
  return processSlice(job.id);
}

export function resumeEnrichment(): Progress {
  const job = updateJob((stored) => {
    if (!stored || (stored.state !== 'paused' && stored.state !== 'stopped')) return stored;
    // The lease stays: a slice paused while it waits on the service may still hold it, and then carries on.
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
  } else if (error.error === 'quota') {
    job.message = `${error.message} Apps Script's daily limit of web requests is used up: Resume tomorrow.`;
  } else job.message = error.message;
}

/** Jobs of slices that lost their lease: they stop at once. */
const outleased = new WeakSet<Job>();

/**
 * Merges a slice's job into the stored one: a different job is never overwritten, a cancel always wins,
 * and a pause from the sidebar wins over "running".
 */
function merge(stored: Job | null, job: Job): Job | null {
  if (!stored || stored.id !== job.id) {
    // Cancelled and replaced by another run meanwhile: this slice stops and leaves the new job alone.
    job.state = 'cancelled';
    return stored;
  }
  if (stored.leaseToken !== job.leaseToken) {
    // Another slice holds the job now: this one stops and writes nothing (its results are in the result cache).
    outleased.add(job);
    return stored;
  }
  if (stored.state === 'cancelled') {
    job.state = 'cancelled';
    job.message = stored.message;
  } else if (job.state === 'running' && stored.state !== 'running') {
    job.state = stored.state;
    job.message = stored.message;
  }
  job.updatedAt = Date.now();
  return job;
}

/**
 * Works on the job for one time budget: per batch one read (the batch's rows to check them, plus the next batch's)
 * and one setValues per run of adjacent rows written now (plus one format call when a value needs plain text),
 * never a call per cell.
 */
function processSlice(jobId: string, maxBudgetMs = Number.POSITIVE_INFINITY): Progress {
  const started = Date.now();
  const configured = sliceLimits();
  const limits = { ...configured, budgetMs: Math.min(configured.budgetMs, maxBudgetMs) };
  const deadline = started + limits.budgetMs;
  let leased = false;
  const leaseToken = `${started.toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  let job = updateJob((stored) => {
    if (!stored || stored.id !== jobId || stored.state !== 'running' || stored.leaseUntil > started)
      return stored;
    leased = true;
    return { ...stored, leaseUntil: started + LEASE_MS, leaseToken };
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
  const finished = job;
  const stored = updateJob((current) => merge(current, finished));
  if (stored?.id !== finished.id || outleased.has(finished)) return progressOf(stored);
  job = stored;
  if (job.state === 'done' || job.state === 'cancelled') removeContinuationTrigger();
  return progressOf(job);
}

/** Writes the job's progress; a pause or cancel meanwhile wins, another job or slice is left alone. */
function saveProgress(job: Job): void {
  updateJob((stored) => merge(stored, job));
}

/** Before writing to the sheet: the lease is still this slice's (otherwise it stops). */
function ownsLease(job: Job): boolean {
  const stored = loadJob();
  if (stored?.id === job.id && stored.leaseToken !== job.leaseToken) outleased.add(job);
  return !outleased.has(job);
}

/**
 * Under the document lock: re-reads the result store (formulas may have paid for some of these URLs since the
 * slice began; `refresh` takes the new view) and claims the keys neither known nor claimed by a formula, for as
 * long as an execution may last. Keys claimed by others wait for a later slice. Returns the keys claimed.
 */
function claimUrls(keys: string[], refresh: () => void, known: (key: string) => boolean): string[] {
  if (keys.length === 0) return [];
  const lock = LockService.getDocumentLock();
  if (!lock.tryLock(10_000)) return [];
  try {
    refresh();
    const unknown = keys.filter((key) => !known(key));
    const claims = CacheService.getDocumentCache();
    if (!claims) return unknown;
    const markers = readClaims(claims, unknown);
    const free = unknown.filter((key) => !markers[claimKey(key)]);
    putClaims(claims, free, BULK_CLAIM, BULK_CLAIM_SECONDS);
    return free;
  } finally {
    lock.releaseLock();
  }
}

/** This slice may go on: the job is running and its lease still this slice's. */
function working(job: Job): boolean {
  return job.state === 'running' && !outleased.has(job);
}

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * Rows or columns inserted or deleted since the last slice move the job. The sheet's size tells that something
 * moved; the URL cells at the job's ends (and the header) tell where. Returns a message when the job can no
 * longer be sure where its cells are: then it must not write anything.
 */
function relocate(job: Job, sheet: Sheet, width: number): string | null {
  const maxColumns = sheet.getMaxColumns();
  const maxRows = sheet.getMaxRows();
  if (maxColumns !== job.maxColumns) {
    const moved = maxColumns - job.maxColumns;
    const header = job.headerTexts;
    const matches = (shift: number) => {
      if (!header || job.headerRow === null || job.urlColumn + shift < 1) return false;
      if (job.urlColumn + shift + width - 1 > maxColumns) return false;
      const row = sheet.getRange(job.headerRow, job.urlColumn + shift, 1, width).getValues()[0];
      return row.every((value, index) => cellMark(value) === header[index]);
    };
    const blank = cellMark('');
    const titled = header?.slice(1).every((mark) => mark !== blank) ?? false;
    const shift = !titled ? null : matches(0) ? 0 : matches(moved) ? moved : null;
    if (shift === null) {
      return 'Columns were inserted or deleted in this sheet during the run, so the add-on can no longer tell where the URLs and its result columns are. Nothing more was written. Start the run again on the URL column: rows with a result are skipped.';
    }
    job.urlColumn += shift;
    job.outputColumn += shift;
    job.maxColumns = maxColumns;
  }
  if (maxRows !== job.maxRows) {
    const moved = maxRows - job.maxRows;
    const from = Math.max(1, Math.min(job.firstRow, job.firstRow + moved));
    const to = Math.min(maxRows, Math.max(job.lastRow, job.lastRow + moved));
    const column = to >= from ? sheet.getRange(from, job.urlColumn, to - from + 1, 1).getValues() : [];
    const at = (row: number) => (row >= from && row <= to ? cellMark(column[row - from][0]) : undefined);
    const topMoved = at(job.firstRow + moved) === job.topValue;
    const topStayed = at(job.firstRow) === job.topValue;
    const bottomMoved = at(job.lastRow + moved) === job.bottomValue;
    const bottomStayed = at(job.lastRow) === job.bottomValue;
    if (topMoved && !topStayed) {
      // Rows inserted or deleted above the job: everything moved.
      job.firstRow += moved;
      job.lastRow += moved;
      job.cursor += moved;
      if (job.headerRow !== null) job.headerRow += moved;
    } else if (bottomMoved || !bottomStayed) {
      // Inside the job's rows (or the ends were edited too, e.g. by a sort in the same pause: then rows are
      // rather kept than skipped). The final pass re-reads the whole range for rows the cursor passed by.
      job.lastRow = Math.max(job.firstRow - 1, job.lastRow + moved);
      job.cursor = Math.min(job.cursor, job.lastRow + 1);
    }
    // Otherwise the change was below the job: nothing moved.
    job.maxRows = maxRows;
  }
  return null;
}

/** Notes the URL cells at the job's ends as the slice leaves them (a sort meanwhile changes them). */
function noteEnds(job: Job, sheet: Sheet): void {
  if (job.lastRow < job.firstRow) return;
  job.topValue = cellMark(sheet.getRange(job.firstRow, job.urlColumn).getValue());
  job.bottomValue = cellMark(sheet.getRange(job.lastRow, job.urlColumn).getValue());
}

/** Results written in the job's rows, by normalised URL: a duplicate gets the same result without a request. */
function writtenResults(job: Job, sheet: Sheet, width: number, hosts: NetworkHosts): Map<string, unknown[]> {
  const results = new Map<string, unknown[]>();
  const rows = job.lastRow - job.firstRow + 1;
  if (rows <= 0) return results;
  const values = sheet.getRange(job.firstRow, job.urlColumn, rows, width).getValues();
  values.forEach((row) => {
    const input = parseProfileInput(row[0], hosts);
    const status = cellText(row[2]);
    if (input.kind !== 'url' || results.has(input.key)) return;
    if (!isOwnStatus(status, row[1]) || isPendingStatus(status, true)) return;
    results.set(input.key, row.slice(1));
  });
  return results;
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
  const width = 1 + outputHeaders(job.extraFields).length;
  const lost = relocate(job, sheet, width);
  if (lost) {
    job.state = 'cancelled';
    job.message = lost;
    return;
  }

  let lookupCache = cache.snapshot();
  const known = new Map<string, LookupResult>();
  const cachedResult = (key: string): LookupResult | undefined => {
    const hit = known.get(key);
    if (hit) return hit;
    const cached = lookupCache(key);
    // A re-check ignores results stored before this run started.
    if (cached && (!job.recheck || cached.savedAt >= job.startedAt)) return cached.result;
    return undefined;
  };
  // Read at most once per slice, when a duplicate's result has left the cache (a big job evicts old results).
  let written: Map<string, unknown[]> | undefined;
  const copies = (key: string): unknown[] | undefined => {
    if (job.pass === 1 && (!job.hasDuplicates || job.recheck)) return undefined;
    written = written ?? writtenResults(job, sheet, width, config.networkHosts);
    return written.get(key);
  };
  const read = (from: number, count: number): unknown[][] =>
    count <= 0 ? [] : sheet.getRange(from, job.urlColumn, count, width).getValues();
  let block: unknown[][] | null = null;
  let blockStart = 0;

  // At least one batch per slice, so a slice always makes progress.
  for (let batch = 0; working(job) && (batch === 0 || Date.now() < deadline); batch++) {
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
    const retryFailed = job.pass === 1;
    const plans = planRows(
      block.slice(0, windowSize),
      job.recheck && job.pass === 1,
      retryFailed,
      config.networkHosts,
    );

    // Rows whose output cells hold something of the user's are never written: nothing is spent on them.
    const unwritable = new Set<number>();
    const candidates: RowPlan[] = [];
    plans.forEach((plan, index) => {
      if (plan.action === 'keep' || plan.action === 'blank') return;
      if (!stillPending(block?.[index], job)) unwritable.add(index);
      else candidates.push(plan);
    });
    const wanted: string[] = [];
    const sentOf = new Map<string, string>();
    for (const plan of candidates) {
      if (plan.action !== 'lookup' || sentOf.has(plan.key) || cachedResult(plan.key)) continue;
      sentOf.set(plan.key, plan.sent);
      if (copies(plan.key)) continue;
      wanted.push(plan.key);
    }
    const keys = claimUrls(
      wanted,
      () => {
        lookupCache = cache.snapshot();
      },
      (key) => cachedResult(key) !== undefined,
    );
    const toSend = keys.map((key) => sentOf.get(key)!);
    const keyOfSent = new Map<string, string>(keys.map((key) => [sentOf.get(key)!, key]));
    const errors = new Map<string, ServiceError>();
    const storeResults = (answers: LookupReport): void => {
      const fresh: Array<[string, LookupResult]> = [];
      for (const [sent, outcome] of answers.outcomes) {
        const key = keyOfSent.get(sent)!;
        if (outcome.kind === 'error') errors.set(key, outcome);
        else {
          known.set(key, outcome);
          fresh.push([key, outcome]);
          job.counts.creditsUsed++;
        }
      }
      // Charged results are stored before any sheet call and before the claims are released: if the sheet throws
      // (rows deleted meanwhile), a resume finds them here and pays nothing again.
      cache.putMany(fresh);
    };
    let report: LookupReport = { outcomes: new Map<string, LookupOutcome>(), requestsSent: 0 };
    try {
      if (toSend.length) {
        report = lookupMany(toSend, {
          apiKey,
          endpoint: config.endpoint.endpoint,
          concurrency: limits.batchSize,
          deadline,
          retry: DEFAULT_RETRY,
        });
      }
      storeResults(report);
    } finally {
      releaseClaims(CacheService.getDocumentCache(), keys);
    }

    // Check the rows again right before writing: the user may have sorted or inserted rows meanwhile.
    // The same read brings the next batch's rows.
    const nextEnd = Math.min(windowEnd + limits.batchSize, job.lastRow);
    const check = read(job.cursor, nextEnd - job.cursor + 1);
    const outputs: unknown[][] = check.slice(0, windowSize).map((row) => row.slice(1));
    const changed: number[] = [];
    let stopAt = windowSize;
    let risky = false;
    for (let index = 0; index < windowSize; index++) {
      const plan = plans[index];
      if (plan.action === 'keep' || plan.action === 'blank' || unwritable.has(index)) continue;
      const outcome = rowOutcome(plan, cachedResult, errors);
      const copied = !outcome && plan.action === 'lookup' ? copies(plan.key) : undefined;
      if (!copied && (!outcome || (outcome.kind === 'error' && outcome.effect !== 'continue'))) {
        // Not sent in time, or halted (401/402/quota): this row and the ones after it wait for the next slice.
        stopAt = index;
        break;
      }
      if (!sameInput(check[index]?.[0], plan, config.networkHosts) || !stillPending(check[index], job))
        continue;
      const row = copied ? copied.slice() : enrichmentRow(outcome!, job.extraFields);
      if (copied) {
        job.counts.processed++;
        const kind = statusKind(cellText(copied[1]));
        if (kind !== 'none') job.counts[kind]++;
      } else countOutcome(job.counts, outcome!);
      if (plan.action === 'lookup' && outcome && outcome.kind !== 'error') written?.set(plan.key, row);
      risky = risky || row.some((value, column) => column !== 2 && reinterpretedBySheets(value));
      outputs[index] = row;
      changed.push(index);
    }
    if (changed.length > 0 && !ownsLease(job)) break;
    // Only the rows written now, in runs of adjacent rows: a row in between may hold a formula of the user's.
    const runs: Array<{ from: number; count: number }> = [];
    for (const index of changed) {
      const last = runs[runs.length - 1];
      if (last && last.from + last.count === index) last.count++;
      else runs.push({ from: index, count: 1 });
    }
    if (risky) {
      // Rows inserted during the run lack the plain-text format set at the start.
      const textColumns = textColumnOffsets(width - 1);
      sheet
        .getRangeList(
          runs.flatMap((run) =>
            textColumns.map((offset) =>
              sheet.getRange(job.cursor + run.from, job.outputColumn + offset, run.count, 1).getA1Notation(),
            ),
          ),
        )
        .setNumberFormat('@');
    }
    for (const run of runs) {
      sheet
        .getRange(job.cursor + run.from, job.outputColumn, run.count, width - 1)
        .setValues(outputs.slice(run.from, run.from + run.count));
    }
    const advancedTo = job.cursor + stopAt;
    block = check.slice(stopAt);
    blockStart = advancedTo;
    job.cursor = advancedTo;
    if (report.halt) haltJob(job, report.halt);
    else if (job.state === 'running')
      job.message = `Working: ${Math.min(job.counts.processed, job.counts.total)} of ${job.counts.total} rows.`;
    if (stopAt < windowSize && !report.halt) {
      saveProgress(job);
      break; // out of time for this slice
    }
    if (working(job) && Date.now() < deadline) saveProgress(job);
  }
  if (job.state !== 'done') noteEnds(job, sheet);
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

/**
 * The row was pending when planned; it must still be (nobody wrote a result there meanwhile), and its output
 * cells must be empty or hold this add-on's result: never anything of the user's (e.g. a column moved there).
 */
function stillPending(row: unknown[] | undefined, job: Job): boolean {
  if (!row) return false;
  const status = cellText(row[2]);
  const blank = row.slice(1).every(isBlank);
  if (job.recheck && job.pass === 1) return blank || isOwnStatus(status, row[1]);
  if (status === '') return blank;
  return isPendingStatus(status, job.pass === 1);
}

/**
 * After the last row: one read of the whole range finds rows still without a result (they moved during the run,
 * or were inserted). Returns false when the job is finished.
 */
function startNextPass(job: Job, sheet: Sheet, width: number): boolean {
  const rows = job.lastRow - job.firstRow + 1;
  const values =
    rows > 0 ? sheet.getRange(job.firstRow, job.urlColumn, rows, Math.min(width, 3)).getValues() : [];
  const pendingIndex = values.findIndex(
    (row) => parseProfileInput(row[0]).kind !== 'empty' && cellText(row[2]) === '',
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
  const counts = { ...job.counts, total: 0, processed: 0, found: 0, notFound: 0, failed: 0 };
  for (const row of values) {
    if (parseProfileInput(row[0]).kind === 'empty') continue;
    counts.total++;
    const kind = statusKind(cellText(row[2]));
    if (kind === 'none') continue;
    counts.processed++;
    counts[kind]++;
  }
  job.counts = counts;
  job.state = 'done';
  job.message = describeOutcomeState('done', job.counts);
  if (leftPending)
    job.message +=
      ' Some rows have no result (they moved during the run, or their result cells hold other data): run it again for them.';
}
