/**
 * The lookup pipeline (src/lookup/pipeline.ts) with plain objects as its ports: claims, the store, the one retry
 * scheduler, halts and the order "store, then release", without the emulator.
 */

import { stableHash } from '../../src/core/hash';
import { DEFAULT_RETRY } from '../../src/core/limits';
import { ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, HALT_KEY } from '../../src/core/propertyNames';
import { FormulaBudget, fixedBatchSize, sliceBudget } from '../../src/lookup/budget';
import { BULK_CLAIM, claimKey, FORMULA_CLAIM } from '../../src/lookup/claims';
import { type LookupOutcome, type LookupResult, serviceError } from '../../src/lookup/contract';
import { claimUnknown, endSending, sendBatches, sendClaimed, startSending } from '../../src/lookup/pipeline';
import type { BatchSample, LookupPorts, SendCheck } from '../../src/lookup/ports';

const found = (email: string): LookupResult => ({
  kind: 'found',
  email,
  emailStatus: 'VALID',
  catchAll: false,
  accountType: 'professional',
  profile: {},
});
const flaky = serviceError('server_error', 'boom', { status: 500, retryable: true });
const broke = serviceError('payment_required', 'Out of credits', { status: 402, effect: 'pause' });

/** An answer that makes the whole batch lost (fetchAll threw for a transport failure). */
const LOST = 'lost';
const reset = serviceError('transport', 'The service could not be reached (reset).', { retryable: true });

/**
 * A world of plain objects: a clock that only moves when slept or when a batch "takes" time; a store that keeps
 * lost sends across calls (executions) as ResultStore promises, and checks a batch as beginSend does.
 */
function world(
  answer: (url: string, attempt: number) => LookupOutcome | typeof LOST | undefined,
  batchMs = 100,
) {
  const log: string[] = [];
  const cache = new Map<string, string>();
  const stored = new Map<string, LookupResult>();
  const lostSends = new Map<string, number>();
  const attempts = new Map<string, number>();
  let now = 1_000;
  let lockBusy = false;
  const ports: LookupPorts = {
    store: {
      getMany: (keys) =>
        new Map(keys.filter((k) => stored.has(k)).map((k) => [k, stored.get(k) as LookupResult])),
      snapshot: () => (key) =>
        stored.has(key) ? { result: stored.get(key) as LookupResult, savedAt: 0 } : undefined,
      putMany: (entries, _sending, lost) => {
        for (const [key, result] of entries) stored.set(key, result);
        for (const key of lost ?? []) lostSends.set(key, (lostSends.get(key) ?? 0) + 1);
        if (entries.length) log.push(`store ${entries.map(([k]) => k).join(',')}`);
      },
      beginSend: (keys, _until, _since, mayGo) => {
        const check: SendCheck = {
          send: [],
          stored: new Map(),
          elsewhere: [],
          full: [],
          lost: new Map(),
          held: [],
        };
        for (const key of keys) {
          const lost = lostSends.get(key) ?? 0;
          if (lost) check.lost.set(key, lost);
          if (stored.has(key)) check.stored.set(key, stored.get(key) as LookupResult);
          else if (lost && mayGo && !mayGo(key, lost)) check.held.push(key);
          else check.send.push(key);
        }
        return check;
      },
    },
    cache: {
      get: (key) => cache.get(key) ?? null,
      getAll: (keys) =>
        Object.fromEntries(keys.filter((k) => cache.has(k)).map((k) => [k, cache.get(k) as string])),
      putAll: (values) => {
        for (const [k, v] of Object.entries(values)) cache.set(k, v);
      },
      put: (key, value) => cache.set(key, value),
      remove: (key) => cache.delete(key),
      removeAll: (keys) => {
        log.push(`release ${keys.length}`);
        for (const k of keys) cache.delete(k);
      },
    },
    lock: { tryWith: (work) => (lockBusy ? undefined : { value: work() }) },
    clock: {
      now: () => now,
      sleep: (ms) => {
        log.push(`sleep ${ms}`);
        now += ms;
      },
    },
    transport: {
      sendBatch: (urls) => {
        log.push(`send ${urls.join(',')}`);
        now += batchMs;
        const answers = urls.map((url) => {
          const attempt = (attempts.get(url) ?? 0) + 1;
          attempts.set(url, attempt);
          return answer(url, attempt);
        });
        if (answers.includes(LOST)) return { outcomes: urls.map(() => reset), sent: urls.length, lost: true };
        const outcomes = answers as Array<LookupOutcome | undefined>;
        return { outcomes, sent: outcomes.filter(Boolean).length, lost: false };
      },
    },
  };
  return {
    ports,
    log,
    cache,
    stored,
    lostSends,
    attempts,
    setBusy: (busy: boolean) => {
      lockBusy = busy;
    },
    now: () => now,
  };
}

