/**
 * One hold of the document lock by a slice, between its batches: everything final folded into the hidden sheets
 * (src/store/sendingRecords.ts), the slice's last window written (each row checked again right before) and given
 * back, its batch observed in the run's pace; then, while the run is running, the slice's own, and it has time, the
 * next window leased with its claims and sending record, until the slice's execution must have ended. The job is read
 * before every batch: a Pause or Cancel that came while a batch was at the service lets it be written, sends no more.
 */
import { CELL } from '../core/cells';
import { MAX_PASSES, MAX_ROOM_WAIT_MS, MAX_WINDOW_ROWS, MIN_ROOM_WAIT_MS } from '../core/limits';
import { JOB_PROPERTY } from '../core/propertyNames';
import type { SheetPort } from '../core/sheet';
import type { NetworkHosts } from '../core/url';
import { BULK_CLAIM, type ClaimScope, claimScope } from '../lookup/claims';
import { knowsNothing, observeRun, type PaceState, paceReason } from '../lookup/pace';
import type { BatchSample, KeepsStored, LookupPorts, RecordWrites } from '../lookup/ports';
import { type Claimed, claimInHold, type LookupReport } from '../lookup/session';
import { DocumentBusyError } from '../platform/errors';
import type { Platform } from '../platform/platform';
import type { Folded, SheetResultStore } from '../store/ports';
import { inRanges } from './blocks';
import { readJobCells } from './columns';
import { finalCounts } from './counting';
import { countsShown, type Job, mayDrive } from './job';
import { cancelledMessage, type JobEvent, transition } from './jobMachine';
import { parseJob } from './jobStore';
import {
  freeEnded,
  giveBack,
  lease,
  liveWindows,
  nextLease,
  others,
  stopWaiting,
  waitForRoom,
  windowOf,
} from './lease';
import { COLUMNS_MOVED, noteEnds, relocate } from './relocate';
import { firstWithoutStatus, writtenResults } from './rowPlan';
import { haltOf } from './runHalt';
import { paceNow, shareNow, splitAtLimit } from './runPace';
import { RunScope } from './runScope';
import { type PlannedWindow, planWindow, type RowAnswer, writeWindow } from './window';

/** The document properties as read in this hold of the lock. */
type Properties = Record<string, string>;

/** What a slice works with, fixed for the slice. */
export interface SliceSetup {
  platform: Platform;
  jobId: string;
  runnerId: string | null;
  /** This slice's token: its window's, and in its sending records. */
  token: string;
  /** The slice's execution has ended by then: its window, claims and records end then too. */
  until: number;
  /** No new window is leased after this (the slice's time budget). */
  deadline: number;
  store: SheetResultStore;
  ports: LookupPorts;
  sheet: SheetPort;
  /** The URL column and the output columns. */
  width: number;
  hosts: NetworkHosts;
  apiKey: string;
  endpoint: string;
  /** ENRICH_BATCH_SIZE: the requests of every batch, fixed; undefined: the run's pace (./runPace.ts). */
  batchSize?: number;
  /** The most requests one fetchAll sends (FETCH_MAX_CONCURRENCY). */
  batchCap: number;
  /** The most slices of the run at once (BULK_SLICES). */
  slices: number;
  cap: number;
  /** Results written in the run's rows, by profile (a duplicate row copies them), read once a slice when needed. */
  written?: Map<string, unknown[]>;
  /** The run's pace after this slice's key check, for its first hold (when the run's pace still knows nothing). */
  keyChecked?: PaceState;
  /** No other slice was at work when this slice leased its last window. */
  leasedAlone?: boolean;
}

/** A window this slice leased, with its batch's claims: sent after the hold, written in the next. */
export interface Leased {
  window: PlannedWindow;
  claimed: Claimed;
  claims: ClaimScope;
  /** Requests of the run at the service when this batch went out (its own included). */
  atService: number;
  /** The slice sent its whole share of the run's pace. */
  wholeShare: boolean;
  sentAt: number;
  /** The run's pace as this batch was sized (undefined: a fixed batch size). */
  pace?: PaceState;
  /** Ms until the first of the other slices' batches may be back (when this one's profiles wait on theirs). */
  othersBackMs: number;
}

/** A leased window after its batch: what came back, to be written in the slice's next hold. */
export interface Sent extends Leased {
  report: LookupReport;
  /** Each fetchAll of the batch, the first its main one (the others retries). */
  samples: BatchSample[];
  /** No batch of the run before this (the service's Retry-After). */
  notBefore: number;
  record?: RecordWrites;
}

