/**
 * The sending step of the lookup session (./session.ts): the claimed keys, recorded as one batch in the claim
 * step's hold of the lock, sent in fetchAlls through one retry scheduler; each fetchAll's answers kept in the
 * sending record (by the sender alone, without the lock) before their claims are released. It reaches Apps Script
 * only through the ports, so it runs in unit tests with plain objects.
 */

import { EXECUTION_LIMIT_MS, RATE_LIMITED_ATTEMPTS } from '../core/limits';
import { haltsRun, mayRetry } from './answers';
import type { ClaimScope } from './claims';
import type {
  BatchSample,
  BatchSizer,
  Clock,
  KeepsStored,
  LookupPorts,
  RecordWrites,
  SendBudget,
  SendCheck,
} from './ports';
import { type LookupOutcome, type LookupResult, lostAnswer, type ServiceError } from './result';
import { type RetryPolicy, retryDelayMs } from './retry';

/**
 * Under the document lock, with the claims: the store's check of the claimed keys, which records the sendable ones
 * as this execution's batch (the first fetchAll's at the service, the rest claimed for later), until the claims end.
 */
export function beginSend(
  ports: LookupPorts,
  request: Pick<SendRequest, 'holdSeconds' | 'keepsStored' | 'window'>,
  keys: string[],
  firstSize: number,
  all?: Readonly<Record<string, string>>,
): SendCheck {
  const holdMs = (request.holdSeconds ?? EXECUTION_LIMIT_MS / 1000) * 1000;
  return ports.store.beginSend({
    urlKeys: keys,
    untilMs: ports.clock.now() + holdMs,
    keepsStored: request.keepsStored,
    window: request.window,
    all,
    first: (sendable) => sendable.slice(0, Math.max(1, firstSize)),
  });
}

/** A batch the store recorded: the first fetchAll's keys, and the record its sender writes without the lock. */
export interface Confirmed {
  send: string[];
  record?: RecordWrites;
}

/**
 * What the store's check of the claimed keys (beginSend) means for the queue: keys stored meanwhile settle with
 * their result; keys another execution holds, or that the store could not keep now, leave the queue unsent.
 */
export function settleCheck({ queue, report, claims }: Sending, check: SendCheck): Confirmed {
  for (const [key, result] of check.stored) report.alreadyKept.set(key, result);
  report.unsaved.push(...check.full);
  report.elsewhere.push(...check.elsewhere);
  const settled = [...check.stored.keys(), ...check.full];
  const dropped = new Set([...settled, ...check.elsewhere]);
  if (dropped.size > 0) {
    // Only the keys settled here are released: a key another execution sends may carry its claim.
    claims.release(settled);
    queue.keys = queue.keys.filter((key) => !dropped.has(key));
  }
  return { send: check.first, record: check.record };
}

/** What a lookup came to (./session.ts), noted as it goes: the claim step's part, then each batch's. */
export interface LookupReport {
  /** By normalised URL: the last outcome of every key sent, and what gates said of keys they refused. */
  outcomes: Map<string, LookupOutcome>;
  /** Keys found stored by another execution (in the claim step, or right before their batch): no credit spent. */
  alreadyKept: Map<string, LookupResult>;
  /** Keys claimed by another execution, by the claim's value: not sent here. */
  heldBy: Map<string, string>;
  /** Keys another execution was sending when their batch was due (its claim had vanished): not sent here. */
  elsewhere: string[];
  /** Keys not claimed now: a gate asked to wait, or past the claims one call may take. */
  blocked: string[];
  /** Keys not sent because the result store could not keep their results now. */
  unsaved: string[];
  /** The first answer that halts the run (401, 402, 404, quota), if any: nothing was sent after it. */
  halt?: ServiceError;
  /** A gate's word that ended the lookup, before the claims or before a batch: nothing was sent after it. */
  stop?: ServiceError;
  /** The claim step's lock stayed busy (`lockRefused`: LockService refused it, its quota): nothing was sent. */
  lockBusy: boolean;
  lockRefused: boolean;
  requestsSent: number;
  /** Requests whose answer was lost to a connection failure: the service may have charged each (kept as such). */
  lostAnswers: number;
}

/** The report of a lookup before anything happened. */
export function emptyReport(): LookupReport {
  return {
    outcomes: new Map(),
    alreadyKept: new Map(),
    heldBy: new Map(),
    elsewhere: [],
    blocked: [],
    unsaved: [],
    lockBusy: false,
    lockRefused: false,
    requestsSent: 0,
    lostAnswers: 0,
  };
}