function send(
  w: ReturnType<typeof world>,
  keys: string[],
  budget = sliceBudget(w.now() + 60_000),
  size = 20,
) {
  return sendClaimed(w.ports, {
    claimed: new Map(keys.map((key) => [key, key])),
    apiKey: 'k',
    endpoint: 'https://service.test/network_finder',
    retry: DEFAULT_RETRY,
    batchSize: fixedBatchSize(size),
    budget,
  });
}

describe('claimUnknown', () => {
  it("claims only keys neither stored nor claimed, with the caller's value; reports the holders", () => {
    const w = world(() => undefined);
    w.stored.set('s', found('s@x.test'));
    w.cache.set(claimKey('f'), FORMULA_CLAIM);
    w.cache.set(claimKey('b'), BULK_CLAIM);
    const claimed = claimUnknown(w.ports, {
      keys: ['s', 'f', 'b', 'n'],
      value: BULK_CLAIM,
      seconds: 360,
      inStore: (keys) => new Set(keys.filter((k) => w.stored.has(k))),
    });
    expect(claimed?.mine).toEqual(['n']);
    expect([...(claimed?.heldBy ?? [])]).toEqual([
      ['f', FORMULA_CLAIM],
      ['b', BULK_CLAIM],
    ]);
    expect(w.cache.get(claimKey('n'))).toBe(BULK_CLAIM);
  });

  it('claims nothing while the lock stays busy, and everything unknown without a document cache', () => {
    const w = world(() => undefined);
    w.setBusy(true);
    const request = { keys: ['a'], value: FORMULA_CLAIM, seconds: 31, inStore: () => new Set<string>() };
    expect(claimUnknown(w.ports, request)).toBeUndefined();
    expect(claimUnknown({ ...w.ports, cache: null }, request)?.mine).toEqual(['a']);
  });

  it('with the account check: one caller checks (its marker), the next waits, a halt for the key claims nothing', () => {
    const w = world(() => undefined);
    const request = {
      keys: ['a'],
      value: FORMULA_CLAIM,
      seconds: 31,
      accountCheck: { apiKey: 'k' },
      inStore: () => new Set<string>(),
    };
    expect(claimUnknown(w.ports, request)).toMatchObject({ mine: ['a'], checksAccount: true });
    expect(w.cache.get(ACCOUNT_CHECK_KEY)).toBe('1');
    const next = claimUnknown(w.ports, { ...request, keys: ['b'] });
    expect(next).toMatchObject({ mine: [], blocked: ['b'], checksAccount: false });
    expect(w.cache.has(claimKey('b'))).toBe(false);
    w.cache.set(ACCOUNT_OK_KEY, stableHash('k'));
    expect(claimUnknown(w.ports, { ...request, keys: ['b'] })).toMatchObject({
      mine: ['b'],
      checksAccount: false,
    });
    w.cache.set(HALT_KEY, JSON.stringify({ message: 'Paused.', keyHash: stableHash('k') }));
    const halted = claimUnknown(w.ports, { ...request, keys: ['c'] });
    expect(halted).toMatchObject({ mine: [], blocked: [], halt: { message: 'Paused.' } });
    expect(w.cache.has(claimKey('c'))).toBe(false);
  });
});

