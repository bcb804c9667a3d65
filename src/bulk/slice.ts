/**
 * One slice of the bulk run: the lease on the job, the checks before any work, the windows for one time budget and,
 * after the last row, a pass over the whole range for rows still without a result; then the job saved and the
 * lease released.
 */
import type { Progress } from '../api';
import { CELL, outputHeaders } from '../core/cells';
import { stableHash } from '../core/hash';
import {
  BULK_CLAIM_SECONDS,
  DEFAULT_RETRY,
  DEFAULT_SLICES,
  DEFAULT_STEP_BUDGET_MS,
  FIRST_SLICE_MAX_MS,
  FIRST_SLICE_WINDOWS,
  MAX_BATCH_SIZE,
  MAX_PASSES,
  MAX_SLICES,
  MAX_WINDOW_ROWS,
  SLICE_MIN_SHARE,
} from '../core/limits';
import { KEY_PACE_PROPERTY, PACE_PREFIX, PACE_SCOPES, WEB_REQUESTS_PROPERTY } from '../core/propertyNames';
import { isPropertiesQuotaError, PROPERTIES_QUOTA_MESSAGE } from '../core/quota';
import type { SheetPort } from '../core/sheet';
import { withoutStop } from '../core/text';
import type { NetworkHosts } from '../core/url';
import { addWebRequests } from '../core/webRequests';
import { fixedBatchSize, sliceBudget } from '../lookup/budget';
import { BULK_CLAIM } from '../lookup/claims';
import { keyCheckGate } from '../lookup/keyCheck';
import { loadPace, PACE_START, type Pacer } from '../lookup/pace';
import { openPace } from '../lookup/paceStep';
import type { LookupPorts } from '../lookup/ports';
import { serviceError } from '../lookup/result';
import { openLookup } from '../lookup/session';
import { readSlices, type SharedPace } from '../lookup/sharedPace';
import { DocumentBusyError } from '../platform/errors';
import type { Platform } from '../platform/platform';
import { readJobCells } from './columns';
import { finalCounts } from './counting';
import { idleProgress, type Job, progressOf } from './job';
import type { HaltReason } from './jobMachine';
import { type JobLease, slicesWorking, takeLease, windowToLease } from './lease';
import { COLUMNS_MOVED } from './relocate';
import { firstWithoutStatus } from './rowPlan';
import { runCharges } from './runCharges';
import { haltOf } from './runHalt';
import { RunScope } from './runScope';
import { SliceState } from './sliceState';
import { processWindow } from './window';

/**
 * Works on the job for one time budget: per window one read (the window's rows to check them, plus the next
 * window's) and one setValues per run of adjacent rows written now, never a call per cell.
 */
export function processSlice(
  platform: Platform,
  jobId: string,
  runnerId: string | null,
  maxBudgetMs = Number.POSITIVE_INFINITY,
  maxWindows = Number.POSITIVE_INFINITY,
): Progress {
  try {
    const { progress, job } = processLeasedSlice(platform, jobId, runnerId, maxBudgetMs, maxWindows);
    return withSlices(platform, progress, job);
  } catch (error) {
    if (isPropertiesQuotaError(error)) return quotaPaused();
    throw error;
  }
}

/**
 * The answer to Start or Resume of the starter's running run (`job`): `lookups` (at most) that go in one fetchAll at
 * the run's pace now are done in a short slice of the call itself; more are left to the sidebar's slices, opened from
 * this answer as many at once as the pace needs, so the sidebar shows the run going on at once.
 */
export function openingSlice(
  platform: Platform,
  job: Job,
  runnerId: string | null,
  lookups: number,
): Progress {
  if (fitsOneBatch(platform, lookups))
    return processSlice(platform, job.id, runnerId, FIRST_SLICE_MAX_MS, FIRST_SLICE_WINDOWS);
  return withSlices(platform, progressOf(job, { runnerId, now: platform.clock.now() }), job);
}

/** `lookups` go in one fetchAll at the run's pace now (its next batch). */
function fitsOneBatch(platform: Platform, lookups: number): boolean {
  const { batchSize, maxConcurrency } = platform.config();
  if (batchSize) return lookups <= batchSize;
  return lookups <= Math.min(maxConcurrency, runPace(platform).runSize());
}

/**
 * The slices of a running run its starter's sidebar may drive at once: one until the first slice is under way (it
 * joined the run's shared pace), then BULK_SLICES (or DEFAULT_SLICES), fewer when the run's pace leaves less than
 * SLICE_MIN_SHARE requests in flight to each (the service limits it).
 */