export interface Hold {
  /** The job as stored at the end of the hold (null: none, or another run's). */
  job: Job | null;
  /** The next window to send. */
  next?: Leased;
  /** Nothing leased, the run running: ms to wait (pace full, or a Retry-After); undefined: nothing to do here. */
  waitMs?: number;
}

/** One hold of the lock; undefined when the lock stayed busy or LockService refused it (`retried`: a few tries). */
export function holdOnce(
  setup: SliceSetup,
  sent: Sent | undefined,
  takeNext: boolean,
  retried: boolean,
): Hold | undefined {
  const { platform } = setup;
  const work = () => holding(setup, sent, takeNext);
  if (!retried) return platform.lock.tryWith(work)?.value;
  try {
    return platform.lock.withRetried(work);
  } catch (error) {
    if (error instanceof DocumentBusyError) return undefined;
    throw error;
  }
}

function holding(setup: SliceSetup, sent: Sent | undefined, takeNext: boolean): Hold {
  const { platform, store } = setup;
  const now = () => platform.clock.now();
  // What the fold counts for the run is written with it: kept whatever happens later in this hold.
  const { all } = store.fold(platform.documentProperties().getProperties(), (folded, read) =>
    foldedIntoJob(folded, read, now()),
  );
  const stored = parseJob(all[JOB_PROPERTY]);
  if (!stored || stored.id !== setup.jobId) return { job: stored };
  const job: Job = JSON.parse(JSON.stringify(stored));
  if (setup.keyChecked && knowsNothing(paceNow(job.pace, setup.cap, now()))) job.pace = setup.keyChecked;
  setup.keyChecked = undefined;
  const read = rowsReader(setup, job);
  if (sent) writeSent(setup, job, sent, all, read, now());
  // A cancel from the sidebar while slices worked reports what they wrote and spent by their end.
  if (job.state === 'cancelled' && job.reason === 'user') job.message = cancelledMessage(job.counts);
  let hold: Hold = { job };
  if (job.state === 'running' && mayDrive(job, setup.runnerId)) {
    if (takeNext) hold = { job, ...leaseNext(setup, job, all, read) };
    // Out of time after the last row: the pass over the range (one read) still ends the run, never left at 100 %.
    else if ('pass' in (nextLease(job, now()) ?? {})) startNextPass(setup, job, now());
  }
  // The slice leaves the run: the URL cells at its ends as it leaves them (a sort meanwhile changes them).
  const leaves = !hold.next && hold.waitMs === undefined && job.state === 'running';
  // A slice that leaves no longer takes room in the others' shares.
  if (leaves) stopWaiting(job, setup.token);
  if (leaves && sameFrame(setup.sheet, job)) noteEnds(job, setup.sheet);
  job.updatedAt = now();
  if (job.state === 'running') {
    const counts = countsShown(job);
    job.message = `Working: ${counts.processed} of ${counts.total} rows.`;
  }
  platform.documentProperties().setProperties({ [JOB_PROPERTY]: JSON.stringify(job) });
  return hold;
}

/**
 * What a fold did for the run of `job` (in place): its credits counted as the credits log has them, and the
 * windows of its slices that ended without writing them free again.
 */
export function applyFolded(job: Job, folded: Folded, now: number): boolean {
  const mine = folded.byRun.get(job.id);
  if (mine) {
    job.counts.creditsUsed += mine.used;
    job.counts.lookupsFound = (job.counts.lookupsFound ?? 0) + mine.found;
    job.counts.creditsMaybeLost += mine.lost;
  }
  freeEnded(job, folded.endedWindows, now);
  return mine !== undefined || folded.endedWindows.length > 0;
}

/** The fold of another writing execution (the sidebar, a simple trigger) counts for the run too. */
export function foldedIntoJob(folded: Folded, all: Properties, now: number): Properties | undefined {
  const job = parseJob(all[JOB_PROPERTY]);
  if (!job || !applyFolded(job, folded, now)) return undefined;
  return { [JOB_PROPERTY]: JSON.stringify(job) };
}

/**
 * The slice's last window written and given back (only while it is still this slice's, in the run it was leased
 * in: a slice whose lease ended writes nothing), its batch observed in the run's pace, a halt it met applied.
 */