describe('sendBatches: a sending in steps', () => {
  const request = (w: ReturnType<typeof world>, keys: string[], size: number, haltFor?: string) => ({
    claimed: new Map(keys.map((key) => [key, key])),
    apiKey: 'k',
    endpoint: 'https://service.test/network_finder',
    retry: DEFAULT_RETRY,
    batchSize: fixedBatchSize(size),
    budget: sliceBudget(w.now() + 60_000),
    haltFor,
  });

  it('stops after maxBatches with the rest still claimed; a later step sends them at its own size', () => {
    const w = world((url) => found(`${url}@x.test`));
    for (const key of ['a', 'b', 'c']) w.cache.set(claimKey(key), FORMULA_CLAIM);
    const sending = startSending(request(w, ['a', 'b', 'c'], 1));
    const [first, ...none] = sendBatches(w.ports, request(w, ['a', 'b', 'c'], 1), sending, 1);
    expect(none).toEqual([]);
    expect(first.stored.map(([key]) => key)).toEqual(['a']);
    expect(w.cache.has(claimKey('b'))).toBe(true);
    expect(sendBatches(w.ports, request(w, ['a', 'b', 'c'], 2), sending)).toHaveLength(1);
    expect(endSending(w.ports, sending).requestsSent).toBe(3);
    expect(w.log).toEqual(['send a', 'store a', 'release 1', 'send b,c', 'store b,c', 'release 2']);
  });

  it('with haltFor, a halt marker for that key found before a batch ends the sending, nothing more sent', () => {
    const w = world((url) => found(`${url}@x.test`));
    for (const key of ['a', 'b']) w.cache.set(claimKey(key), FORMULA_CLAIM);
    const sending = startSending(request(w, ['a', 'b'], 1, 'k'));
    sendBatches(w.ports, request(w, ['a', 'b'], 1, 'k'), sending, 1);
    w.cache.set(HALT_KEY, JSON.stringify({ message: 'Paused.', keyHash: stableHash('k') }));
    expect(sendBatches(w.ports, request(w, ['a', 'b'], 1, 'k'), sending)).toEqual([]);
    const report = endSending(w.ports, sending);
    expect(report.haltedElsewhere?.message).toBe('Paused.');
    expect(report.requestsSent).toBe(1);
    expect(w.cache.has(claimKey('b'))).toBe(false);
  });
});

