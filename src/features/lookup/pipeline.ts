/**
 * The one lookup pipeline of =FINDEMAIL and the bulk run: claim (under the document lock) → look in the result
 * store → send (one retry scheduler) → store → release → report. It reaches Apps Script only through the ports,
 * so it runs in unit tests with plain objects; src/adapters wires the real services (`servicePorts`).
 */
import { haltsRun, mayRetry } from '../../core/answers';
import type { LookupOutcome, LookupResult, ServiceError } from '../../core/lookup';
import type { BatchSizer, Clock, DocumentCache, LookupPorts, SendBudget } from '../../core/ports';

export type { LookupPorts };

import { claimKey, putClaims, readClaims, releaseClaims } from '../../core/claims';
import { EXECUTION_LIMIT_MS, MAX_CLAIMS_AT_ONCE } from '../../core/limits';
import { type RetryPolicy, retryDelayMs } from '../../core/retry';

export interface ClaimRequest {
  /** Normalised URLs without a known result. */
  keys: string[];
  /** The claim's value (FORMULA_CLAIM, BULK_CLAIM) and how long it lives. */
  value: string;
  seconds: number;
  /** The lock is not waited for past this. */
  deadline?: number;
  /** Cache keys read together with the claims (markers), handed to `admit`. */
  markers?: string[];
  /** Under the lock, after the claims were read: of these unclaimed keys, the ones now in the result store. */
  inStore(unclaimed: string[]): Set<string>;
  /**
   * Under the lock, always called: whether the free keys may be claimed now ('claim'), claimed by a caller that
   * first sends a single request ('probe', =FINDEMAIL's account check; it puts its own marker), or not at all
   * ('block'). May throw (a halt marker).
   */
  admit?(markers: Record<string, string>, free: string[]): 'claim' | 'probe' | 'block';
}

export interface Claimed {
  /** Claimed by this caller: it sends them. */
  mine: string[];
  /** Claimed by someone else, by the claim's value. */
  heldBy: Map<string, string>;
  /** Free, but not admitted now (or past MAX_CLAIMS_AT_ONCE: claimed on a later call). */
  blocked: string[];
  /** Free, but more than the result store can keep now (a formula's buffer is full): not claimed. */
  unsaved: string[];
  probing: boolean;
}

/**
 * Claims the keys neither in the store nor claimed by anyone. Results are stored before their claim is released,
 * so a key seen unclaimed here is either in the store read after it or really unknown: no two executions pay
 * for one URL. Undefined when the lock stayed busy. Without a document cache nothing is claimed.
 */
export function claimUnknown(ports: LookupPorts, request: ClaimRequest): Claimed | undefined {
  const { cache } = ports;
  if (!cache) {
    const known = request.inStore(request.keys);
    const free = request.keys.filter((key) => !known.has(key));
    return { ...withinRoom(ports, free), heldBy: new Map(), probing: false };
  }
  return ports.lock.tryWith(() => claimHoldingLock(ports, cache, request), request.deadline)?.value;
}

/** Of the free keys: the ones claimed now, the ones left for a later call, the ones the store cannot keep now. */
function withinRoom(ports: LookupPorts, free: string[]): Pick<Claimed, 'mine' | 'blocked' | 'unsaved'> {
  const fits = Math.max(0, Math.min(free.length, ports.store.room?.() ?? free.length));
  const now = Math.min(fits, MAX_CLAIMS_AT_ONCE);
  return { mine: free.slice(0, now), blocked: free.slice(now, fits), unsaved: free.slice(fits) };
}

function claimHoldingLock(ports: LookupPorts, cache: DocumentCache, request: ClaimRequest): Claimed {
  const markers = readClaims(cache, request.keys, request.markers ?? []);
  const claimOf = (key: string) => markers[claimKey(key)];
  const heldBy = new Map<string, string>();
  const unclaimed: string[] = [];
  for (const key of request.keys) {
    const holder = claimOf(key);
    if (holder) heldBy.set(key, holder);
    else unclaimed.push(key);
  }
  const known = request.inStore(unclaimed);
  const free = unclaimed.filter((key) => !known.has(key));
  const room = withinRoom(ports, free);
  const admitted = request.admit ? request.admit(markers, room.mine) : 'claim';
  if (admitted === 'block')
    return {
      mine: [],
      heldBy,
      blocked: [...room.mine, ...room.blocked],
      unsaved: room.unsaved,
      probing: false,
    };
  putClaims(cache, room.mine, request.value, request.seconds);
  return { ...room, heldBy, probing: admitted === 'probe' };
}

/**
 * Right before a batch goes out, under the document lock: the store is read again and the batch recorded as
 * being sent (ResultStore.beginSend). Keys stored meanwhile settle with their result; keys another execution is
 * sending, or that the store could not keep now, leave the queue unsent. Undefined when the lock stayed busy.
 */
