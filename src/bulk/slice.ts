/**
 * One slice of the bulk run: the lease on the job, the checks before any work, the windows for one time budget,
 * and saving the job so that a pause or cancel from the sidebar wins and another job or slice is left alone.
 */
import { systemClock } from '../adapters/clock';
import { DocumentBusyError } from '../adapters/lock';
import { servicePorts } from '../adapters/ports';
import { readScriptConfig } from '../adapters/scriptConfig';
import { readApiKey } from '../adapters/settings';
import { outputHeaders } from '../core/cells';
import { DEFAULT_STEP_BUDGET_MS, LEASE_MS, MAX_BATCH_SIZE } from '../core/limits';
import { isPropertiesQuotaError, PROPERTIES_QUOTA_MESSAGE } from '../core/quota';
import { withoutStop } from '../core/text';
import type { NetworkHosts } from '../core/url';
import { haltOf } from '../lookup/answers';
import { serviceError } from '../lookup/contract';
import { keepPendingResults } from '../store/resultStore';
import type { Job, Progress } from './job';
import { idleProgress, mayDrive, progressOf } from './job';
import { type HaltReason, type JobEvent, transition } from './jobMachine';
import { loadJob, updateJob } from './jobStore';
import { COLUMNS_MOVED, noteEnds, relocate } from './relocate';
import { runCharges } from './runCharges';
import { runWindows, type Slice } from './window';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/** The spreadsheet of this execution (a time-driven trigger left by an earlier version has none). */
function activeSpreadsheet(): Spreadsheet | null {
  try {
    return SpreadsheetApp.getActiveSpreadsheet();
  } catch {
    return null;
  }
}

/**
 * Takes the job's lease when it is running, this execution's user started it, and no other slice holds it; the
 * leased job, or null. Nobody else's execution ever works on the run: it would spend their key's credits.
 */
