/**
 * The sending step (src/lookup/pipeline.ts) over plain objects: a transport that answers by script on the fake clock,
 * a store that records its writes, claims in a cache in memory. Each charged answer stored once and before its
 * claim is released, retries after their backoff or Retry-After, a halt that ends the sending, an answer lost on
 * the way kept as such and never sent again, keys another execution paid for never sent.
 */

import { DEFAULT_RETRY, EXECUTION_LIMIT_MS, RATE_LIMITED_ATTEMPTS } from '../../src/core/limits';
import { fixedBatchSize, sliceBudget } from '../../src/lookup/budget';
import { claimKey, claimScope } from '../../src/lookup/claims';
import {
  beginSend,
  endSending,
  type LookupReport,
  type SendRequest,
  sendBatches,
  settleCheck,
  startSending,
} from '../../src/lookup/pipeline';
import type { BatchSizer, KeepsStored, LookupPorts, SendBudget, SentBatch } from '../../src/lookup/ports';
import {
  type LookupOutcome,
  type LookupResult,
  lostAnswer,
  serviceError,
  unusableAnswer,
} from '../../src/lookup/result';
import { memoryCache, testClock } from '../support/platform';
import { found } from '../support/results';
import { type MemoryStore, memoryStore, sendCheck } from './memoryStore';

const server = serviceError('server_error', 'The service failed (HTTP 500).', {
  status: 500,
  retryable: true,
});
const payment = serviceError('payment_required', 'Out of credits (HTTP 402).', {
  status: 402,
  effect: 'pause',
});
const badUrl = serviceError('bad_request', 'The service did not accept this profile URL (HTTP 400).', {
  status: 400,
});
const reset = serviceError('transport', 'The service could not be reached (reset).', { retryable: true });
function tooMany(retryAfterMs?: number) {
  return {
    ...serviceError('rate_limited', 'Too many requests (HTTP 429).', { status: 429, retryable: true }),
    retryAfterMs,
  };
}

/** What the service answers a URL on its n-th request (1 first); 'lost' loses the whole batch. */
type Script = (url: string, n: number) => LookupOutcome | 'lost';

/**
 * A world of plain objects: `events` records store writes and claim releases in order; `requests` counts the
 * requests per URL (each a credit when answered with a result).
 */
function world(keys: string[], script: Script, options: { batchMs?: number; budget?: SendBudget } = {}) {
  const clock = testClock();
  const events: string[] = [];
  const cacheEntries = new Map<string, string>();
  const cache = memoryCache(cacheEntries, (call, names) => {
    if (call === 'removeAll') events.push(`release ${names.length}`);
  });
  const requests = new Map<string, number>();
  const batches: string[][] = [];
  const stored: Array<[string, LookupResult]> = [];
  const lostWrites: string[][] = [];
  const store = memoryStore((call) => events.push(call));
  // What each keep stored (lost answers among them), and its lost answers, in order.
  const keep = store.beginSend;
  store.beginSend = (ask) => {
    const check = keep(ask);
    const record = check.record;
    if (record)
      check.record = {
        ...record,
        keep(sent, results, requeued) {
          record.keep(sent, results, requeued);
          stored.push(...results);
          const lost = results.filter(([, result]) => result.kind === 'unusable' && result.lost);
          if (lost.length > 0) lostWrites.push(lost.map(([key]) => key));
        },
      };
    return check;
  };
  const sleeps: number[] = [];
  const baseSleep = clock.sleep;
  clock.sleep = (ms: number) => {
    sleeps.push(ms);
    baseSleep(ms);
  };
  const ports = {
    cache,
    clock,
    lock: { tryWith: <T>(work: () => T) => ({ value: work() }) },
    store,
    transport: {
      sendBatch: (urls: string[]): SentBatch => {
        batches.push(urls);
        const answers = urls.map((url) => {
          const n = (requests.get(url) ?? 0) + 1;
          requests.set(url, n);
          return script(url, n);
        });
        clock.sleep(options.batchMs ?? 400);
        if (answers.includes('lost'))
          return { outcomes: urls.map(() => reset), sent: urls.length, lost: true };
        return { outcomes: answers as LookupOutcome[], sent: urls.length, lost: false };
      },
    },
  } as unknown as LookupPorts;
  const holds: number[] = [];
  const sizer: BatchSizer = { ...fixedBatchSize(10), hold: (until) => holds.push(until) };
  const request: SendRequest = {
    claimed: new Map(keys.map((key) => [key, `https://www.${key}`])),
    apiKey: 'key-of-ann-123',
    endpoint: 'https://api.test/api/v1/network_finder',
    retry: DEFAULT_RETRY,
    batchSize: sizer,
    budget: options.budget ?? sliceBudget(clock.now() + 120_000),
  };
  const claims = claimScope(cache);
  claims.put(keys, '1', 30);
  const run = (): LookupReport => {
    const sending = startSending(request, claims);
    const check = beginSend(ports, request, keys, request.batchSize.next());
    sendBatches(ports, request, sending, settleCheck(sending, check));
    return endSending(sending);
  };
  const claimsHeld = () => keys.filter((key) => cacheEntries.has(claimKey(key)));
  return {
    ports,
    store,
    clock,
    events,
    requests,
    batches,
    stored,
    lostWrites,
    sleeps,
    holds,
    request,
    claims,
    run,
    claimsHeld,
  };
}

