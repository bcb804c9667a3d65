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
  /** Free, but not admitted now. */
  blocked: string[];
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
    const mine = request.keys.filter((key) => !known.has(key));
    return { mine, heldBy: new Map(), blocked: [], probing: false };
  }
  return ports.lock.tryWith(() => claimHoldingLock(cache, request), request.deadline)?.value;
}

function claimHoldingLock(cache: DocumentCache, request: ClaimRequest): Claimed {
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
  const admitted = request.admit ? request.admit(markers, free) : 'claim';
  if (admitted === 'block') return { mine: [], heldBy, blocked: free, probing: false };
  putClaims(cache, free, request.value, request.seconds);
  return { mine: free, heldBy, blocked: [], probing: admitted === 'probe' };
}

export interface SendRequest {
  /** Normalised URL -> the URL as the user wrote it (what the service gets). This caller holds their claims. */
  claimed: Map<string, string>;
  apiKey: string;
  endpoint: string;
  retry: RetryPolicy;
  batchSize: BatchSizer;
  budget: SendBudget;
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
  const report: SendReport = { outcomes: new Map(), requestsSent: 0 };
  try {
    while (queue.keys.length > 0 && !report.halt) {
      const batch = nextBatch(ports.clock, queue, request, report.requestsSent === 0);
      if (!batch) break;
      request.beforeBatch?.();
      sendOneBatch(ports, queue, request, report, batch);
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
  batch: string[],
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
  // Charged results are stored before their claims are released.
  ports.store.putMany(stored);
  releaseClaims(ports.cache, settled);
  queue.keys = queue.keys.filter((key) => !settled.includes(key));
  request.afterBatch?.({ stored, halt: report.halt });
}
