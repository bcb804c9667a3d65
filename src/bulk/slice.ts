/**
 * One slice of a bulk run: one execution's share of it, a hold of the document lock between each two batches. A
 * hold folds what is final (counting the run's credits in its job), writes the slice's last window (each row checked
 * again right before), and leases the next: rows planned up to the slice's share of the run's pace, their new profiles
 * claimed in a sending record, all in one write with the job. The batch goes out with the lock free.
 */
import type { Progress } from '../api';
import { columnLetters } from '../core/a1';
import { CELL } from '../core/cells';
import { stableHash } from '../core/hash';
import {
  DEFAULT_SLICES,
  DEFAULT_STEP_BUDGET_MS,
  FIRST_SLICE_MAX_MS,
  LEASE_MS,
  MAX_BATCH_SIZE,
  MAX_PASSES,
  MAX_SLICES,
  MAX_WINDOW_ROWS,
} from '../core/limits';
import type { Platform } from '../core/ports';
import { JOB_PROPERTY } from '../core/propertyNames';
import { isPropertiesQuotaError, propertiesQuotaMessage } from '../core/quota';
import type { SheetPort } from '../core/sheet';
import { withoutStop } from '../core/text';
import { timeId } from '../core/timeId';
import type { NetworkHosts } from '../core/url';
import { redactKey } from '../lookup/apiKey';
import { fitting, observe, type Pace } from '../lookup/pace';
import { serviceError } from '../lookup/result';
import type { ChargeContext } from '../store/credits';
import { type Claim, claim, type Report, sendClaimed } from '../store/send';
import { type Store, storeOf } from '../store/store';
import { inRanges, widthOf } from './blocks';
import { countsShown, idleProgress, type Job, mayDrive, progressOf, type WindowLease } from './job';
import { cancelledMessage, type Halt, haltOf, transition } from './jobMachine';
import { loadJob, parseJob, updateJob } from './jobStore';
import { addFolded, finalCounts } from './outcomes';
import { COLUMNS_MOVED, noteEnds, relocate } from './relocate';
import { readJobCells, readJobRange } from './rowCells';
import { firstWithoutStatus, writtenResults } from './rowPlan';
import { RunScope } from './runScope';
import { type PlannedWindow, planWindow, type RowAnswer, writeWindow } from './window';

/** The run's pace before anything was seen: a first round of its slices, doubled while the service keeps up. */
export const PACE_START = 50;
/** Holds of the lock a slice makes at most (each bounded in time: the loop ends at the slice's deadline anyway). */
const MOST_HOLDS = 1000;
/** A window whose profiles other executions are looking up is written again after this (their batch's time). */
const ELSEWHERE_WAIT_MS = 1000;

/** What a slice works with, fixed for the slice. */
interface Setup {
  platform: Platform;
  store: Store;
  jobId: string;
  runnerId: string | null;
  token: string;
  /** The slice's execution has ended by then: its window and record end then too. */
  until: number;
  /** No window is leased after this (the slice's budget). */
  deadline: number;
  sheet: SheetPort;
  width: number;
  hosts: NetworkHosts;
  apiKey: string;
  endpoint: string;
  /** ENRICH_BATCH_SIZE: the requests of every batch, fixed. */
  batchSize?: number;
  /** The most requests of one fetchAll, times the most slices at once. */
  cap: number;
  written?: Map<string, unknown[]>;
}

/** A window leased, with its claim: sent after the hold, written in the next. */
interface Leased {
  window: PlannedWindow;
  claimed: Claim;
  share: number;
  /** Lookups of the run's other slices at the service as it was leased. */
  alongside: number;
  pace: Pace;
}

interface Sent extends Leased {
  report: Report;
}

interface Hold {
  job: Job | null;
  next?: Leased;
  /** Ms to wait before leasing (a Retry-After). */
  waitMs?: number;
}

/** BULK_SLICES, or DEFAULT_SLICES, at most MAX_SLICES. */
export function mostSlices(platform: Platform): number {
  return Math.min(MAX_SLICES, platform.config().slices ?? DEFAULT_SLICES);
}

/** Works on the job for one budget (at most ENRICH_STEP_BUDGET_MS), at most `maxWindows` batches. */
export function processSlice(
  platform: Platform,
  jobId: string,
  runnerId: string | null,
  maxBudgetMs = Number.POSITIVE_INFINITY,
  maxWindows = Number.POSITIVE_INFINITY,
): Progress {
  return quotaPaused(() => {
    const job = runSlice(platform, jobId, runnerId, maxBudgetMs, maxWindows);
    return withSlices(platform, progressOf(job, { runnerId, now: platform.clock.now() }), job);
  });
}