const A = 'network.com/in/ann';
const B = 'network.com/in/bob';
const C = 'network.com/in/cat';

describe('sendBatches', () => {
  it('sends each key once, stores every result, then releases the claims', () => {
    const w = world([A, B, C], (url) => found(`${url.slice(-3)}@acme.test`));
    const report = w.run();
    expect(w.batches).toHaveLength(1);
    expect(report.requestsSent).toBe(3);
    expect(w.stored.map(([key]) => key)).toEqual([A, B, C]);
    // Kept in the batch's records, then the claims released, then nothing left in the batch to drop.
    expect(w.events).toEqual(['beginSend', `keep ${[A, B, C].join(',')}`, 'release 3', 'drop ']);
    expect(w.store.beingSent.size).toBe(0);
    expect(w.claimsHeld()).toEqual([]);
    expect(report.outcomes.get(B)).toEqual(found('bob@acme.test'));
  });

  it('sends the URL as the user wrote it, keyed by its normalised form', () => {
    const w = world([A], () => found('ann@acme.test'));
    w.run();
    expect(w.batches).toEqual([[`https://www.${A}`]]);
  });

  it('retries a 500 after the backoff, and stores its result once', () => {
    const w = world([A], (_, n) => (n === 1 ? server : found('ann@acme.test')));
    const report = w.run();
    expect(w.requests.get(`https://www.${A}`)).toBe(2);
    expect(w.sleeps).toContain(DEFAULT_RETRY.baseDelayMs);
    expect(w.stored).toEqual([[A, found('ann@acme.test')]]);
    expect(report.outcomes.get(A)).toEqual(found('ann@acme.test'));
  });

  it('gives up on a 500 after maxAttempts tries, the row an ERROR, nothing stored', () => {
    const w = world([A], () => server);
    const report = w.run();
    expect(w.requests.get(`https://www.${A}`)).toBe(DEFAULT_RETRY.maxAttempts);
    expect(report.outcomes.get(A)).toMatchObject({ error: 'server_error' });
    expect(w.stored).toEqual([]);
    expect(w.claimsHeld()).toEqual([]);
  });

  it("honours a 429's Retry-After: no request before it has passed, and the sizer holds it for the next execution", () => {
    const sentAt: number[] = [];
    let clock: { now(): number } = { now: () => 0 };
    const w = world([A], (_, n) => {
      sentAt.push(clock.now());
      return n === 1 ? tooMany(7_000) : found('ann@acme.test');
    });
    clock = w.clock;
    w.run();
    expect(sentAt).toHaveLength(2);
    expect(sentAt[1] - sentAt[0]).toBeGreaterThanOrEqual(400 + 7_000);
    expect(w.holds).toEqual([sentAt[0] + 400 + 7_000]);
  });

  it('retries a 429 up to RATE_LIMITED_ATTEMPTS tries (a refusal is never charged)', () => {
    const w = world([A], () => tooMany(1_000));
    w.run();
    expect(w.requests.get(`https://www.${A}`)).toBe(RATE_LIMITED_ATTEMPTS);
  });

  it('a Retry-After past the budget ends the sending: the key is left for a later run, not an ERROR', () => {
    const clock = testClock();
    const w = world([A, B], () => tooMany(60_000), { budget: sliceBudget(clock.now() + 20_000) });
    const report = w.run();
    expect(report.requestsSent).toBe(2);
    expect(report.outcomes.size).toBe(0);
    expect(w.claimsHeld()).toEqual([]);
  });

  it('a 402 halts the sending: no request after it, the claims of the keys left released', () => {
    const w = world([A, B, C], (url) => (url.endsWith('ann') ? payment : found('x@acme.test')));
    w.request.batchSize = fixedBatchSize(1);
    const report = w.run();
    expect(report.halt).toEqual(payment);
    expect(w.batches).toEqual([[`https://www.${A}`]]);
    expect(report.outcomes.has(B)).toBe(false);
    expect(w.claimsHeld()).toEqual([]);
  });

  it('a 400 is settled at once: not retried, nothing stored (no credit)', () => {
    const w = world([A], () => badUrl);
    const report = w.run();
    expect(w.requests.get(`https://www.${A}`)).toBe(1);
    expect(report.outcomes.get(A)).toEqual(badUrl);
    expect(w.stored).toEqual([]);
  });

  it('a batch lost to a connection failure: each key is kept as a lost answer, settled, never sent again, no retry', () => {
    const w = world([A, B], () => 'lost');
    const report = w.run();
    expect(w.batches).toEqual([[`https://www.${A}`, `https://www.${B}`]]);
    expect(report.lostAnswers).toBe(2);
    expect(w.lostWrites).toEqual([[A, B]]);
    const kept = lostAnswer(reset.message);
    expect(w.stored).toEqual([
      [A, kept],
      [B, kept],
    ]);
    expect(report.outcomes.get(A)).toEqual(kept);
    expect(report.outcomes.get(A)).toMatchObject({ kind: 'unusable', lost: true });
    expect(w.store.results.get(B)).toEqual(kept);
    expect(w.store.beingSent.size).toBe(0);
    expect(w.claimsHeld()).toEqual([]);
    // The next execution finds them kept: nothing is sent.
    const again = world([A, B], () => found('x@acme.test'));
    again.store.results.set(A, kept);
    again.store.results.set(B, kept);
    expect(again.run().alreadyKept.size).toBe(2);
    expect(again.batches).toEqual([]);
  });

  it('a 200 with {} is an unusable result: kept, not retried', () => {
    const odd = unusableAnswer('no "status"');
    const w = world([A, B], (url) => (url.endsWith('ann') ? odd : found('bob@acme.test')));
    const report = w.run();
    expect(w.requests.get(`https://www.${A}`)).toBe(1);
    expect(w.batches).toHaveLength(1);
    expect(report.outcomes.get(A)).toEqual(odd);
    expect(w.stored).toEqual([
      [A, odd],
      [B, found('bob@acme.test')],
    ]);
    expect(report.lostAnswers).toBe(0);
    expect(w.lostWrites).toEqual([]);
    expect(w.claimsHeld()).toEqual([]);
  });

  it("later batches take no lock: each goes to the service through the batch's own record first", () => {
    const w = world([A, B, C], () => found('x@acme.test'));
    w.request.batchSize = fixedBatchSize(1);
    w.ports.lock.tryWith = () => {
      throw new Error('the sending took the lock');
    };
    const report = w.run();
    expect(report.requestsSent).toBe(3);
    expect(w.events.filter((event) => !event.startsWith('release'))).toEqual([
      'beginSend',
      `keep ${A}`,
      `toService ${B}`,
      `keep ${B}`,
      `toService ${C}`,
      `keep ${C}`,
      'drop ',
    ]);
    expect(w.claimsHeld()).toEqual([]);
  });

  it('keys left unsent (a halt) leave the batch: another execution may send them at once', () => {
    const w = world([A, B, C], (url) => (url.endsWith('ann') ? payment : found('x@acme.test')));
    w.request.batchSize = fixedBatchSize(1);
    w.run();
    expect(w.events).toContain(`drop ${[B, C].join(',')}`);
    expect(w.store.beingSent.size).toBe(0);
  });

  it("a gate's word before a later batch stops the sending there (the claim step asked before the first)", () => {
    const w = world([A, B], () => found('x@acme.test'));
    w.request.batchSize = fixedBatchSize(1);
    const out = serviceError('config', 'Stopped.');
    let asked = 0;
    w.request.beforeBatch = () => {
      asked++;
      return out;
    };
    const report = w.run();
    expect(asked).toBe(1);
    expect(report.stop).toEqual(out);
    expect(report.requestsSent).toBe(1);
    expect(report.outcomes.has(B)).toBe(false);
    expect(w.claimsHeld()).toEqual([]);
    expect(w.store.beingSent.size).toBe(0);
  });
});