export interface SendRequest {
  /** Normalised URL -> the URL as the user wrote it (what the service gets). This caller holds their claims. */
  claimed: Map<string, string>;
  apiKey: string;
  endpoint: string;
  retry: RetryPolicy;
  batchSize: BatchSizer;
  budget: SendBudget;
  /**
   * How long the record of a batch being sent keeps others from sending its keys if this execution dies: as long as
   * the claims (FORMULA_CLAIM_SECONDS; a bulk slice's until its execution has ended). Default: an execution's limit.
   */
  holdSeconds?: number;
  /** Stored results older than this do not count (a re-check run looks them up again). */
  keepsStored?: KeepsStored;
  /** A bulk slice's window token, kept in its sending record. */
  window?: string;
  /** Before each batch but the first (the claim step checked for it): an error that ends the sending. */
  beforeBatch?(): ServiceError | undefined;
  /** After each batch went out. */
  afterBatch?(batch: BatchReport): void;
}

/** One batch that went out. */
export interface BatchReport {
  /** Charged results of the batch, now in the store. */
  stored: Array<[string, LookupResult]>;
  halt?: ServiceError;
}

/** The scheduler's queue: keys waiting to be sent, with their tries and the earliest time of their next try. */
export interface Queue {
  keys: string[];
  tries: Map<string, number>;
  notBefore: Map<string, number>;
  /** No batch before this (epoch ms): the longest Retry-After answered so far. */
  retryAfterUntil: number;
}

/** A sending under way: the claimed keys not settled yet, what was sent, the claims (released as keys settle). */
export interface Sending {
  readonly queue: Queue;
  readonly report: LookupReport;
  readonly claims: ClaimScope;
  /** The sending record, written by this sender alone. */
  record?: RecordWrites;
}

/** The claimed keys queued, noted in `report`; no batch before the Retry-After the sizer still holds. */
export function startSending(request: SendRequest, claims: ClaimScope, report = emptyReport()): Sending {
  const retryAfterUntil = request.batchSize.notBefore?.() ?? 0;
  const keys = [...request.claimed.keys()];
  const queue: Queue = { keys, tries: new Map(), notBefore: new Map(), retryAfterUntil };
  return { claims, report, queue };
}

/**
 * Sends batches of the queue (the request's size) until every key is settled, a halt, a gate or the budget ends
 * the sending. `first`: the first batch, recorded by the claim step; later ones go to the service through the
 * batch's own record, without the lock. The claims of keys left queued stay held: `endSending` releases them.
 */
export function sendBatches(
  ports: LookupPorts,
  request: SendRequest,
  sending: Sending,
  first: Confirmed,
): void {
  const { queue, report } = sending;
  sending.record = first.record;
  let keys: string[] | undefined = first.send;
  while (queue.keys.length > 0 && !report.halt && !report.stop) {
    if (!keys) {
      const batch = nextBatch(ports.clock, queue, request, report.requestsSent === 0);
      if (!batch) break;
      report.stop = request.beforeBatch?.();
      if (report.stop) break;
      sending.record?.toService(batch);
      keys = batch;
    } else {
      // A batch the claim step confirmed still waits for a Retry-After kept from earlier.
      const wait = queue.retryAfterUntil - ports.clock.now();
      if (wait > 0) ports.clock.sleep(wait);
    }
    if (keys.length > 0) {
      const batch = sendOneBatch(ports, sending, request, keys);
      request.afterBatch?.(batch);
    }
    keys = undefined;
  }
}

/**
 * Releases the claims of the keys left unsent. Left unsent by the budget after a 429 (the service asked for them
 * later): no outcome, so no ERROR row; a later run sends them. Other failures left unsent keep theirs (such a row is
 * ERROR once).
 */
export function endSending({ queue, report, claims, record }: Sending): LookupReport {
  record?.drop(queue.keys);
  claims.release(queue.keys);
  for (const key of queue.keys)
    if ((report.outcomes.get(key) as ServiceError)?.error === 'rate_limited') report.outcomes.delete(key);
  queue.keys = [];
  return report;
}

/**
 * The keys of the next batch, after waiting for their retry time (and a Retry-After); undefined when the budget
 * ends the sending.
 */
