/**
 * One slice of the bulk run: one execution's share of it, batch after batch for one time budget. Between two
 * batches it holds the document lock once (./step.ts): the last window written, the next leased and claimed. Each
 * batch goes out with the lock free, its answers kept in its records first (src/store/sendingRecords.ts). When the
 * slice's last hold is refused, the records say so, and the next hold of any slice frees its window and writes it
 * from the store.
 */
import type { Progress } from '../api';
import { outputHeaders } from '../core/cells';
import { stableHash } from '../core/hash';
import {
  DEFAULT_RETRY,
  DEFAULT_STEP_BUDGET_MS,
  FIRST_SLICE_MAX_MS,
  FIRST_SLICE_WINDOWS,
  LEASE_MS,
  MAX_BATCH_SIZE,
} from '../core/limits';
import { JOB_PROPERTY, KEY_PACE_PROPERTY, WEB_REQUESTS_PROPERTY } from '../core/propertyNames';
import { isPropertiesQuotaError, propertiesQuotaMessage } from '../core/quota';
import { withoutStop } from '../core/text';
import { timeId } from '../core/timeId';
import { addWebRequests } from '../core/webRequests';
import { redactKey } from '../lookup/apiKey';
import { sliceBudget } from '../lookup/budget';
import { checkKeyOfRun } from '../lookup/keyCheck';
import { keyPaceValue, knowsNothing } from '../lookup/pace';
import type { BatchSample, BatchSizer, LookupPorts } from '../lookup/ports';
import { type ServiceError, serviceError } from '../lookup/result';
import { emptyReport, type LookupReport, sendClaimed } from '../lookup/session';
import type { Platform } from '../platform/platform';
import { idleProgress, type Job, progressOf } from './job';
import type { HaltReason } from './jobMachine';
import { transition } from './jobMachine';
import { loadJob, parseJob, updateJob } from './jobStore';
import { slicesWorking, windowsLeft } from './lease';
import { runCharges } from './runCharges';
import { haltOf } from './runHalt';
import { mostSlices, paceNow, runCap, slicesFor, splitAtLimit } from './runPace';
import { holdOnce, type Leased, lookForRoom, type Sent, type SliceSetup } from './step';

/** Holds of the lock one slice makes at most (each bounded in time: the loop ends at the slice's deadline anyway). */
const MOST_HOLDS = 1000;