describe("beginSend (the claim step's check of the claimed keys)", () => {
  it("asks the store to record them until the claims end, with the caller's re-check time, window and properties", () => {
    const w = world([A], () => found('x@acme.test'));
    const all = { 'pef.v': '1' };
    const keepsStored: KeepsStored = (_result, savedAt) => savedAt >= 5;
    beginSend(w.ports, { holdSeconds: 90, keepsStored, window: 'slice-1' }, [A, B], 10, all);
    beginSend(w.ports, {}, [C], 10);
    const [first, second] = w.store.asks;
    expect(first).toMatchObject({
      urlKeys: [A, B],
      untilMs: w.clock.now() + 90_000,
      keepsStored,
      window: 'slice-1',
    });
    expect(first.all).toBe(all);
    // No hold given: an execution's limit.
    expect(second.untilMs).toBe(w.clock.now() + EXECUTION_LIMIT_MS);
  });

  it('the first fetchAll: `firstSize` of the sendable keys (one at least)', () => {
    const w = world([A], () => found('x@acme.test'));
    beginSend(w.ports, {}, [A, B, C], 2);
    const [ask] = w.store.asks;
    expect(ask.first([A, B, C])).toEqual([A, B]);
    const other = world([A], () => found('x@acme.test'));
    expect(beginSend(other.ports, {}, [A, B], 0).first).toEqual([A]);
  });
});