function writeSent(
  setup: SliceSetup,
  job: Job,
  sent: Sent,
  all: Properties,
  read: RowsReader,
  now: number,
): void {
  const held = windowOf(job, setup.token);
  if (!held || held.from !== sent.window.from) return;
  observeBatch(setup, job, sent);
  const { report } = sent;
  const scope = RunScope.ofJob(job);
  // The rows from the cursor come in the same read when the next window starts right after this one.
  const ahead =
    job.cursor === sent.window.to + 1 ? Math.min(MAX_WINDOW_ROWS, job.lastRow - job.cursor + 1) : 0;
  const rows = read(sent.window.from, sent.window.plans.length, ahead);
  // Profiles another execution was looking up when the window was planned: their answers, stored by now.
  const waiting = [...report.heldBy.keys(), ...report.elsewhere].filter((key) => !answerOf(sent, key));
  const late = waiting.length > 0 ? knownAnswers(setup, job, waiting, all) : new Map<string, RowAnswer>();
  const written = writeWindow(setup.sheet, job, sent.window, rows, {
    scope,
    hosts: setup.hosts,
    width: setup.width,
    counts: job.counts,
    answerOf: (key) => answerOf(sent, key) ?? late.get(key),
    waits: (key) => report.heldBy.has(key) || report.elsewhere.includes(key),
  });
  giveBack(job, setup.token, written.left, now);
  if (report.halt && written.left.length > 0) apply(job, { type: 'halt', ...haltOf(report.halt) }, now);
}

/** A row's answer from its window's batch: a result, a final error, or what was known when planned. */
function answerOf(sent: Sent, key: string): RowAnswer | undefined {
  const outcome = sent.report.outcomes.get(key);
  if (outcome && (outcome.kind !== 'error' || outcome.effect === 'continue')) return { outcome };
  const kept = sent.report.alreadyKept.get(key);
  if (kept) return { outcome: kept };
  return sent.window.known.get(key);
}

/** The answers the run takes as they are for these profiles: results stored (as its scope keeps them), copies. */
function knownAnswers(setup: SliceSetup, job: Job, keys: string[], all: Properties): Map<string, RowAnswer> {
  const scope = RunScope.ofJob(job);
  const answers = new Map<string, RowAnswer>();
  for (const [key, cached] of setup.store.lookIn(keys, all))
    if (scope.keepsStored(cached.result, cached.savedAt >= job.startedAt))
      answers.set(key, { outcome: cached.result });
  if (!scope.copiesWritten(job.pass) || (job.pass === 1 && !job.hasDuplicates)) return answers;
  setup.written ??= writtenResults(readRange(setup, job, setup.width), setup.hosts);
  for (const key of keys) {
    const copy = setup.written.get(key);
    if (copy && !answers.has(key)) answers.set(key, { copy });
  }
  return answers;
}

/** The window's batch as the run's pace sees it (a fixed batch size has no pace). */
function observeBatch(setup: SliceSetup, job: Job, sent: Sent): void {
  if (setup.batchSize || sent.samples.length === 0) return;
  let pace = paceNow(job.pace, setup.cap, sent.sentAt);
  const [first, ...retries] = sent.samples;
  // A clean batch of the slice's whole share says the run's pace works, whatever the others had out then.
  const clean = first.failures === 0 && !first.lostBatch;
  const spoke =
    clean && sent.wholeShare && sent.pace ? Math.max(sent.atService, sent.pace.size) : sent.atService;
  pace = observeRun(pace, first, spoke, sent.sentAt, setup.cap);
  for (const retry of retries)
    if (retry.lostBatch) pace = observeRun(pace, retry, retry.size, sent.sentAt, setup.cap);
  // The losses are kept as they were last counted (they fade from the last lost batch whenever read): a batch that
  // lost nothing must not store them faded, or they would fade again from the same time at the next read.
  const lostNone = !sent.samples.some((sample) => sample.lostBatch);
  if (lostNone && job.pace) pace = { ...pace, lost: job.pace.lost, lostAt: job.pace.lostAt };
  const notBefore = Math.max(pace.notBefore ?? 0, sent.notBefore);
  job.pace = notBefore > 0 ? { ...pace, notBefore } : pace;
  const reason = paceReason(pace, setup.cap);
  if (reason) job.paceReason = reason;
  else delete job.paceReason;
}

function apply(job: Job, event: JobEvent, now: number): void {
  Object.assign(job, transition(job, event, now));
}