function confirmBatch(
  ports: LookupPorts,
  request: SendRequest,
  queue: Queue,
  report: SendReport,
  batch: string[],
): { send: string[]; sending?: string } | undefined {
  const { store } = ports;
  if (!store.beginSend) return { send: batch };
  const holdMs = (request.holdSeconds ?? EXECUTION_LIMIT_MS / 1000) * 1000;
  const until = ports.clock.now() + holdMs;
  const check = ports.lock.tryWith(
    () => store.beginSend?.(batch, until, request.storedSince),
    request.budget.resendDeadline(),
  )?.value;
  if (!check) return undefined;
  for (const [key, result] of check.stored) report.alreadyKept?.set(key, result);
  report.unsaved?.push(...check.full);
  report.elsewhere?.push(...check.elsewhere);
  const dropped = new Set([...check.stored.keys(), ...check.elsewhere, ...check.full]);
  if (dropped.size > 0) {
    // Only the keys settled here are released: a key another execution sends may carry its claim.
    releaseClaims(ports.cache, [...check.stored.keys(), ...check.full]);
    queue.keys = queue.keys.filter((key) => !dropped.has(key));
  }
  return { send: check.send, sending: check.sending };
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
   * How long the record of a batch being sent keeps others from sending its keys if this execution dies:
   * as long as the claims (FORMULA_CLAIM_SECONDS, BULK_CLAIM_SECONDS). Default: an execution's limit.
   */
  holdSeconds?: number;
  /** Stored results older than this do not count (a re-check run looks them up again). */
  storedSince?: number;
  /** Before each batch goes out (=FINDEMAIL re-reads the halt marker); may throw. */
  beforeBatch?(): void;
  /** After each batch was stored and its settled keys released, before a halt ends the sending. */
  afterBatch?(batch: BatchReport): void;
}

export interface BatchReport {
  /** Charged results of the batch, now in the store. */
  stored: Array<[string, LookupResult]>;
  halt?: ServiceError;
}

export interface SendReport {
  /** By normalised URL: the last outcome of every key sent. Keys missing here were never sent. */
  outcomes: Map<string, LookupOutcome>;
  /** The first answer that halts the run (401, 402, 404, quota), if any: nothing was sent after it. */
  halt?: ServiceError;
  requestsSent: number;
  /** Keys not sent because the result store could not keep their results now (a formula's buffer is full). */
  unsaved?: string[];
  /** Keys found in the store right before their batch went out (another execution paid): no credit spent. */
  alreadyKept?: Map<string, LookupResult>;
  /** Keys another execution was sending when their batch was due (its claim had vanished): not sent here. */
  elsewhere?: string[];
}

/** The scheduler's queue: keys waiting to be sent, with their tries and the earliest time of their next try. */
interface Queue {
  keys: string[];
  tries: Map<string, number>;
  notBefore: Map<string, number>;
}

/**
 * Sends the claimed keys in batches (the BatchSizer's size), storing the charged results and releasing the
 * settled keys' claims after every batch, so what was paid for is kept even if the execution is ended later.
 * Retryable failures go again in a later batch after the retry policy's delay, while the budget allows.
 * Claims of keys left unsent are released at the end.
 */
export function sendClaimed(ports: LookupPorts, request: SendRequest): SendReport {
  const queue: Queue = { keys: [...request.claimed.keys()], tries: new Map(), notBefore: new Map() };
  const report: SendReport = {
    outcomes: new Map(),
    requestsSent: 0,
    unsaved: [],
    alreadyKept: new Map(),
    elsewhere: [],
  };
  try {
    while (queue.keys.length > 0 && !report.halt) {
      const batch = nextBatch(ports.clock, queue, request, report.requestsSent === 0);
      if (!batch) break;
      request.beforeBatch?.();
      const confirmed = confirmBatch(ports, request, queue, report, batch);
      if (!confirmed) break;
      if (confirmed.send.length > 0) sendOneBatch(ports, queue, request, report, confirmed);
    }
  } finally {
    releaseClaims(ports.cache, queue.keys);
  }
  return report;
}

/** The keys of the next batch, after waiting for their retry time; undefined when the budget ends the sending. */
function nextBatch(clock: Clock, queue: Queue, request: SendRequest, first: boolean): string[] | undefined {
  for (;;) {
    const now = clock.now();
    const ready = queue.keys.filter((key) => (queue.notBefore.get(key) ?? 0) <= now);
    if (ready.length > 0) {
      if (!request.budget.mayStart(now, 0, first)) return undefined;
      return ready.slice(0, Math.max(1, request.batchSize.next()));
    }
    const wait = Math.min(...queue.keys.map((key) => queue.notBefore.get(key) ?? now)) - now;
    if (!request.budget.mayStart(now, wait, first)) return undefined;
    clock.sleep(wait);
  }
}

function sendOneBatch(
  ports: LookupPorts,
  queue: Queue,
  request: SendRequest,
  report: SendReport,
  { send: batch, sending }: { send: string[]; sending?: string },
): void {
  const started = ports.clock.now();
  const sent = ports.transport.sendBatch(
    batch.map((key) => request.claimed.get(key) ?? key),
    { apiKey: request.apiKey, endpoint: request.endpoint, deadline: request.budget.resendDeadline() },
  );
  report.requestsSent += sent.sent;
  const stored: Array<[string, LookupResult]> = [];
  const settled: string[] = [];
  let failures = 0;
  batch.forEach((key, index) => {
    const outcome = sent.outcomes[index];
    const attempt = (queue.tries.get(key) ?? 0) + 1;
    queue.tries.set(key, attempt);
    if (outcome) report.outcomes.set(key, outcome);
    if (haltsRun(outcome)) report.halt = report.halt ?? outcome;
    if (mayRetry(outcome)) failures++;
    if (mayRetry(outcome) && attempt < request.retry.maxAttempts) {
      queue.notBefore.set(key, ports.clock.now() + retryDelayMs(request.retry, attempt + 1));
      return;
    }
    if (outcome && outcome.kind !== 'error') stored.push([key, outcome]);
    settled.push(key);
  });
  const sample = { size: batch.length, durationMs: ports.clock.now() - started, failures };
  request.budget.observe(sample);
  request.batchSize.observe(sample);
  // Charged results are stored (ending the batch's sending record) before their claims are released.
  ports.store.putMany(stored, sending);
  releaseClaims(ports.cache, settled);
  queue.keys = queue.keys.filter((key) => !settled.includes(key));
  request.afterBatch?.({ stored, halt: report.halt });
}