describe('settleCheck', () => {
  it('a key another execution stored meanwhile settles with its result: not sent, no credit, its claim released', () => {
    const w = world([A, B, C], () => found('x@acme.test'));
    const sending = startSending(w.request, w.claims);
    const theirs = found('bob@acme.test');
    const confirmed = settleCheck(
      sending,
      sendCheck({ send: [A], first: [A], stored: new Map([[B, theirs]]), elsewhere: [C] }),
    );
    expect(confirmed.send).toEqual([A]);
    expect(sending.report.alreadyKept.get(B)).toEqual(theirs);
    expect(sending.report.elsewhere).toEqual([C]);
    expect(sending.queue.keys).toEqual([A]);
    expect(w.claimsHeld().sort()).toEqual([A, C].sort());
  });

  it('a key the store cannot keep now is reported unsaved and left unsent', () => {
    const w = world([A, B], () => found('x@acme.test'));
    const sending = startSending(w.request, w.claims);
    settleCheck(sending, sendCheck({ send: [A], first: [A], full: [B] }));
    expect(sending.report.unsaved).toEqual([B]);
    expect(sending.queue.keys).toEqual([A]);
    expect(w.claimsHeld()).toEqual([A]);
  });

  it('a key kept as a lost answer before settles with it: not sent again, its claim released', () => {
    const w = world([A, B], () => found('x@acme.test'));
    const sending = startSending(w.request, w.claims);
    const kept = lostAnswer('Address unavailable');
    const confirmed = settleCheck(
      sending,
      sendCheck({ send: [B], first: [B], stored: new Map([[A, kept]]) }),
    );
    expect(confirmed.send).toEqual([B]);
    expect(sending.report.alreadyKept.get(A)).toEqual(kept);
    expect(sending.queue.keys).toEqual([B]);
    expect(w.claimsHeld()).toEqual([B]);
  });

  it("the first fetchAll is the store's `first`; the others go together after it", () => {
    const w = world([A, B, C], () => found('x@acme.test'));
    const sending = startSending(w.request, w.claims);
    const confirmed = settleCheck(sending, sendCheck({ send: [A, B, C], first: [A] }));
    expect(confirmed.send).toEqual([A]);
    expect(sending.queue.keys).toEqual([A, B, C]);
    sendBatches(w.ports, w.request, sending, confirmed);
    expect(w.batches).toEqual([[`https://www.${A}`], [`https://www.${B}`, `https://www.${C}`]]);
  });
});