/**
 * The next window for this slice: a free one, else rows from the cursor planned up to the slice's share of the
 * run's pace, else (no window at all) the pass over the range, which starts the next pass or ends the run.
 */
function leaseNext(setup: SliceSetup, job: Job, all: Properties, read: RowsReader): Omit<Hold, 'job'> {
  const now = setup.platform.clock.now();
  if (!followSheet(setup, job, now)) return {};
  for (let pass = 0; pass <= MAX_PASSES; pass++) {
    const next = nextLease(job, now);
    if (!next) return {};
    if ('pass' in next) {
      if (!startNextPass(setup, job, now)) return {};
      continue;
    }
    const room = roomFor(setup, job, now);
    // The run's pace is full with the other slices' batches, or the service asked to wait: this slice waits, counted
    // among the slices until its time budget ends so that the others' next shares leave it room; it looks again
    // without the lock (./slice.ts).
    if ('waitMs' in room) {
      waitForRoom(job, setup.token, setup.deadline, now);
      return room;
    }
    const { pace, share } = room;
    const free = 'window' in next ? next.window : undefined;
    const from = free?.from ?? job.cursor;
    const count = free ? free.to - free.from + 1 : Math.min(MAX_WINDOW_ROWS, job.lastRow - job.cursor + 1);
    const window = planWindow(read(from, count), from, {
      scope: RunScope.ofJob(job),
      pass: job.pass,
      hosts: setup.hosts,
      share: free ? Number.POSITIVE_INFINITY : share,
      known: (keys) => knownAnswers(setup, job, keys, all),
      owns: (row) => inRanges(job.owns ?? [], row),
    });
    const sized = setup.batchSize ? undefined : { state: pace, share };
    return { next: claimWindow(setup, job, window, all, now, sized) };
  }
  return {};
}

/** The window leased in the job, its profiles claimed and recorded as this slice's batch (in this hold). */
function claimWindow(
  setup: SliceSetup,
  job: Job,
  window: PlannedWindow,
  all: Properties,
  now: number,
  sized?: { state: PaceState; share: number },
): Leased {
  const { ports, until, token } = setup;
  const claims = claimScope(ports.cache);
  const claimed = claimInHold(ports, {
    keys: [...window.wanted.keys()],
    value: BULK_CLAIM,
    claims,
    untilMs: until,
    keepsStored: keepsStoredOf(job),
    window: token,
    all,
  });
  const n = claimed.first?.first.length ?? 0;
  const company = others(job, token, now);
  const atService = company.atService + n;
  setup.leasedAlone = company.working === 0;
  const pace = paceNow(job.pace, setup.cap, now);
  lease(job, { from: window.from, to: window.to, token, until, n, at: now }, now);
  return {
    window,
    claimed,
    claims,
    atService,
    wholeShare: sized !== undefined && n >= sized.share,
    sentAt: now,
    pace: sized?.state,
    othersBackMs: roomWaitMs(firstBackMs(job, token, pace, now)),
  };
}

/**
 * Room for this slice's batch in the run's pace now: its share, or the ms to wait (the pace full with the other
 * slices' batches: until the first of them may be back; or the service's Retry-After).
 */
function roomFor(
  setup: SliceSetup,
  job: Job,
  now: number,
): { pace: PaceState; share: number } | { waitMs: number } {
  const pace = paceNow(job.pace, setup.cap, now);
  const wait = Math.max(0, (pace.notBefore ?? 0) - now);
  const company = others(job, setup.token, now);
  // Alone since its last batch went out, no slice came meanwhile (a lone driver): the whole pace is this slice's.
  const split = setup.leasedAlone && company.working === 0 ? 1 : splitAtLimit(pace, setup.cap, setup.slices);
  const share = setup.batchSize ?? shareNow(pace, setup.batchCap, company, split);
  if (wait <= 0 && share >= 1) return { pace, share };
  return { waitMs: Math.max(wait, roomWaitMs(firstBackMs(job, setup.token, pace, now))) };
}

/** A wait for the other slices' batches, at least MIN_ROOM_WAIT_MS and at most MAX_ROOM_WAIT_MS. */
function roomWaitMs(firstBackMs: number): number {
  return Math.min(MAX_ROOM_WAIT_MS, Math.max(MIN_ROOM_WAIT_MS, firstBackMs));
}

/**
 * A waiting slice's look at its run without the lock (one property read): the ms to wait more while the pace has no
 * room for it yet; undefined when it should hold the lock now (room, or the run changed: the hold finds out what).
 */