/** Start's or Resume's answer: a run of one batch is done in a short slice of the call itself; more, by the sidebar. */
export function openingSlice(
  platform: Platform,
  job: Job,
  runnerId: string | null,
  lookups: number,
): Progress {
  if (lookups <= shareOf(platform, job.pace, 1))
    return processSlice(platform, job.id, runnerId, FIRST_SLICE_MAX_MS, 1);
  return withSlices(platform, progressOf(job, { runnerId, now: platform.clock.now() }), job);
}

/** The slices the starter's sidebar drives at once: BULK_SLICES, no more than the windows left to lease. */
export function withSlices(platform: Platform, progress: Progress, job?: Job | null): Progress {
  if (progress.state !== 'running' || progress.readOnly || !job) return progress;
  return { ...progress, slices: slicesFor(platform, job) };
}

/** BULK_SLICES, no more than the windows held or given back and the rows never leased. */
function slicesFor(platform: Platform, job: Job): number {
  const share = Math.max(1, shareOf(platform, job.pace));
  const unleased = Math.ceil(Math.max(0, job.lastRow - job.cursor + 1) / share);
  return Math.max(1, Math.min(mostSlices(platform), (job.windows ?? []).length + unleased));
}

/** `work`, unless the run cannot read or save its state (Apps Script's properties quota): then it waits, nothing lost. */
export function quotaPaused(work: () => Progress): Progress {
  try {
    return work();
  } catch (error) {
    if (!isPropertiesQuotaError(error)) throw error;
    const message = `Paused: ${propertiesQuotaMessage(error)} Results already written stay; the run goes on when you Resume after the limit resets.`;
    return { ...idleProgress(message), state: 'paused', reason: 'quota' };
  }
}

/**
 * Requests a slice's batch holds: ENRICH_BATCH_SIZE, else its part of the run's pace among the `slices` sending at
 * once, within one fetchAll.
 */
function shareOf(platform: Platform, pace: Pace | undefined, slices = mostSlices(platform)): number {
  const config = platform.config();
  if (config.batchSize) return Math.min(MAX_BATCH_SIZE, config.batchSize);
  return Math.min(config.maxConcurrency, Math.ceil((pace?.size ?? PACE_START) / slices));
}

function runSlice(
  platform: Platform,
  jobId: string,
  runnerId: string | null,
  maxBudgetMs: number,
  maxWindows: number,
): Job | null {
  const started = platform.clock.now();
  const job = loadJob(platform);
  if (!job || job.id !== jobId || job.state !== 'running') return job;
  const halt = (why: Halt) =>
    updateJob(platform, (stored) => {
      if (!stored || stored.id !== jobId) return stored;
      const now = platform.clock.now();
      return { ...transition(stored, { type: 'halt', ...why }, now), updatedAt: now };
    });
  const apiKey = platform.settings.apiKey();
  if (!apiKey)
    return halt(haltOf(serviceError('missing_key', 'No API key is saved for you.', { effect: 'stop' })));
  const config = platform.config();
  if (!config.endpoint.ok) return halt({ reason: 'configuration', message: config.endpoint.message });
  const ss = platform.spreadsheetOrNull();
  const sheet = ss?.sheetById(job.sheetId);
  if (!sheet)
    return halt(
      ss
        ? { reason: 'sheet_missing', message: `The sheet "${job.sheetName}" no longer exists.` }
        : { reason: 'no_spreadsheet', message: 'Waiting for the spreadsheet to be open.' },
    );
  const setup: Setup = {
    platform,
    store: storeOf(platform),
    jobId,
    runnerId,
    token: timeId(started),
    until: started + LEASE_MS,
    deadline: started + Math.min(config.stepBudgetMs ?? DEFAULT_STEP_BUDGET_MS, maxBudgetMs),
    sheet,
    width: widthOf(job),
    hosts: config.networkHosts,
    apiKey,
    endpoint: config.endpoint.endpoint,
    batchSize: config.batchSize && Math.min(MAX_BATCH_SIZE, config.batchSize),
    cap: config.maxConcurrency * mostSlices(platform),
  };
  try {
    return holdAndSend(setup, maxWindows) ?? job;
  } catch (error) {
    if (isPropertiesQuotaError(error)) throw error;
    const text = redactKey(withoutStop(error instanceof Error ? error.message : String(error)), apiKey);
    const message = `Paused after an unexpected error: ${text}. Resume to retry.`;
    try {
      return halt({ reason: 'error', message });
    } catch {
      return loadJob(platform);
    }
  }
}