function lease(
  jobId: string,
  started: number,
  runnerId: string | null,
): { job: Job | null; leased: boolean } {
  let leased = false;
  const leaseToken = `${started.toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  try {
    const job = updateJob((stored) => {
      if (!stored || stored.id !== jobId || stored.state !== 'running' || stored.leaseUntil > started)
        return stored;
      if (!mayDrive(stored, runnerId)) return stored;
      leased = true;
      return { ...stored, leaseUntil: started + LEASE_MS, leaseToken };
    });
    return { job, leased };
  } catch (error) {
    // The lock is busy (or LockService refused it): no lease, the next slice tries again.
    if (error instanceof DocumentBusyError) return { job: loadJob(), leased: false };
    throw error;
  }
}

/**
 * Works on the job for one time budget: per window one read (the window's rows to check them, plus the next
 * window's) and one setValues per run of adjacent rows written now, never a call per cell.
 */
export function processSlice(
  jobId: string,
  runnerId: string | null,
  maxBudgetMs = Number.POSITIVE_INFINITY,
): Progress {
  try {
    return processLeasedSlice(jobId, runnerId, maxBudgetMs);
  } catch (error) {
    if (isPropertiesQuotaError(error)) return quotaPaused();
    throw error;
  }
}

/** The run cannot read or save its state today (Apps Script's properties quota): it waits, nothing is lost. */
export function quotaPaused(): Progress {
  return {
    ...idleProgress(
      `Paused: ${PROPERTIES_QUOTA_MESSAGE} Results already written stay; the run goes on when you Resume after the limit resets.`,
    ),
    state: 'paused',
    reason: 'quota',
  };
}

function processLeasedSlice(jobId: string, runnerId: string | null, maxBudgetMs: number): Progress {
  const started = Date.now();
  const { job, leased } = lease(jobId, started, runnerId);
  if (!job || !leased) return progressOf(job, { runnerId, now: started });
  const config = readScriptConfig();
  const budgetMs = Math.min(config.stepBudgetMs ?? DEFAULT_STEP_BUDGET_MS, maxBudgetMs);
  // ENRICH_BATCH_SIZE fixes the rows per window and requests per fetchAll; otherwise they adapt (src/lookup/pace.ts).
  const batchSize = config.batchSize && Math.min(MAX_BATCH_SIZE, config.batchSize);
  const slice = { job, leaseLost: false, deadline: started + budgetMs, batchSize };
  try {
    runSlice(slice);
  } catch (error) {
    // The lock busy or refused: this slice ends here, what it paid is stored; the next slice goes on.
    if (!(error instanceof DocumentBusyError)) haltOn(slice, error);
  }
  slice.job.leaseUntil = 0;
  const stored = releaseLease(slice);
  return progressOf(stored, { runnerId, now: Date.now() });
}

/**
 * Saves the slice's job and frees its lease. The lock busy or refused, it tries again after 1, 2, 4 s: a lease
 * left behind would keep the next slices waiting for LEASE_MS.
 */
function releaseLease(slice: { job: Job; leaseLost: boolean }): Job | null {
  for (let attempt = 0; ; attempt++) {
    try {
      return updateJob((current) => merge(current, slice));
    } catch (error) {
      if (!(error instanceof DocumentBusyError) || attempt >= 3) throw error;
      systemClock.sleep(1000 * 2 ** attempt);
    }
  }
}

function haltOn(slice: { job: Job }, error: unknown): void {
  if (isPropertiesQuotaError(error)) {
    apply(slice, { type: 'halt', reason: 'quota', message: quotaPaused().message });
  } else {
    const message = `Paused after an unexpected error: ${withoutStop(error instanceof Error ? error.message : String(error))}. Resume to retry.`;
    apply(slice, { type: 'halt', reason: 'error', message });
  }
}

interface SliceStart {
  job: Job;
  leaseLost: boolean;
  deadline: number;
  batchSize: number | undefined;
}

export function apply(slice: { job: Job }, event: JobEvent): void {
  slice.job = transition(slice.job, event, systemClock.now());
}

type Ready = {
  sheet: GoogleAppsScript.Spreadsheet.Sheet;
  apiKey: string;
  endpoint: string;
  hosts: NetworkHosts;
  width: number;
};

/** The checks before any work: the key, the configuration, the sheet, moved columns. A halt when one fails. */
function checkBeforeWork(job: Job): Ready | { halt: { reason: HaltReason; message: string } } {
  const apiKey = readApiKey();
  if (!apiKey)
    return { halt: haltOf(serviceError('missing_key', 'No API key is saved for you.', { effect: 'stop' })) };
  const config = readScriptConfig();
  if (!config.endpoint.ok) return { halt: { reason: 'configuration', message: config.endpoint.message } };
  const ss = activeSpreadsheet();
  const sheet = ss?.getSheets().find((candidate) => candidate.getSheetId() === job.sheetId);
  if (!sheet) {
    return ss
      ? { halt: { reason: 'sheet_missing', message: `The sheet "${job.sheetName}" no longer exists.` } }
      : { halt: { reason: 'no_spreadsheet', message: 'Waiting for the spreadsheet to be open.' } };
  }
  const width = 1 + outputHeaders(job.extraFields).length;
  if (!relocate(job, sheet, width)) return { halt: { reason: 'sheet_changed', message: COLUMNS_MOVED } };
  return { sheet, apiKey, endpoint: config.endpoint.endpoint, hosts: config.networkHosts, width };
}

function runSlice(start: SliceStart): void {
  const ready = checkBeforeWork(start.job);
  if ('halt' in ready) {
    apply(start, { type: 'halt', ...ready.halt });
    return;
  }
  // A writing execution: what formulas paid for moves into the results sheet first.
  keepPendingResults();
  const ports = servicePorts(true, runCharges(start.job));
  const slice: Slice = Object.assign(start, ready, {
    ports,
    known: new Map(),
    storeView: ports.store.snapshot(),
    block: null,
    blockStart: 0,
  });
  runWindows(slice);
  if (slice.job.state !== 'done') noteEnds(slice.job, slice.sheet);
}

/**
 * Merges a slice's job into the stored one: a different job is never overwritten, a cancel always wins, and a
 * pause from the sidebar wins over "running". Returns what to store.
 */
function merge(stored: Job | null, slice: { job: Job; leaseLost: boolean }): Job | null {
  if (!stored || stored.id !== slice.job.id) {
    // Cancelled and replaced by another run meanwhile: this slice stops and leaves the new job alone.
    apply(slice, { type: 'replaced' });
    return stored;
  }
  if (stored.leaseToken !== slice.job.leaseToken) {
    // Another slice holds the job now: this one stops and writes nothing (its results are in the result store).
    slice.leaseLost = true;
    return stored;
  }
  const now = systemClock.now();
  slice.job = { ...transition(slice.job, { type: 'sync', stored }, now), updatedAt: now };
  return slice.job;
}

/** Writes the job's progress; a pause or cancel meanwhile wins, another job or slice is left alone. */
export function saveProgress(slice: { job: Job; leaseLost: boolean }): void {
  updateJob((stored) => merge(stored, slice));
}

/** Before writing to the sheet: the lease is still this slice's (otherwise it stops). */
export function ownsLease(slice: { job: Job; leaseLost: boolean }): boolean {
  const stored = loadJob();
  if (stored?.id === slice.job.id && stored.leaseToken !== slice.job.leaseToken) slice.leaseLost = true;
  return !slice.leaseLost;
}

/** This slice may go on: the job is running and its lease still this slice's. */
export function working(slice: { job: Job; leaseLost: boolean }): boolean {
  return slice.job.state === 'running' && !slice.leaseLost;
}