describe('sendClaimed: the one scheduler', () => {
  it('retries a retryable failure after the backoff, stores results before releasing their claims', () => {
    const w = world((url, attempt) => (url === 'a' && attempt === 1 ? flaky : found(`${url}@x.test`)));
    for (const key of ['a', 'b']) w.cache.set(claimKey(key), BULK_CLAIM);
    const report = send(w, ['a', 'b']);
    expect(w.log).toEqual([
      'send a,b',
      'store b',
      'release 1',
      `sleep ${DEFAULT_RETRY.baseDelayMs}`,
      'send a',
      'store a',
      'release 1',
    ]);
    expect(report.outcomes.get('a')).toMatchObject({ kind: 'found' });
    expect(report.requestsSent).toBe(3);
    expect(w.cache.size).toBe(0);
  });

  it('gives up after maxAttempts with the last error, and releases the claim', () => {
    const w = world(() => flaky);
    const report = send(w, ['a']);
    expect(w.attempts.get('a')).toBe(DEFAULT_RETRY.maxAttempts);
    expect(report.outcomes.get('a')).toBe(flaky);
    expect(report.halt).toBeUndefined();
  });

  it('a halting answer stops everything: no retry, no further batch, the rest released unsent', () => {
    const w = world((url) => (url === 'b' ? broke : url === 'a' ? flaky : found(url)));
    for (const key of ['a', 'b', 'c', 'd']) w.cache.set(claimKey(key), BULK_CLAIM);
    const report = send(w, ['a', 'b', 'c', 'd'], undefined, 3);
    expect(report.halt).toBe(broke);
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send a,b,c']);
    expect(report.outcomes.has('d')).toBe(false);
    expect(w.cache.size).toBe(0);
  });

  it('a slice sends its first batch even past its deadline, and nothing more', () => {
    const w = world((url, attempt) => (attempt === 1 ? flaky : found(url)));
    const report = send(w, ['a', 'b', 'c'], sliceBudget(w.now() - 1), 2);
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send a,b']);
    expect(report.outcomes.has('c')).toBe(false);
  });

  it('a formula starts no batch that could end after its budget: twice the slowest batch so far', () => {
    const w = world(() => found('x@x.test'), 3_000);
    const start = w.now();
    send(w, ['a', 'b', 'c'], new FormulaBudget(start + 10_000, start + 6_000), 1);
    // Untimed: the first starts before 6 s (0 → 3 s). Then a batch may take 2 × 3 s: 3 + 6 ≤ 10 (3 → 6 s), but
    // 6 + 6 > 10.
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send a', 'send b']);
  });

  it('the batch sizer decides every batch and observes each one', () => {
    const w = world((url) => found(url));
    const samples: BatchSample[] = [];
    const sizes = [1, 2, 5];
    sendClaimed(w.ports, {
      claimed: new Map(['a', 'b', 'c', 'd', 'e'].map((key) => [key, key])),
      apiKey: 'k',
      endpoint: 'e',
      retry: DEFAULT_RETRY,
      batchSize: { next: () => sizes.shift() ?? 9, observe: (sample) => samples.push(sample) },
      budget: sliceBudget(w.now() + 60_000),
    });
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send a', 'send b,c', 'send d,e']);
    expect(samples.map((sample) => sample.size)).toEqual([1, 2, 2]);
  });

  it('a 429 holds every batch back until its Retry-After (longer than the backoff); the sizer hears of it', () => {
    const limited = { ...serviceError('rate_limited', 'Too many', { status: 429, retryable: true }) };
    limited.retryAfterMs = 3_000;
    const w = world((url, attempt) => (url === 'a' && attempt === 1 ? limited : found(url)));
    const samples: BatchSample[] = [];
    const sizes = [2, 1];
    sendClaimed(w.ports, {
      claimed: new Map(['a', 'b', 'c'].map((key) => [key, key])),
      apiKey: 'k',
      endpoint: 'e',
      retry: DEFAULT_RETRY,
      batchSize: { next: () => sizes.shift() ?? 5, observe: (sample) => samples.push(sample) },
      budget: sliceBudget(w.now() + 60_000),
    });
    // c was not refused, yet waits too: the service asked for no request before then.
    expect(w.log.filter((line) => /^(send|sleep)/.test(line))).toEqual([
      'send a,b',
      'sleep 3000',
      'send a',
      'send c',
    ]);
    expect(samples[0]).toMatchObject({ throttled: 1, failures: 1 });
  });

  it('a Retry-After kept by the sizer (from an earlier slice) holds the first batch; a new one is handed to it', () => {
    const limited = { ...serviceError('rate_limited', 'Too many', { status: 429, retryable: true }) };
    limited.retryAfterMs = 2_000;
    const w = world((url, attempt) => (url === 'b' && attempt === 1 ? limited : found(url)));
    let kept = w.now() + 1_500;
    sendClaimed(w.ports, {
      claimed: new Map(['a', 'b'].map((key) => [key, key])),
      apiKey: 'k',
      endpoint: 'e',
      retry: DEFAULT_RETRY,
      batchSize: {
        next: () => 5,
        observe: () => undefined,
        notBefore: () => kept,
        hold: (until) => {
          kept = until;
        },
      },
      budget: sliceBudget(w.now() + 60_000),
    });
    expect(w.log.filter((line) => /^(send|sleep)/.test(line))).toEqual([
      'sleep 1500',
      'send a,b',
      'sleep 2000',
      'send b',
    ]);
    expect(kept).toBe(w.now() - 100);
  });

  it('a Retry-After that does not fit in the budget ends the sending', () => {
    const limited = { ...serviceError('rate_limited', 'Too many', { status: 429, retryable: true }) };
    limited.retryAfterMs = 30_000;
    const w = world((url) => (url === 'a' ? limited : found(url)));
    const report = sendClaimed(w.ports, {
      claimed: new Map(['a', 'b', 'c'].map((key) => [key, key])),
      apiKey: 'k',
      endpoint: 'e',
      retry: DEFAULT_RETRY,
      batchSize: fixedBatchSize(2),
      budget: sliceBudget(w.now() + 10_000),
    });
    expect(w.log.filter((line) => /^(send|sleep)/.test(line))).toEqual(['send a,b']);
    expect(report.outcomes.has('c')).toBe(false);
  });

  it('a batch lost to a connection failure: each key goes again alone, once; lost twice is an ERROR', () => {
    // `c`'s connection fails every time: its batch is lost, then its own re-send.
    const w = world((url) => (url === 'c' ? LOST : found(url)));
    const report = send(w, ['a', 'b', 'c', 'd']);
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual([
      'send a,b,c,d',
      'send a',
      'send b',
      'send c',
      'send d',
    ]);
    expect(report.outcomes.get('a')).toMatchObject({ kind: 'found' });
    expect(report.outcomes.get('c')).toMatchObject({ kind: 'error', error: 'transport', retryable: false });
    expect((report.outcomes.get('c') as { message: string }).message).toMatch(/Answer lost twice/);
    // Answers that may have been charged and were lost: the four of the batch, then c alone.
    expect(report.lostAnswers).toBe(5);
    expect(report.requestsSent).toBe(8);
    // Remembered by the store (putMany counts the lost sends): c lost twice, the others once.
    expect(Object.fromEntries(w.lostSends)).toEqual({ a: 1, b: 1, c: 2, d: 1 });
    // Across executions: c is not sent again (an ERROR at once), a is kept, a key lost once goes alone.
    w.log.length = 0;
    w.lostSends.set('e', 1);
    const again = send(w, ['a', 'c', 'e', 'f', 'g']);
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send f,g', 'send e']);
    expect(again.outcomes.get('c')).toMatchObject({ kind: 'error', error: 'transport' });
    expect(again.alreadyKept?.has('a')).toBe(true);
    expect(again.requestsSent).toBe(3);
  });

  it('never more than two sends of a key may be charged, whatever fails when', () => {
    // Every pattern of lost batches over three tries of four keys, each key found when its batch is not lost.
    for (let pattern = 0; pattern < 2 ** 6; pattern++) {
      let batchNo = 0;
      const lostBatches = new Set<number>();
      const w = world(() => found('x@x.test'));
      const transport = w.ports.transport;
      const possiblyCharged = new Map<string, number>();
      w.ports.transport = {
        sendBatch: (urls, plan) => {
          const lose = ((pattern >> batchNo) & 1) === 1;
          if (lose) lostBatches.add(batchNo);
          batchNo++;
          for (const url of urls) possiblyCharged.set(url, (possiblyCharged.get(url) ?? 0) + 1);
          if (lose) return { outcomes: urls.map(() => reset), sent: urls.length, lost: true };
          return transport.sendBatch(urls, plan);
        },
      };
      send(w, ['a', 'b', 'c', 'd']);
      expect(Math.max(...possiblyCharged.values())).toBeLessThanOrEqual(2);
    }
  });

  it('never more than two sends of a key may be charged across executions, whatever fails when', () => {
    // Three executions over the same four keys (what is stored is not sent again), each batch lost or not as the
    // pattern says: only the store's memory of lost sends connects the executions.
    for (let pattern = 0; pattern < 2 ** 10; pattern++) {
      let batchNo = 0;
      const w = world(() => found('x@x.test'));
      const transport = w.ports.transport;
      const possiblyCharged = new Map<string, number>();
      w.ports.transport = {
        sendBatch: (urls, plan) => {
          const lose = ((pattern >> batchNo++) & 1) === 1;
          for (const url of urls) possiblyCharged.set(url, (possiblyCharged.get(url) ?? 0) + 1);
          if (lose) return { outcomes: urls.map(() => reset), sent: urls.length, lost: true };
          return transport.sendBatch(urls, plan);
        },
      };
      // A small budget: an execution may end with a key lost once and not yet sent alone.
      for (let run = 0; run < 3; run++) send(w, ['a', 'b', 'c', 'd'], sliceBudget(w.now() + 250), 4);
      expect(Math.max(...possiblyCharged.values())).toBeLessThanOrEqual(2);
    }
  });
});