/** Hold, send, hold…: the job as the last hold left it (undefined when no hold got the lock). */
function holdAndSend(setup: Setup, maxWindows: number): Job | null | undefined {
  const { clock, lock } = setup.platform;
  let sent: Sent | undefined;
  let last: Job | null | undefined;
  let windows = 0;
  for (let holds = 0; holds < MOST_HOLDS; holds++) {
    // At least one batch a slice, so a slice always makes progress however small its budget.
    const more = windows === 0 || (windows < maxWindows && clock.now() < setup.deadline);
    const work = () => holding(setup, sent, more, windows === 0);
    // A batch to write is worth trying the lock again for; its answers are kept in its record whatever happens.
    const hold = sent ? tryRetried(() => lock.withRetried(work)) : lock.tryWith(work)?.value;
    if (!hold) return last;
    last = hold.job;
    sent = undefined;
    if (hold.waitMs !== undefined) {
      if (clock.now() + hold.waitMs >= setup.deadline) return last;
      clock.sleep(hold.waitMs);
      continue;
    }
    if (!hold.next) return last;
    windows++;
    sent = sendLeased(setup, hold.next);
    // Nothing went out, its profiles being looked up by other executions: written once theirs may be back.
    if (sent.report.sent === 0 && sent.claimed.elsewhere.size > 0)
      clock.sleep(Math.max(0, Math.min(ELSEWHERE_WAIT_MS, setup.deadline - clock.now())));
  }
  return last;
}

function tryRetried<T>(work: () => T): T | undefined {
  try {
    return work();
  } catch (error) {
    if (error instanceof Error && error.name === 'DocumentBusyError') return undefined;
    throw error;
  }
}

/** The leased window's batch, sent with the lock free; a Pause or Cancel stored meanwhile sends nothing more. */
function sendLeased(setup: Setup, leased: Leased): Sent {
  const { platform } = setup;
  const stop = serviceError('config', 'The run is no longer running.', { effect: 'pause' });
  const report = sendClaimed(platform, leased.claimed, {
    apiKey: setup.apiKey,
    endpoint: setup.endpoint,
    pace: leased.pace,
    share: leased.share,
    alongside: leased.alongside,
    cap: setup.cap,
    deadline: setup.deadline,
    firstGoes: true,
    run: true,
    beforeBatch: () => {
      const job = loadJob(platform);
      return job?.id === setup.jobId && job.state === 'running' ? undefined : stop;
    },
  });
  return { ...leased, report };
}

/** One hold: the fold, the last window written, the next leased; the job and the new record in one write. */
function holding(setup: Setup, sent: Sent | undefined, takeNext: boolean, first: boolean): Hold {
  const { platform, store } = setup;
  const now = platform.clock.now();
  const read = platform.documentProperties().getProperties();
  const { all } = store.fold(read, true, (folded) => {
    const job = parseJob(read[JOB_PROPERTY]);
    const mine = job && folded.byRun.get(job.id);
    if (!job || !mine) return {} as Record<string, string>;
    addFolded(job.counts, mine);
    return { [JOB_PROPERTY]: JSON.stringify(job) };
  });
  const job = parseJob(all[JOB_PROPERTY]);
  if (!job || job.id !== setup.jobId) return { job };
  if (sent) writeSent(setup, job, sent, all, now);
  if (job.state === 'cancelled' && job.reason === 'user') job.message = cancelledMessage(job.counts);
  let hold: Hold = { job };
  if (job.state === 'running' && mayDrive(job, setup.runnerId)) {
    if (takeNext) hold = { job, ...leaseNext(setup, job, all, now, first) };
    else if (nextLease(job, now) === 'pass') startNextPass(setup, job, now);
  }
  // The slice leaves the run: the URL cells at its ends as it leaves them (a sort meanwhile changes them).
  if (!hold.next && hold.waitMs === undefined && job.state === 'running' && sameFrame(setup.sheet, job))
    noteEnds(job, setup.sheet);
  job.updatedAt = now;
  if (job.state === 'running') {
    const counts = countsShown(job);
    job.message = `Working: ${counts.processed} of ${counts.total} rows.`;
  }
  platform.documentProperties().setProperties({
    ...hold.next?.claimed.values,
    [JOB_PROPERTY]: JSON.stringify(job),
  });
  return hold;
}