function nextBatch(clock: Clock, queue: Queue, request: SendRequest, first: boolean): string[] | undefined {
  for (;;) {
    const now = clock.now();
    const { retryAfterUntil } = queue;
    const ready =
      now >= retryAfterUntil ? queue.keys.filter((key) => (queue.notBefore.get(key) ?? 0) <= now) : [];
    if (ready.length > 0) {
      if (!request.budget.mayStart(now, 0, first)) return undefined;
      return ready.slice(0, Math.max(1, request.batchSize.next()));
    }
    const soonest = Math.min(...queue.keys.map((key) => queue.notBefore.get(key) ?? now));
    const wait = Math.max(retryAfterUntil, soonest) - now;
    if (!request.budget.mayStart(now, wait, first)) return undefined;
    clock.sleep(wait);
  }
}

function sendOneBatch(
  ports: LookupPorts,
  { queue, report, claims, record }: Sending,
  request: SendRequest,
  batch: string[],
): BatchReport {
  const started = ports.clock.now();
  const sent = ports.transport.sendBatch(
    batch.map((key) => request.claimed.get(key) ?? key),
    { apiKey: request.apiKey, endpoint: request.endpoint },
  );
  const ended = ports.clock.now();
  report.requestsSent += sent.sent;
  if (sent.lost) report.lostAnswers += batch.length;
  const tally: BatchTally = { stored: [], settled: [], failures: 0, throttled: 0 };
  const context = { queue, request, report, tally, lost: sent.lost, ended };
  for (const [index, key] of batch.entries()) takeAnswer(context, key, sent.outcomes[index]);
  const { stored, settled, failures, throttled } = tally;
  const sample: BatchSample = {
    size: batch.length,
    durationMs: ended - started,
    failures,
    lostBatch: sent.lost,
    throttled,
    endedAt: ended,
  };
  request.budget.observe(sample);
  request.batchSize.observe(sample);
  // Charged results and lost answers kept (the keys out of the record) before their claims are released.
  const requeued = batch.filter((key) => !settled.includes(key));
  record?.keep(batch, stored, requeued);
  claims.release(settled);
  queue.keys = queue.keys.filter((key) => !settled.includes(key));
  return { stored, halt: report.halt };
}

/** What one batch's answers come to: stored results, settled keys, failures. */
interface BatchTally {
  stored: Array<[string, LookupResult]>;
  settled: string[];
  failures: number;
  throttled: number;
}

interface AnswerContext {
  queue: Queue;
  request: SendRequest;
  report: LookupReport;
  tally: BatchTally;
  /** fetchAll threw for the batch: every answer of it was lost (the service may have charged them). */
  lost: boolean;
  ended: number;
}

/**
 * One key's answer: noted in the report, then queued again (retryable, tries left) or settled. An answer lost on the
 * way is kept as one (the service may have charged it): never sent again unasked.
 */
function takeAnswer(context: AnswerContext, key: string, answer: LookupOutcome | undefined): void {
  const { queue, request, report, tally, lost, ended } = context;
  const outcome = lost && answer?.kind === 'error' ? lostAnswer(answer.message) : answer;
  const attempt = (queue.tries.get(key) ?? 0) + 1;
  queue.tries.set(key, attempt);
  if (outcome) report.outcomes.set(key, outcome);
  if (haltsRun(outcome)) report.halt = report.halt ?? outcome;
  if (mayRetry(outcome)) tally.failures++;
  // 429 or 5xx: the service is overloaded or limiting.
  if (mayRetry(outcome) && (outcome as ServiceError).status) tally.throttled++;
  const after = outcome?.kind === 'error' ? (outcome.retryAfterMs ?? 0) : 0;
  if (after > 0) {
    queue.retryAfterUntil = Math.max(queue.retryAfterUntil, ended + after);
    request.batchSize.hold?.(queue.retryAfterUntil);
  }
  const tries =
    (outcome as ServiceError)?.error === 'rate_limited' ? RATE_LIMITED_ATTEMPTS : request.retry.maxAttempts;
  if (mayRetry(outcome) && attempt < tries) {
    const backoff = retryDelayMs(request.retry, attempt + 1);
    queue.notBefore.set(key, ended + Math.max(backoff, after));
    return;
  }
  if (outcome && outcome.kind !== 'error') tally.stored.push([key, outcome]);
  tally.settled.push(key);
}