describe('two executions at once over one store', () => {
  // Both executions' claims vanished (a best-effort cache): only the store's batches keep a URL from being paid twice.
  function execution(store: MemoryStore, keys: string[], during?: () => void) {
    const clock = testClock();
    const paid: string[] = [];
    const ports = {
      cache: null,
      clock,
      lock: { tryWith: <T>(work: () => T) => ({ value: work() }) },
      store,
      transport: {
        sendBatch: (urls: string[]): SentBatch => {
          paid.push(...urls);
          during?.();
          clock.sleep(400);
          return {
            outcomes: urls.map((url) => found(`${url.slice(-3)}@acme.test`)),
            sent: urls.length,
            lost: false,
          };
        },
      },
    } as unknown as LookupPorts;
    const request: SendRequest = {
      claimed: new Map(keys.map((key) => [key, key])),
      apiKey: 'key-of-ann-123',
      endpoint: 'https://api.test/api/v1/network_finder',
      retry: DEFAULT_RETRY,
      batchSize: fixedBatchSize(10),
      budget: sliceBudget(clock.now() + 60_000),
    };
    const run = () => {
      const sending = startSending(request, claimScope(null));
      const check = beginSend(ports, request, keys, 10);
      sendBatches(ports, request, sending, settleCheck(sending, check));
      return endSending(sending);
    };
    return { paid, run };
  }

  it('a URL the other execution is sending, or has stored, is not paid again', () => {
    const store = memoryStore();
    const results = store.results;
    let second: LookupReport | undefined;
    const other = execution(store, [A, B, C]);
    const first = execution(store, [A, B], () => {
      second ??= other.run();
    });
    const firstReport = first.run();
    const third = execution(store, [A, B, C]);
    const thirdReport = third.run();

    const paid = [...first.paid, ...other.paid, ...third.paid];
    expect(paid.sort()).toEqual([A, B, C].sort());
    expect(second?.elsewhere.sort()).toEqual([A, B].sort());
    expect(firstReport.outcomes.size).toBe(2);
    expect([...thirdReport.alreadyKept.keys()].sort()).toEqual([A, B, C].sort());
    expect(third.paid).toEqual([]);
    expect(results.size).toBe(3);
  });
});