/** The slice's last window written and given back (only while still its own), its batches seen by the run's pace. */
function writeSent(setup: Setup, job: Job, sent: Sent, all: Record<string, string>, now: number): void {
  const held = (job.windows ?? []).find((window) => window.token === setup.token);
  if (!held || held.from !== sent.window.from) return;
  const { report, claimed } = sent;
  if (!setup.batchSize) {
    let pace = job.pace ?? { size: PACE_START };
    for (const seen of report.seen) pace = observe(pace, seen, sent.share, setup.cap);
    job.pace = pace;
  }
  const rows = readJobCells(setup.sheet, job, sent.window.from, sent.window.plans.length, setup.width, true);
  // Profiles another execution was looking up when the window was planned: their answers, stored by now.
  const late = knownAnswers(setup, job, [...claimed.elsewhere.keys()], all);
  const written = writeWindow(setup.sheet, job, sent.window, rows, {
    scope: RunScope.ofJob(job),
    hosts: setup.hosts,
    width: setup.width,
    counts: job.counts,
    answerOf: (key) => {
      const outcome = report.outcomes.get(key);
      if (outcome && (outcome.kind !== 'error' || outcome.effect === 'continue')) return { outcome };
      const stored = claimed.stored.get(key);
      return stored ? { outcome: stored } : (sent.window.known.get(key) ?? late.get(key));
    },
  });
  const given = written.left.map((run) => ({ ...run, token: '', until: 0 }));
  setWindows(job, [...(job.windows ?? []).filter((window) => window.token !== setup.token), ...given], now);
  if (report.halt && written.left.length > 0) apply(job, { type: 'halt', ...haltOf(report.halt) }, now);
}

/** The answers the run takes as they are for these profiles: stored results its scope keeps, copies of its rows. */
function knownAnswers(
  setup: Setup,
  job: Job,
  keys: string[],
  all: Record<string, string>,
): Map<string, RowAnswer> {
  const answers = new Map<string, RowAnswer>();
  if (keys.length === 0) return answers;
  const scope = RunScope.ofJob(job);
  for (const [key, cached] of setup.store.lookIn(keys, all))
    if (scope.keepsStored(cached.result, cached.savedAt >= job.startedAt))
      answers.set(key, { outcome: cached.result });
  if (!scope.copiesWritten(job.pass) || (job.pass === 1 && !job.hasDuplicates)) return answers;
  setup.written ??= writtenResults(readJobRange(setup.sheet, job, setup.width), setup.hosts);
  for (const key of keys) {
    const copy = setup.written.get(key);
    if (copy && !answers.has(key)) answers.set(key, { copy });
  }
  return answers;
}

function apply(job: Job, event: Parameters<typeof transition>[1], now: number): void {
  Object.assign(job, transition(job, event, now));
}

/** A bulk run's line in the credits log (src/store/credits.ts). */
export function runCharges(job: Job): ChargeContext {
  const column = columnLetters(job.urlColumn);
  const watch = job.origin === 'watch';
  const rows = job.firstRow === job.lastRow ? `row ${job.firstRow}` : `rows ${job.firstRow}–${job.lastRow}`;
  return {
    source: watch ? 'watch' : 'run',
    payer: job.ownerName || (watch ? "the watch's creator" : "the run's starter"),
    // A hash: the runner id itself would let whoever reads the log drive the run.
    payerId: job.ownerId ? stableHash(job.ownerId).slice(0, 8) : '',
    where: watch
      ? `watch ${job.id} · '${job.sheetName}'!${column} ${rows}`
      : `run ${job.id} · '${job.sheetName}'!${column}${job.firstRow}:${column}${job.lastRow}`,
    run: job.id,
  };
}

function liveWindows(job: Pick<Job, 'windows'>, now: number): WindowLease[] {
  return (job.windows ?? []).filter((window) => window.until > now);
}

/** The windows sorted, and the end of the latest lease. */
function setWindows(job: Job, windows: WindowLease[], now: number): void {
  job.windows = windows.sort((a, b) => a.from - b.from);
  job.leaseUntil = Math.max(0, ...liveWindows(job, now).map((window) => window.until));
}

/** What a slice would lease now: a free window (rows given back), else rows from the cursor, else the pass. */
function nextLease(job: Job, now: number): WindowLease | 'cursor' | 'pass' | undefined {
  const free = (job.windows ?? []).find((window) => window.until <= now);
  if (free) return free;
  if (job.cursor <= job.lastRow) return 'cursor';
  if ((job.windows ?? []).length === 0) return 'pass';
  return undefined;
}