/** Works on the job for one budget (`maxBudgetMs`, at most ENRICH_STEP_BUDGET_MS), at most `maxWindows` batches. */
export function processSlice(
  platform: Platform,
  jobId: string,
  runnerId: string | null,
  maxBudgetMs = Number.POSITIVE_INFINITY,
  maxWindows = Number.POSITIVE_INFINITY,
): Progress {
  try {
    const job = runSlice(platform, jobId, runnerId, maxBudgetMs, maxWindows);
    return withSlices(platform, progressOf(job, { runnerId, now: platform.clock.now() }), job);
  } catch (error) {
    if (isPropertiesQuotaError(error)) return quotaPaused(error);
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
  const config = platform.config();
  const batch =
    config.batchSize ??
    Math.min(config.maxConcurrency, paceNow(job.pace, runCap(config), platform.clock.now()).size);
  if (lookups <= batch)
    return processSlice(platform, job.id, runnerId, FIRST_SLICE_MAX_MS, FIRST_SLICE_WINDOWS);
  return withSlices(platform, progressOf(job, { runnerId, now: platform.clock.now() }), job);
}

/**
 * The slices of a running run its starter's sidebar drives at once: as many as the run's pace is split into
 * (BULK_SLICES, fewer when the pace leaves under SLICE_MIN_SHARE requests to each), and no more than the windows a
 * slice may still find (the slices at work now count).
 */
export function withSlices(platform: Platform, progress: Progress, job?: Job | null): Progress {
  if (progress.state !== 'running' || progress.readOnly || !job) return progress;
  const config = platform.config();
  const now = platform.clock.now();
  const most = mostSlices(config);
  const pace = paceNow(job.pace, runCap(config), now);
  const working = slicesWorking(job, now);
  // None at work yet: as many as send the run's pace in whole fetchAlls (one at PACE_START, more at a pace known),
  // or as it is kept split at a limit the service showed.
  const whole = Math.ceil(pace.size / config.maxConcurrency);
  const figure = config.batchSize
    ? most
    : working === 0
      ? Math.min(most, Math.max(whole, splitAtLimit(pace, runCap(config), most)))
      : slicesFor(most, pace.size);
  const share = config.batchSize ?? Math.max(1, Math.floor(pace.size / figure));
  const windows = working + windowsLeft(job, now, share);
  return { ...progress, slices: Math.max(1, Math.min(figure, windows)) };
}

/** The run cannot read or save its state today (Apps Script's properties quota): it waits, nothing is lost. */
export function quotaPaused(error: unknown): Progress {
  const message = `Paused: ${propertiesQuotaMessage(error)} Results already written stay; the run goes on when you Resume after the limit resets.`;
  return { ...idleProgress(message), state: 'paused', reason: 'quota' };
}

/** The slice: the checks before any work, then batch after batch, each between two holds of the lock. */
function runSlice(
  platform: Platform,
  jobId: string,
  runnerId: string | null,
  maxBudgetMs: number,
  maxWindows: number,
): Job | null {
  const now = () => platform.clock.now();
  const started = now();
  const job = loadJob(platform);
  if (!job || job.id !== jobId || job.state !== 'running') return job;
  const ready = checkBeforeWork(platform, job);
  if ('halt' in ready) return haltJob(platform, jobId, ready.halt.reason, ready.halt.message);
  const config = platform.config();
  const budgetMs = Math.min(config.stepBudgetMs ?? DEFAULT_STEP_BUDGET_MS, maxBudgetMs);
  const tally = { sent: 0 };
  const setup: SliceSetup = {
    ...ready,
    platform,
    jobId,
    runnerId,
    token: timeId(started),
    // An execution ends within EXECUTION_LIMIT_MS of its start (which was before `started`).
    until: started + LEASE_MS,
    deadline: started + budgetMs,
    ports: countingRequests(platform.lookupPorts(true, runCharges(job), ready.store), tally),
    batchSize: config.batchSize && Math.min(MAX_BATCH_SIZE, config.batchSize),
    batchCap: config.maxConcurrency,
    slices: mostSlices(config),
    cap: runCap(config),
  };
  let last: Job | null = job;
  try {
    last = holdAndSend(setup, maxWindows) ?? last;
  } catch (error) {
    last = haltOnError(platform, jobId, error, ready.apiKey);
  } finally {
    // The user's web requests in the quota's 24 hours (src/core/webRequests.ts): the next slice counts its own anyway.
    const { sent } = tally;
    if (sent > 0) keepFigure(platform, WEB_REQUESTS_PROPERTY, (count) => addWebRequests(count, sent, now()));
  }
  // What the key's service took, for the starter's next run (src/lookup/pace.ts): it only speeds up its start.
  const pace = last?.pace;
  const keyHash = stableHash(ready.apiKey);
  if (pace) keepFigure(platform, KEY_PACE_PROPERTY, (kept) => keyPaceValue(pace, kept, keyHash, now()));
  return last;
}

/** Hold, send, hold…: the job as the last hold left it (undefined when no hold got the lock). */
function holdAndSend(setup: SliceSetup, maxWindows: number): Job | null | undefined {
  const { clock } = setup.platform;
  let sent: Sent | undefined;
  let last: Job | null | undefined;
  let windows = 0;
  for (let holds = 0; holds < MOST_HOLDS; holds++) {
    // At least one batch a slice, so a slice always makes progress however small its budget.
    const more = windows === 0 || (windows < maxWindows && clock.now() < setup.deadline);
    // A batch to write is worth trying the lock again for (a refused one leaves its window to the next slice).
    const hold = holdOnce(setup, sent, more, sent !== undefined);
    if (!hold) {
      sent?.record?.endWithoutWriting();
      return last;
    }
    last = hold.job;
    sent = undefined;
    if (hold.waitMs !== undefined) {
      if (!sleepUntilRoom(setup, hold.waitMs)) return last;
      continue;
    }
    if (!hold.next) return last;
    windows++;
    sent = sendLeased(setup, hold.next);
    // Nothing went out, its profiles being looked up by other executions: written once theirs may be back, never
    // leased again and again meanwhile (each a hold of the lock).
    if (sent.samples.length === 0 && waitsElsewhere(sent.report)) {
      const pause = Math.min(sent.othersBackMs, setup.deadline - clock.now());
      if (pause > 0) clock.sleep(pause);
    }
  }
  return last;
}

/** Rows of the batch wait on profiles other executions are looking up. */
function waitsElsewhere(report: LookupReport): boolean {
  return report.heldBy.size > 0 || report.elsewhere.length > 0;
}

/**
 * Waits while the run's pace has no room for this slice, looking at the job without the lock (each look one
 * property read, never a LockService call): true when the slice should hold the lock again, false at its deadline.
 */
function sleepUntilRoom(setup: SliceSetup, firstWaitMs: number): boolean {
  const { clock } = setup.platform;
  let waitMs: number | undefined = firstWaitMs;
  for (let looks = 0; waitMs !== undefined && looks < MOST_HOLDS; looks++) {
    if (clock.now() + waitMs >= setup.deadline) return false;
    clock.sleep(waitMs);
    waitMs = lookForRoom(setup);
  }
  return true;
}

/** The leased window's batch, sent with the lock free; its answers are kept in its records as they come. */
function sendLeased(setup: SliceSetup, leased: Leased): Sent {
  const { platform, ports } = setup;
  const samples: BatchSample[] = [];
  const first = leased.claimed.first;
  let notBefore = 0;
  const size = Math.max(1, first?.first.length ?? 1);
  const sizer: BatchSizer = {
    next: () => size,
    observe: (sample) => samples.push(sample),
    hold: (until) => {
      notBefore = Math.max(notBefore, until);
    },
  };
  const stop = serviceError('config', 'The run is no longer running.', { effect: 'pause' });
  let report = emptyReport();
  try {
    const halt = checkKeyFirst(setup, leased);
    // Nothing of the batch went out: its keys leave its records, and the next hold halts the run.
    if (halt) first?.record?.drop(first.send);
    report = halt
      ? { ...report, halt }
      : sendClaimed(
          ports,
          leased.window.wanted,
          {
            claimed: new Map(),
            apiKey: setup.apiKey,
            endpoint: setup.endpoint,
            retry: DEFAULT_RETRY,
            batchSize: sizer,
            budget: sliceBudget(setup.deadline),
            holdSeconds: Math.max(1, (setup.until - platform.clock.now()) / 1000),
            window: setup.token,
            // Before a retry: a Pause or Cancel meanwhile sends nothing more.
            beforeBatch: () => (stillRunning(platform, setup.jobId) ? undefined : stop),
          },
          leased.claims,
          leased.claimed,
          report,
        );
  } finally {
    leased.claims.releaseAll();
  }
  return { ...leased, report, samples, notBefore, record: first?.record };
}

/**
 * Start's key check met no answer that counts (a 429, a lost connection, a redirect): the run's pace knows
 * nothing, and the first batch of a slice waits for a key check of its own. The error that halts the run, if any.
 */
function checkKeyFirst(setup: SliceSetup, leased: Leased): ServiceError | undefined {
  if (!leased.pace || !knowsNothing(leased.pace) || (leased.claimed.first?.send.length ?? 0) === 0)
    return undefined;
  const plan = { apiKey: setup.apiKey, endpoint: setup.endpoint };
  const checked = checkKeyOfRun(setup.ports, leased.pace, setup.cap, plan, sliceBudget(setup.deadline));
  setup.keyChecked = checked.state;
  return checked.halt;
}

/** The run is still this one and running (one property read, no lock: Pause and Cancel write it under the lock). */
function stillRunning(platform: Platform, jobId: string): boolean {
  const job = parseJob(platform.documentProperties().getProperty(JOB_PROPERTY));
  return job?.id === jobId && job.state === 'running';
}

type Ready = Pick<SliceSetup, 'store' | 'sheet' | 'width' | 'hosts'> & { apiKey: string; endpoint: string };

/** The checks before any work: the key, the configuration, the sheet. A halt when one fails. */
function checkBeforeWork(
  platform: Platform,
  job: Job,
): Ready | { halt: { reason: HaltReason; message: string } } {
  const apiKey = platform.settings.apiKey();
  if (!apiKey)
    return { halt: haltOf(serviceError('missing_key', 'No API key is saved for you.', { effect: 'stop' })) };
  const config = platform.config();
  if (!config.endpoint.ok) return { halt: { reason: 'configuration', message: config.endpoint.message } };
  const ss = platform.spreadsheetOrNull();
  const sheet = ss?.sheetById(job.sheetId);
  if (!sheet)
    return ss
      ? { halt: { reason: 'sheet_missing', message: `The sheet "${job.sheetName}" no longer exists.` } }
      : { halt: { reason: 'no_spreadsheet', message: 'Waiting for the spreadsheet to be open.' } };
  return {
    store: platform.resultStore(runCharges(job)),
    sheet,
    width: 1 + outputHeaders(job.extraFields).length,
    hosts: config.networkHosts,
    apiKey,
    endpoint: config.endpoint.endpoint,
  };
}

function haltJob(platform: Platform, jobId: string, reason: HaltReason, message: string): Job | null {
  return updateJob(platform, (stored) => {
    if (!stored || stored.id !== jobId) return stored;
    const now = platform.clock.now();
    return { ...transition(stored, { type: 'halt', reason, message }, now), updatedAt: now };
  });
}

/**
 * An unexpected error pauses the run with its text, the starter's key never in it (every editor reads the job's
 * message); the properties quota pauses it with its own words.
 */
function haltOnError(platform: Platform, jobId: string, error: unknown, apiKey: string): Job | null {
  if (isPropertiesQuotaError(error)) throw error;
  const text = redactKey(withoutStop(error instanceof Error ? error.message : String(error)), apiKey);
  try {
    return haltJob(platform, jobId, 'error', `Paused after an unexpected error: ${text}. Resume to retry.`);
  } catch {
    // The lock busy: the next slice meets the error again, or goes on.
    return loadJob(platform);
  }
}

/** The lookup's ports, counting into `tally` the web requests their transport sends. */
function countingRequests(ports: LookupPorts, tally: { sent: number }): LookupPorts {
  const { transport } = ports;
  const { checkKey } = transport;
  const counted = <T extends { sent: number }>(answer: T): T => {
    tally.sent += answer.sent;
    return answer;
  };
  return {
    ...ports,
    transport: {
      sendBatch: (urls, plan) => counted(transport.sendBatch(urls, plan)),
      checkKey: checkKey && ((plan) => counted(checkKey.call(transport, plan))),
    },
  };
}

/** A user property updated from its value: a figure that only informs, so a failure (the quota) ends nothing. */
function keepFigure(
  platform: Platform,
  name: string,
  next: (value: string | null) => string | undefined,
): void {
  try {
    const properties = platform.userProperties();
    const value = next(properties.getProperty(name));
    if (value) properties.setProperty(name, value);
  } catch {
    // Nothing is lost but a figure the next run reads.
  }
}

/** What the user's key's service took, as kept in the user's properties (src/lookup/pace.ts). */
export function keyPaceFigure(platform: Platform): string | undefined {
  return platform.userProperties().getProperty(KEY_PACE_PROPERTY) ?? undefined;
}