export function withSlices(platform: Platform, progress: Progress, job?: Job | null): Progress {
  if (progress.state !== 'running' || progress.readOnly) return progress;
  const now = platform.clock.now();
  // Every row of the pass in a live slice's window: one more slice would find nothing to lease.
  if (job && !windowToLease(job, now)) return { ...progress, slices: Math.max(1, slicesWorking(job, now)) };
  return { ...progress, slices: slicesNow(platform) };
}

function slicesNow(platform: Platform): number {
  const now = platform.clock.now();
  const { slices, state } = readSlices(platform.documentCache(), PACE_SCOPES.bulk, now);
  const runSize = state ? Math.min(state.size, runCap(platform)) : PACE_START;
  // None at work yet: as many as send the run's pace in whole fetchAlls (one at PACE_START, more at a pace known).
  if (slices === 0)
    return Math.max(1, Math.min(mostSlices(platform), Math.ceil(runSize / platform.config().maxConcurrency)));
  return slicesFor(mostSlices(platform), runSize);
}

/** BULK_SLICES, or DEFAULT_SLICES, at most MAX_SLICES. */
function mostSlices(platform: Platform): number {
  return Math.min(MAX_SLICES, platform.config().slices ?? DEFAULT_SLICES);
}

/** The slices a run's pace of `runSize` requests in flight is split into, at most `most`. */
function slicesFor(most: number, runSize: number): number {
  return Math.max(1, Math.min(most, Math.floor(runSize / SLICE_MIN_SHARE)));
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

function processLeasedSlice(
  platform: Platform,
  jobId: string,
  runnerId: string | null,
  maxBudgetMs: number,
  maxWindows: number,
): { progress: Progress; job: Job | null } {
  const started = platform.clock.now();
  const config = platform.config();
  // ENRICH_BATCH_SIZE fixes the rows per window and requests per fetchAll; otherwise they adapt (src/lookup/pace.ts).
  const batchSize = config.batchSize && Math.min(MAX_BATCH_SIZE, config.batchSize);
  const { job, lease } = batchSize
    ? takeLease(platform, jobId, started, runnerId, batchSize)
    : takeLease(platform, jobId, started, runnerId, leaseRows(platform), slicesNow(platform));
  if (!lease) return { progress: progressOf(job, { runnerId, now: started }), job };
  const budgetMs = Math.min(config.stepBudgetMs ?? DEFAULT_STEP_BUDGET_MS, maxBudgetMs);
  try {
    runSlice(platform, lease, started + budgetMs, batchSize, maxWindows);
  } catch (error) {
    // The lock busy or refused: this slice ends here, what it paid is stored; the next slice goes on.
    if (!(error instanceof DocumentBusyError)) haltOn(lease, error);
  }
  const stored = lease.release();
  return { progress: progressOf(stored, { runnerId, now: platform.clock.now() }), job: stored };
}

/** The run's requests in flight across its slices, at most: FETCH_MAX_CONCURRENCY for each slice at once. */
export function runCap(platform: Platform): number {
  return platform.config().maxConcurrency * mostSlices(platform);
}

/** Rows a window lease takes: what two batches at the run's pace send (the pace kept in the document cache). */
function leaseRows(platform: Platform): number {
  const pace = runPace(platform);
  pace.batchCap = platform.config().maxConcurrency;
  return Math.min(MAX_WINDOW_ROWS, 2 * pace.next());
}

/** The run's pace as kept (the document cache, else the document property), across its slices. */
export function runPace(platform: Platform): Pacer {
  const now = platform.clock.now();
  return loadPace(
    platform.documentCache(),
    PACE_SCOPES.bulk,
    PACE_START,
    runCap(platform),
    now,
    keptPace(platform),
  );
}

function haltOn(lease: JobLease, error: unknown): void {
  if (isPropertiesQuotaError(error)) {
    lease.apply({ type: 'halt', reason: 'quota', message: quotaPaused().message });
  } else {
    const message = `Paused after an unexpected error: ${withoutStop(error instanceof Error ? error.message : String(error))}. Resume to retry.`;
    lease.apply({ type: 'halt', reason: 'error', message });
  }
}

type Ready = {
  sheet: SheetPort;
  apiKey: string;
  endpoint: string;
  hosts: NetworkHosts;
  width: number;
};

/** The checks before any work: the key, the configuration, the sheet, moved columns. A halt when one fails. */
function checkBeforeWork(
  platform: Platform,
  lease: JobLease,
): Ready | { halt: { reason: HaltReason; message: string } } | { wait: true } {
  const apiKey = platform.settings.apiKey();
  if (!apiKey)
    return { halt: haltOf(serviceError('missing_key', 'No API key is saved for you.', { effect: 'stop' })) };
  const config = platform.config();
  if (!config.endpoint.ok) return { halt: { reason: 'configuration', message: config.endpoint.message } };
  const { job } = lease;
  const ss = platform.spreadsheetOrNull();
  const sheet = ss?.sheetById(job.sheetId);
  if (!sheet) {
    return ss
      ? { halt: { reason: 'sheet_missing', message: `The sheet "${job.sheetName}" no longer exists.` } }
      : { halt: { reason: 'no_spreadsheet', message: 'Waiting for the spreadsheet to be open.' } };
  }
  const width = 1 + outputHeaders(job.extraFields).length;
  const followed = lease.followSheet(sheet, width);
  if (followed === 'wait') return { wait: true };
  if (!followed) return { halt: { reason: 'sheet_changed', message: COLUMNS_MOVED } };
  return { sheet, apiKey, endpoint: config.endpoint.endpoint, hosts: config.networkHosts, width };
}

function runSlice(
  platform: Platform,
  lease: JobLease,
  deadline: number,
  batchSize: number | undefined,
  maxWindows: number,
): void {
  const ready = checkBeforeWork(platform, lease);
  // The sheet's rows moved while other slices work in the old frame: the next slice follows them.
  if ('wait' in ready) return;
  if ('halt' in ready) {
    lease.apply({ type: 'halt', ...ready.halt });
    return;
  }
  // A writing execution: what formulas paid for moves into the results sheet first.
  platform.keepPendingResults();
  const webRequests = { sent: 0 };
  const lookupPorts = platform.lookupPorts(true, runCharges(lease.job));
  const keyHash = stableHash(ready.apiKey);
  const pace =
    batchSize === undefined
      ? openPace(lookupPorts, {
          scope: PACE_SCOPES.bulk,
          start: PACE_START,
          cap: runCap(platform),
          kept: () => keptPace(platform),
          keep: (value) => platform.documentProperties().setProperty(PACE_PREFIX + PACE_SCOPES.bulk, value),
          key: {
            hash: keyHash,
            read: () => keyPaceFigure(platform),
            write: (value) => platform.userProperties().setProperty(KEY_PACE_PROPERTY, value),
          },
          shared: { token: lease.token, batchCap: platform.config().maxConcurrency },
        })
      : undefined;
  const pacer = pace?.pacer;
  const ports = countingRequests(lookupPorts, webRequests, pace?.shared);
  let slice: SliceState | undefined;
  const session = openLookup(ports, {
    apiKey: ready.apiKey,
    endpoint: ready.endpoint,
    claim: { value: BULK_CLAIM, seconds: BULK_CLAIM_SECONDS },
    budget: sliceBudget(deadline),
    retry: DEFAULT_RETRY,
    sizer: pace?.sizer ?? fixedBatchSize(batchSize ?? PACE_START),
    pace: pace?.policy,
    // A re-check, and a retry that buys UNPROCESSABLE rows again, pay again for results stored before the run.
    storedSince: RunScope.ofJob(lease.job).buysAgain ? lease.job.startedAt : undefined,
    // Formulas may have paid for some of these URLs since the slice began: the store is read again.
    inStore: (unclaimed) => {
      slice?.rereadStore();
      return { stored: new Set(unclaimed.filter((key) => slice?.resultOf(key) !== undefined)) };
    },
    gates: [keyCheckGate(ports, pacer, ready, sliceBudget(deadline), 0)],
  });
  slice = new SliceState(lease, {
    ...ready,
    deadline,
    batchSize,
    pacer,
    shared: pace?.shared,
    slices: mostSlices(platform),
    ports,
    session,
  });
  try {
    runWindows(slice, maxWindows, () => webRequests.sent);
  } finally {
    try {
      session.close();
    } finally {
      keepWebRequestCount(platform, webRequests.sent);
    }
  }
  if (lease.job.state !== 'done') lease.noteEnds(ready.sheet);
}

/**
 * The lookup's ports, counting into `tally` the web requests their transport sends, and telling the run's other
 * slices (`shared`) what this one has in flight.
 */
function countingRequests(ports: LookupPorts, tally: { sent: number }, shared?: SharedPace): LookupPorts {
  const { transport } = ports;
  const { checkKey } = transport;
  return {
    ...ports,
    transport: {
      sendBatch(urls, plan) {
        shared?.sending(urls.length);
        const sent = transport.sendBatch(urls, plan);
        tally.sent += sent.sent;
        return sent;
      },
      checkKey: checkKey
        ? (plan) => {
            const sent = checkKey.call(transport, plan);
            tally.sent += sent.sent;
            return sent;
          }
        : undefined,
    },
  };
}

/**
 * Adds the slice's web requests to the user's count of the quota's 24 hours (src/core/webRequests.ts). The count
 * only informs a plan: a failure to keep it (the properties quota) ends nothing.
 */
function keepWebRequestCount(platform: Platform, sent: number): void {
  if (sent === 0) return;
  try {
    const properties = platform.userProperties();
    const value = addWebRequests(properties.getProperty(WEB_REQUESTS_PROPERTY), sent, platform.clock.now());
    properties.setProperty(WEB_REQUESTS_PROPERTY, value);
  } catch {
    // The next slice counts its own requests all the same.
  }
}

/** What the user's key's service took, as kept in the user's properties (src/lookup/pace.ts). */
export function keyPaceFigure(platform: Platform): string | undefined {
  return platform.userProperties().getProperty(KEY_PACE_PROPERTY) ?? undefined;
}

/** The bulk run's pace as kept for days in a document property (src/lookup/pace.ts). */
function keptPace(platform: Platform): string | undefined {
  return platform.documentProperties().getProperty(PACE_PREFIX + PACE_SCOPES.bulk) ?? undefined;
}

/**
 * At least one window per slice, so a slice always makes progress; at most `maxWindows` that sent requests
 * (`sent`: the slice's web requests so far), the rest of the run's windows (a later pass's rows) cost no request.
 */
function runWindows(slice: SliceState, maxWindows: number, sent: () => number): void {
  const { lease } = slice;
  let worked = 0;
  // Past `maxWindows`, only the end of the run: the pass over the range after the last row.
  const enough = () => worked >= maxWindows && slice.job.pass === 1 && slice.job.cursor <= slice.job.lastRow;
  for (let window = 0; window === 0 ? lease.working : slice.hasTime && !enough(); window++) {
    if (slice.job.cursor > lease.windowEnd) {
      const onPass = lease.onPass;
      if (onPass && !startNextPass(slice)) break;
      // The window done (or a new pass begun): the next one, leased in the same lock as this one's rows merged.
      if (!lease.next(windowLeaseRows(slice), windowSlices(slice))) break;
      if (onPass) slice.dropAhead();
      continue;
    }
    // The run's other slices' requests in flight leave room for this slice's share, or its time ends first.
    if (slice.setup.shared && !slice.setup.shared.awaitRoom(slice.setup.deadline)) break;
    const before = sent();
    const going = processWindow(slice);
    if (sent() > before) worked++;
    if (!going) break;
  }
  // Past the last row with the slice's time spent: the pass over the range (one read) still ends the run here, so
  // a run whose rows all have their results is Done, never left running (or waiting for its sidebar) at 100 %.
  if (lease.working && slice.job.cursor > lease.windowEnd && slice.job.cursor > slice.job.lastRow) {
    if (!lease.onPass && !lease.next(windowLeaseRows(slice), windowSlices(slice))) return;
    if (lease.onPass && startNextPass(slice)) {
      lease.next(windowLeaseRows(slice), windowSlices(slice));
      slice.dropAhead();
    }
  }
}

/** The slices the run's last windows are split across (one for a fixed window). */
function windowSlices(slice: SliceState): number {
  const { pacer } = slice.setup;
  return pacer ? slicesFor(slice.setup.slices, pacer.runSize()) : 1;
}

/** Rows the slice's next window lease takes: two of its batches, or the fixed window. */
function windowLeaseRows(slice: SliceState): number {
  const { pacer, batchSize } = slice.setup;
  return pacer ? Math.min(MAX_WINDOW_ROWS, 2 * pacer.share()) : (batchSize ?? PACE_START);
}

/**
 * After the last row: one read of the whole range finds rows still without a result (they moved during the run,
 * or were inserted). Returns false when the job is finished, or when the sheet's frame moved under this slice.
 */
function startNextPass(slice: SliceState): boolean {
  const { job, lease } = slice;
  const rows = job.lastRow - job.firstRow + 1;
  const { sheet, width } = slice.setup;
  // Rows or columns inserted or deleted while this slice worked: the range read here is no longer the job's. The
  // next slice follows the sheet (checkBeforeWork) and reads the range where it is now.
  if (sheet.maxRows() !== job.maxRows || sheet.maxColumns() !== job.maxColumns) return false;
  const values = readJobCells(sheet, job, job.firstRow, rows, Math.min(width, CELL.status + 1));
  const pendingIndex = firstWithoutStatus(values);
  // Retry failed rows has one pass: rows without a status are not its to fill.
  if (pendingIndex < 0 || job.pass >= MAX_PASSES || job.redo) {
    lease.apply({
      type: 'finish',
      counts: finalCounts(job.counts, values),
      leftPending: pendingIndex >= 0 && !job.redo,
    });
    return false;
  }
  lease.startPass(job.firstRow + pendingIndex);
  return true;
}