/** `first`: the slice's first batch goes however little time is left; a later one only as far as it fits. */
function leaseNext(
  setup: Setup,
  job: Job,
  all: Record<string, string>,
  now: number,
  first: boolean,
): Omit<Hold, 'job'> {
  if (!followSheet(setup, job, now)) return {};
  const wait = (job.pace?.notBefore ?? 0) - now;
  for (let pass = 0; pass <= MAX_PASSES; pass++) {
    const next = nextLease(job, now);
    if (!next) return {};
    if (next === 'pass') {
      if (!startNextPass(setup, job, now)) return {};
      continue;
    }
    if (wait > 0) return { waitMs: wait };
    const pace = job.pace ?? { size: PACE_START };
    const others = liveWindows(job, now).filter((held) => held.token !== setup.token);
    const inFlight = others.reduce((sum, held) => sum + (held.sent ?? 0), 0);
    // The slices the sidebar drives share the pace, the first one too.
    const fair = shareOf(setup.platform, pace, Math.max(1 + others.length, slicesFor(setup.platform, job)));
    const paced = setup.batchSize ? fair : Math.max(1, Math.min(pace.size - inFlight, fair));
    const share = first ? paced : Math.min(paced, fitting(pace, setup.deadline - now));
    if (share < 1) return {};
    const free = next === 'cursor' ? undefined : next;
    const from = free?.from ?? job.cursor;
    const count = free ? free.to - free.from + 1 : Math.min(MAX_WINDOW_ROWS, job.lastRow - job.cursor + 1);
    const scope = RunScope.ofJob(job);
    const window = planWindow(readJobCells(setup.sheet, job, from, count, setup.width, true), from, {
      scope,
      pass: job.pass,
      hosts: setup.hosts,
      share,
      known: (keys) => knownAnswers(setup, job, keys, all),
      owns: (row) => inRanges(job.owns ?? [], row),
    });
    const claimed = claim(
      setup.store,
      all,
      {
        wanted: window.wanted,
        payer: runCharges(job),
        until: setup.until,
        // A re-check and a retry buy again some of the results stored before the run started.
        keeps: (result, savedAt) => scope.keepsStored(result, savedAt >= job.startedAt),
      },
      () => setup.platform.clock.now(),
    );
    const { from: start, to } = window;
    const lease = { from: start, to, token: setup.token, until: setup.until, sent: claimed.mine.length };
    const apart = (job.windows ?? []).filter((held) => held.to < lease.from || held.from > lease.to);
    // Rows given back are sent at the pace too (all at once they met the limit again): the rest stays free.
    const rest = free && window.to < free.to ? [{ ...free, from: window.to + 1 }] : [];
    setWindows(job, [...apart, lease, ...rest], now);
    if (window.to >= job.cursor) job.cursor = window.to + 1;
    return { next: { window, claimed, share, alongside: inFlight, pace } };
  }
  return {};
}

/**
 * Rows or columns inserted or deleted since the job's frame was noted: followed only when no other slice holds a
 * window (their rows would move under them); true when the job is where the sheet is now.
 */
function followSheet(setup: Setup, job: Job, now: number): boolean {
  if (sameFrame(setup.sheet, job)) return true;
  if (liveWindows(job, now).some((window) => window.token !== setup.token)) return false;
  job.cursor = Math.min(job.cursor, ...(job.windows ?? []).map((window) => window.from));
  setWindows(job, [], now);
  const before = { first: job.firstRow, last: job.lastRow };
  if (relocate(job, setup.sheet, setup.width)) {
    const shift = job.firstRow - before.first;
    const grown = job.lastRow - before.last - shift;
    job.owns = job.owns?.map(([first, last]) => [
      first + shift,
      last + shift + (last >= before.last ? grown : 0),
    ]);
    return true;
  }
  apply(job, { type: 'halt', reason: 'sheet_changed', message: COLUMNS_MOVED }, now);
  return false;
}

/**
 * After the last row, no window left: one read of the whole range finds rows still without a result (they moved
 * during the run, or were inserted): the next pass starts at the first, else the run is done (false).
 */
function startNextPass(setup: Setup, job: Job, now: number): boolean {
  const values = readJobRange(setup.sheet, job, Math.min(setup.width, CELL.status + 1));
  const pendingIndex = firstWithoutStatus(values);
  // Retry failed rows and a watch's run have one pass: rows without a status are not theirs to fill.
  if (pendingIndex < 0 || job.pass >= MAX_PASSES || job.redo) {
    const leftPending = pendingIndex >= 0 && !job.redo;
    apply(job, { type: 'finish', counts: finalCounts(job.counts, values), leftPending }, now);
    return false;
  }
  job.pass++;
  job.cursor = job.firstRow + pendingIndex;
  setup.written = undefined;
  return true;
}

/** The sheet's size is the job's frame: no row or column inserted or deleted since it was noted. */
function sameFrame(sheet: SheetPort, job: Job): boolean {
  return sheet.maxRows() === job.maxRows && sheet.maxColumns() === job.maxColumns;
}