export function lookForRoom(setup: SliceSetup): number | undefined {
  const job = parseJob(setup.platform.documentProperties().getProperty(JOB_PROPERTY));
  const now = setup.platform.clock.now();
  if (!job || job.id !== setup.jobId || job.state !== 'running' || !nextLease(job, now)) return undefined;
  const room = roomFor(setup, job, now);
  return 'waitMs' in room ? room.waitMs : undefined;
}

/**
 * Ms until the first of the other slices' batches may be back: sent a batch's fastest time ago (half of it when no
 * window says when it was sent).
 */
function firstBackMs(job: Job, token: string, pace: PaceState, now: number): number {
  const sent = liveWindows(job, now).flatMap((window) =>
    window.token !== token && window.n && window.at !== undefined ? [window.at] : [],
  );
  return sent.length > 0 ? Math.min(...sent) + pace.fastestMs - now : pace.fastestMs / 2;
}

/** The stored results the run takes as they are (a re-check and a retry buy some of those stored before it again). */
export function keepsStoredOf(job: Job): KeepsStored {
  const scope = RunScope.ofJob(job);
  return (result, savedAt) => scope.keepsStored(result, savedAt >= job.startedAt);
}

/**
 * Rows or columns inserted or deleted since the job's frame was noted: followed only when no other slice holds a
 * window (their rows would move under them); true when the job is where the sheet is now.
 */
function followSheet(setup: SliceSetup, job: Job, now: number): boolean {
  const { sheet } = setup;
  if (sameFrame(sheet, job)) return true;
  if (liveWindows(job, now).some((window) => window.token !== setup.token)) return false;
  const starts = (job.windows ?? []).map((window) => window.from).filter((from) => from <= job.lastRow);
  job.cursor = Math.min(job.cursor, ...starts);
  job.windows = [];
  job.leaseUntil = 0;
  const before = { first: job.firstRow, last: job.lastRow };
  if (relocate(job, sheet, setup.width)) {
    job.owns = movedWith(job.owns, before, job);
    return true;
  }
  apply(job, { type: 'halt', reason: 'sheet_changed', message: COLUMNS_MOVED }, now);
  return false;
}

/** The rows a run owns, moved as its own rows moved (all of them, or its end when rows went in or out inside). */
function movedWith(
  owns: Job['owns'],
  before: { first: number; last: number },
  job: Pick<Job, 'firstRow' | 'lastRow'>,
): Job['owns'] {
  const shift = job.firstRow - before.first;
  const grown = job.lastRow - before.last - shift;
  return owns?.map(([first, last]): [number, number] => [
    first + shift,
    last + shift + (last >= before.last ? grown : 0),
  ]);
}

/**
 * After the last row, no window left: one read of the whole range finds rows still without a result (they moved
 * during the run, or were inserted): the next pass starts at the first, else the run is done (false).
 */
function startNextPass(setup: SliceSetup, job: Job, now: number): boolean {
  const values = readRange(setup, job, Math.min(setup.width, CELL.status + 1));
  const pendingIndex = firstWithoutStatus(values);
  // Retry failed rows has one pass: rows without a status are not its to fill.
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

/** The job's cells (URL and output, formulas as the person's data) at `from`, `count` rows, with `ahead` more. */
type RowsReader = (from: number, count: number, ahead?: number) => unknown[][];

/** Reads the job's cells for one hold: a read that brought rows ahead serves the next window's plan. */
function rowsReader(setup: SliceSetup, job: Job): RowsReader {
  let block: { from: number; rows: unknown[][] } | undefined;
  return (from, count, ahead = 0) => {
    if (block && from >= block.from && from + count <= block.from + block.rows.length)
      return block.rows.slice(from - block.from, from - block.from + count);
    const rows = readJobCells(setup.sheet, job, from, count + ahead, setup.width, true);
    block = { from, rows };
    return rows.slice(0, count);
  };
}

function readRange(setup: SliceSetup, job: Job, width: number): unknown[][] {
  const rows = job.lastRow - job.firstRow + 1;
  return rows > 0 ? readJobCells(setup.sheet, job, job.firstRow, rows, width) : [];
}

/** The sheet's size is the job's frame: no row or column inserted or deleted since it was noted. */
function sameFrame(sheet: SheetPort, job: Job): boolean {
  return sheet.maxRows() === job.maxRows && sheet.maxColumns() === job.maxColumns;
}
