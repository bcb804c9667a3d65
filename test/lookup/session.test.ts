/**
 * The lookup session (src/lookup/session.ts, its claim step and sending) with plain objects as its ports: claims,
 * the gates, the store, the one retry scheduler, halts and the order "store, then release", without the emulator.
 * Release by construction: a lookup whose ports throw at any step (each cache write, each lock call, each store read
 * and write, the fetch) leaves nothing held afterwards: no claim, no account-check marker, no reservation of the
 * daily limit beyond what was charged.
 */

import { stableHash } from '../../src/core/hash';
import { DEFAULT_RETRY } from '../../src/core/limits';
import { ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, CLAIM_PREFIX, HALT_KEY } from '../../src/core/propertyNames';
import { accountCheckGate, haltGate } from '../../src/formula/gates';
import { FormulaBudget, fixedBatchSize, sliceBudget } from '../../src/lookup/budget';
import { BULK_CLAIM, claimKey, claimScope, FORMULA_CLAIM } from '../../src/lookup/claims';
import type { Gate } from '../../src/lookup/gate';
import { type KeyCheckGate, keyCheckGate } from '../../src/lookup/keyCheck';
import { loadPace } from '../../src/lookup/pace';
import type { BatchSample, BatchSizer, KeepsStored, LookupPorts, SendBudget } from '../../src/lookup/ports';
import { type LookupOutcome, lostAnswer, serviceError } from '../../src/lookup/result';
import {
  claimInHold,
  emptyReport,
  type LookupReport,
  openLookup,
  sendClaimed,
} from '../../src/lookup/session';
import { memoryCache } from '../support/platform';
import { found } from '../support/results';
import { memoryStore } from './memoryStore';

const flaky = serviceError('server_error', 'boom', { status: 500, retryable: true });
const broke = serviceError('payment_required', 'Out of credits', { status: 402, effect: 'pause' });

/** An answer that makes the whole batch lost (fetchAll threw for a transport failure). */
const LOST = 'lost';
const reset = serviceError('transport', 'The service could not be reached (reset).', { retryable: true });

/**
 * A world of plain objects: a clock that only moves when slept or when a batch "takes" time; a store in memory that
 * keeps what the service may have charged (lost answers among it) across calls (executions) as ResultStore
 * promises, and checks a batch as beginSend does.
 */
function world(
  answer: (url: string, attempt: number) => LookupOutcome | typeof LOST | undefined,
  batchMs = 100,
) {
  const log: string[] = [];
  const cache = new Map<string, string>();
  // The batch's keep, logged as `store a,b` when it stored results.
  const store = memoryStore((call) => {
    if (call.startsWith('keep ') && call !== 'keep ') log.push(`store ${call.slice(5)}`);
  });
  const attempts = new Map<string, number>();
  let now = 1_000;
  let lockBusy = false;
  let lockRefused = false;
  const ports: LookupPorts = {
    store,
    cache: memoryCache(cache, (call, keys) => {
      if (call === 'removeAll') log.push(`release ${keys.length}`);
    }),
    lock: {
      tryWith: (work) => (lockBusy || lockRefused ? undefined : { value: work() }),
      refused: () => lockRefused,
    },
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
    store,
    stored: store.results,
    attempts,
    setBusy: (busy: boolean) => {
      lockBusy = busy;
    },
    setRefused: (refused: boolean) => {
      lockRefused = refused;
    },
    now: () => now,
  };
}

interface Options {
  budget?: SendBudget;
  batchSize?: BatchSizer;
  gates?: Gate[];
  claim?: string;
}

/** One session over `keys` (no gates unless given), closed after its lookup. */
function lookUp(w: ReturnType<typeof world>, keys: string[], options: Options = {}): LookupReport {
  const session = openLookup(w.ports, {
    apiKey: 'k',
    endpoint: 'https://service.test/network_finder',
    claim: { value: options.claim ?? BULK_CLAIM, seconds: 360 },
    budget: options.budget ?? sliceBudget(w.now() + 60_000),
    retry: DEFAULT_RETRY,
    sizer: options.batchSize ?? fixedBatchSize(20),
    inStore: (unclaimed) => ({ stored: new Set(unclaimed.filter((key) => w.stored.has(key))) }),
    gates: options.gates ?? [],
  });
  try {
    return session.lookUp(new Map(keys.map((key) => [key, key])));
  } finally {
    session.close();
  }
}

function send(
  w: ReturnType<typeof world>,
  keys: string[],
  budget = sliceBudget(w.now() + 60_000),
  size = 20,
) {
  return lookUp(w, keys, { budget, batchSize: fixedBatchSize(size) });
}

const claimsHeld = (w: ReturnType<typeof world>) =>
  [...w.cache.keys()].filter((key) => key.startsWith('pef.claim.'));
const sent = (w: ReturnType<typeof world>) => w.log.filter((line) => line.startsWith('send'));
const claimHolder = (w: ReturnType<typeof world>, key: string) => w.cache.get(claimKey(key));

describe('the claim step', () => {
  it("sends only keys neither stored nor claimed, with the caller's claim; reports the holders", () => {
    const w = world((url) => found(`${url}@x.test`));
    w.stored.set('s', found('s@x.test'));
    w.cache.set(claimKey('f'), FORMULA_CLAIM);
    w.cache.set(claimKey('b'), BULK_CLAIM);
    const seen: string[] = [];
    w.ports.cache = { ...(w.ports.cache as NonNullable<LookupPorts['cache']>) };
    const putAll = w.ports.cache.putAll;
    w.ports.cache.putAll = (values, seconds) => {
      seen.push(...Object.values(values));
      putAll(values, seconds);
    };
    const report = lookUp(w, ['s', 'f', 'b', 'n']);
    expect(sent(w)).toEqual(['send n']);
    expect(seen).toEqual([BULK_CLAIM]);
    expect([...report.heldBy]).toEqual([
      ['f', FORMULA_CLAIM],
      ['b', BULK_CLAIM],
    ]);
    expect(report.outcomes.get('n')).toMatchObject({ kind: 'found' });
  });

  it('sends nothing while the lock stays busy, and says so; without a document cache it sends all', () => {
    const w = world((url) => found(url));
    w.setBusy(true);
    expect(lookUp(w, ['a'])).toMatchObject({ lockBusy: true, lockRefused: false, blocked: ['a'] });
    expect(sent(w)).toEqual([]);
    w.setBusy(false);
    w.ports.cache = null;
    expect(lookUp(w, ['a']).outcomes.get('a')).toMatchObject({ kind: 'found' });
  });

  it('the first batch is recorded in the same lock hold as the claims: one hold for claim and record', () => {
    const w = world((url) => found(url));
    let holds = 0;
    const tryWith = w.ports.lock.tryWith;
    w.ports.lock = {
      ...w.ports.lock,
      tryWith: (work, deadline) => {
        holds++;
        return tryWith(work, deadline);
      },
    };
    lookUp(w, ['a']);
    // The claim step (claims and the first batch's record); the store's write takes its own hold in Apps Script.
    expect(holds).toBe(1);
  });
});

describe('gates: each ends its session with every claim released', () => {
  const halt = () => JSON.stringify({ message: 'Paused.', keyHash: stableHash('k') });

  it('LockService refused: nothing claimed or sent, the report says so, and no marker stops the next cells', () => {
    const w = world((url) => found(url));
    w.setRefused(true);
    const report = lookUp(w, ['a']);
    expect(report).toMatchObject({ lockBusy: true, lockRefused: true });
    expect(sent(w)).toEqual([]);
    expect(claimsHeld(w)).toEqual([]);
    expect([...w.cache.keys()]).toEqual([]);
    w.setRefused(false);
    expect(lookUp(w, ['a']).outcomes.get('a')).toMatchObject({ kind: 'found' });
  });

  it('a halt for the key, before the claim or found with the claims: nothing claimed, nothing sent', () => {
    const w = world((url) => found(url));
    w.cache.set(HALT_KEY, halt());
    expect(lookUp(w, ['a'], { gates: [haltGate(w.ports.cache, 'k')] }).stop?.message).toBe('Paused.');
    // Written by another execution between the read before the claim and the claim step.
    w.cache.delete(HALT_KEY);
    let reads = 0;
    const get = w.ports.cache?.get as (key: string) => string | null;
    (w.ports.cache as { get: (key: string) => string | null }).get = (key) => {
      if (key === HALT_KEY && reads++ === 0) return null;
      return get(key);
    };
    w.cache.set(HALT_KEY, halt());
    const report = lookUp(w, ['a', 'b'], { gates: [haltGate(w.ports.cache, 'k')] });
    expect(report.stop?.message).toBe('Paused.');
    expect(sent(w)).toEqual([]);
    expect(claimsHeld(w)).toEqual([]);
  });

  it('a halt written before a later batch ends the sending; the keys left are released unsent', () => {
    const w = world((url) => found(`${url}@x.test`));
    const gate = haltGate(w.ports.cache, 'k');
    const writer: Gate = {
      name: 'another execution halts',
      afterBatch: () => w.cache.set(HALT_KEY, halt()),
    };
    const report = lookUp(w, ['a', 'b'], { gates: [gate, writer], batchSize: fixedBatchSize(1) });
    expect(sent(w)).toEqual(['send a']);
    expect(report.stop?.message).toBe('Paused.');
    expect(report.requestsSent).toBe(1);
    expect(claimsHeld(w)).toEqual([]);
  });

  it('the key check: a refused key halts before anything is claimed or paid', () => {
    const w = world((url) => found(url));
    const refused = serviceError('unauthorized', 'Invalid key', { status: 401, effect: 'stop' });
    w.ports.transport.checkKey = () => ({ error: refused, sent: 1, lost: false });
    const pacer = loadPace(null, 'formula', 100, 100);
    const budget = sliceBudget(w.now() + 60_000);
    const gate = keyCheckGate(w.ports, pacer, { apiKey: 'k', endpoint: 'e' }, budget, 4);
    const report = lookUp(w, ['a', 'b', 'c', 'd', 'e'], { gates: [gate] });
    expect(report.halt).toBe(refused);
    expect(sent(w)).toEqual([]);
    expect(claimsHeld(w)).toEqual([]);
  });

  it('the account check: one caller sends its first key alone, the next waits (nothing claimed), then all go', () => {
    const w = world((url) => found(`${url}@x.test`));
    const noKeyCheck = { name: 'key check', passed: () => false };
    const gate = () => accountCheckGate(w.ports.cache, 'k', 31, noKeyCheck);
    // Another cell checks the account: this one claims nothing and waits.
    w.cache.set(ACCOUNT_CHECK_KEY, '1');
    expect(lookUp(w, ['a', 'b'], { gates: [gate()], claim: FORMULA_CLAIM })).toMatchObject({
      blocked: ['a', 'b'],
    });
    expect(claimsHeld(w)).toEqual([]);
    // The check ended without proof: this cell checks, its first key alone, then the rest.
    w.cache.delete(ACCOUNT_CHECK_KEY);
    lookUp(w, ['a', 'b', 'c'], { gates: [gate()], claim: FORMULA_CLAIM });
    expect(sent(w)).toEqual(['send a', 'send b,c']);
    expect(w.cache.get(ACCOUNT_OK_KEY)).toBe(stableHash('k'));
    expect(w.cache.has(ACCOUNT_CHECK_KEY)).toBe(false);
    expect(claimsHeld(w)).toEqual([]);
  });

  it('an account check that sent nothing (the budget) is dropped at close, so the next cell checks', () => {
    const w = world((url) => found(url));
    const noKeyCheck = { name: 'key check', passed: () => false };
    const gate = accountCheckGate(w.ports.cache, 'k', 31, noKeyCheck);
    const start = w.now();
    lookUp(w, ['a'], {
      gates: [gate],
      budget: new FormulaBudget(start - 1, start - 1),
      claim: FORMULA_CLAIM,
    });
    expect(sent(w)).toEqual([]);
    expect(w.cache.has(ACCOUNT_CHECK_KEY)).toBe(false);
    expect(claimsHeld(w)).toEqual([]);
  });

  it('a gate that admits fewer keys: the rest say its refusal, unclaimed; a thrown error releases every claim', () => {
    const w = world((url) => found(url));
    const refusal = serviceError('config', 'Daily limit reached.');
    const limit: Gate = { name: 'limit', admit: () => ({ take: 1, refusal }) };
    const report = lookUp(w, ['a', 'b'], { gates: [limit] });
    expect(sent(w)).toEqual(['send a']);
    expect(report.outcomes.get('b')).toBe(refusal);
    const boom: Gate = {
      name: 'boom',
      afterBatch: () => {
        throw new Error('boom');
      },
    };
    expect(() => lookUp(w, ['c', 'd'], { gates: [boom], batchSize: fixedBatchSize(1) })).toThrow('boom');
    expect(claimsHeld(w)).toEqual([]);
  });
});

describe('the one scheduler', () => {
  it('retries a retryable failure after the backoff, stores results before releasing their claims', () => {
    const w = world((url, attempt) => (url === 'a' && attempt === 1 ? flaky : found(`${url}@x.test`)));
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
    lookUp(w, ['a', 'b', 'c', 'd', 'e'], {
      batchSize: { next: () => sizes.shift() ?? 9, observe: (sample) => samples.push(sample) },
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
    lookUp(w, ['a', 'b', 'c'], {
      batchSize: { next: () => sizes.shift() ?? 5, observe: (sample) => samples.push(sample) },
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
    lookUp(w, ['a', 'b'], {
      batchSize: {
        next: () => 5,
        observe: () => undefined,
        notBefore: () => kept,
        hold: (until) => {
          kept = until;
        },
      },
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
    const report = lookUp(w, ['a', 'b', 'c'], {
      batchSize: fixedBatchSize(2),
      budget: sliceBudget(w.now() + 10_000),
    });
    expect(w.log.filter((line) => /^(send|sleep)/.test(line))).toEqual(['send a,b']);
    expect(report.outcomes.has('c')).toBe(false);
  });

  it('a batch lost to a connection failure: each key is kept as a lost answer, settled, never sent again, no retry', () => {
    // `c`'s connection fails: the whole batch's answers are lost (each may have been charged).
    const w = world((url) => (url === 'c' ? LOST : found(url)));
    const report = send(w, ['a', 'b', 'c', 'd']);
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send a,b,c,d']);
    const kept = lostAnswer(reset.message);
    for (const key of ['a', 'b', 'c', 'd']) {
      expect(report.outcomes.get(key)).toEqual(kept);
      expect(w.stored.get(key)).toEqual(kept);
    }
    expect(report.outcomes.get('c')).toMatchObject({ kind: 'unusable', lost: true });
    expect(report.lostAnswers).toBe(4);
    expect(report.requestsSent).toBe(4);
    expect(claimsHeld(w)).toEqual([]);
    // Across executions: the lost answers are kept like results: neither claimed nor sent again.
    w.log.length = 0;
    const again = send(w, ['a', 'c', 'e']);
    expect(w.log.filter((line) => line.startsWith('send'))).toEqual(['send e']);
    expect(again.outcomes.has('a')).toBe(false);
    expect(again.outcomes.has('c')).toBe(false);
    expect(again.requestsSent).toBe(1);
  });

  it('a key is sent once when answers are lost, whatever fails when: a lost answer is never sent again', () => {
    // Every pattern of lost batches over four batches of one key each, each key found when its batch is not lost.
    for (let pattern = 0; pattern < 2 ** 4; pattern++) {
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
      send(w, ['a', 'b', 'c', 'd'], undefined, 1);
      expect(Object.fromEntries(possiblyCharged)).toEqual({ a: 1, b: 1, c: 1, d: 1 });
      expect(w.stored.size).toBe(4);
    }
  });

  it('a key is sent at most once across executions when answers are lost, whatever fails when', () => {
    // Three executions over the same four keys (what is stored, lost answers too, is not sent again), each batch
    // lost or not as the pattern says.
    for (let pattern = 0; pattern < 2 ** 3; pattern++) {
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
      for (let run = 0; run < 3; run++) send(w, ['a', 'b', 'c', 'd'], sliceBudget(w.now() + 250), 4);
      expect(Math.max(...possiblyCharged.values())).toBeLessThanOrEqual(1);
    }
  });
});

describe("a bulk slice's batch: claimed in the slice's own hold of the lock, sent after it", () => {
  const UNTIL_MS = 90_000;
  /** The slice's run keeps what was stored since it started (at 7). */
  const keepsStored: KeepsStored = (_result, savedAt) => savedAt >= 7;

  /** The claim step of a slice's window over `keys` (the slice holds the lock already: none is taken here). */
  function claimIn(w: ReturnType<typeof world>, keys: string[], all: Record<string, string> = {}) {
    const claims = claimScope(w.ports.cache);
    const claimed = claimInHold(w.ports, {
      keys,
      value: BULK_CLAIM,
      claims,
      untilMs: w.now() + UNTIL_MS,
      keepsStored,
      window: 'slice-1',
      all,
    });
    return { claims, claimed };
  }

  function sendIt(w: ReturnType<typeof world>, { claims, claimed }: ReturnType<typeof claimIn>) {
    const wanted = new Map(claimed.mine.map((key) => [key, key]));
    const request = {
      claimed: new Map<string, string>(),
      apiKey: 'k',
      endpoint: 'https://service.test/network_finder',
      retry: DEFAULT_RETRY,
      batchSize: fixedBatchSize(1),
      budget: sliceBudget(w.now() + 60_000),
    };
    try {
      return sendClaimed(w.ports, wanted, request, claims, claimed, emptyReport());
    } finally {
      claims.releaseAll();
    }
  }

  it("claims the free keys until the slice's end and records them as one batch, every key at the service at once", () => {
    const w = world((url) => found(url));
    w.cache.set(claimKey('b'), FORMULA_CLAIM);
    const seconds: number[] = [];
    const cache = w.ports.cache as NonNullable<LookupPorts['cache']>;
    w.ports.cache = {
      ...cache,
      putAll: (values, secs) => {
        seconds.push(secs);
        cache.putAll(values, secs);
      },
    };
    // The slice holds the lock: the claim step takes none of its own.
    w.setBusy(true);
    const all = { 'pef.job': '{}' };
    const { claimed } = claimIn(w, ['a', 'b', 'c'], all);
    expect(claimed.mine).toEqual(['a', 'c']);
    expect([...claimed.heldBy]).toEqual([['b', FORMULA_CLAIM]]);
    expect(claimed.first?.first).toEqual(['a', 'c']);
    expect(claimHolder(w, 'a')).toBe(BULK_CLAIM);
    expect(seconds).toEqual([UNTIL_MS / 1000]);
    // The batch's records end with the claims, carry the window's token, and read the hold's properties.
    const [ask] = w.store.asks;
    expect(ask).toMatchObject({
      urlKeys: ['a', 'c'],
      untilMs: w.now() + UNTIL_MS,
      window: 'slice-1',
      keepsStored,
    });
    expect(ask.all).toBe(all);
    expect(sent(w)).toEqual([]);
  });

  it('a key kept as a lost answer settles with it, unsent; the others go in the first fetchAll', () => {
    const w = world((url) => found(url));
    const kept = lostAnswer('Address unavailable');
    w.stored.set('b', kept);
    const step = claimIn(w, ['a', 'b', 'c']);
    expect(step.claimed.first?.stored.get('b')).toEqual(kept);
    expect(step.claimed.first?.first).toEqual(['a', 'c']);
    const report = sendIt(w, step);
    expect(sent(w)).toEqual(['send a,c']);
    expect(report.alreadyKept.get('b')).toEqual(kept);
    expect(report.requestsSent).toBe(2);
  });

  it('sent after the hold with the lock free or not: its answers kept in the store before the claims go', () => {
    const w = world((url) => found(`${url}@x.test`));
    const step = claimIn(w, ['a', 'b']);
    w.setRefused(true);
    const report = sendIt(w, step);
    expect(w.log.filter((line) => !line.startsWith('sleep'))).toEqual(['send a,b', 'store a,b', 'release 2']);
    expect(report.outcomes.get('b')).toMatchObject({ kind: 'found' });
    expect(report.lockBusy).toBe(false);
    expect(claimsHeld(w)).toEqual([]);
    expect(w.store.beingSent.size).toBe(0);
  });

  it('a key another execution stored meanwhile is kept, not sent; nothing claimed sends nothing', () => {
    const w = world((url) => found(url));
    w.stored.set('a', found('a@x.test'));
    const report = sendIt(w, claimIn(w, ['a']));
    expect(sent(w)).toEqual([]);
    expect(report.alreadyKept.get('a')).toEqual(found('a@x.test'));
    expect(claimsHeld(w)).toEqual([]);
    w.cache.set(claimKey('z'), BULK_CLAIM);
    const none = claimIn(w, ['z']);
    expect(none.claimed.first).toBeUndefined();
    expect(sendIt(w, none).heldBy.get('z')).toBe(BULK_CLAIM);
    expect(sent(w)).toEqual([]);
  });
});

/** Port calls that give a claim or a marker back: a throw there is the release failing, not a step of the lookup. */
const RELEASES = new Set(['cache.removeAll', 'cache.remove']);

class Injected extends Error {}

/**
 * A world of plain objects whose `throwAt`-th port call (counting every call but the releases) throws; `calls`
 * lists the calls made, by port and method.
 */
function throwingWorld(throwAt = 0) {
  const cache = new Map<string, string>();
  const calls: string[] = [];
  let now = 1_000;
  const step = (name: string) => {
    if (RELEASES.has(name)) return;
    calls.push(name);
    if (calls.length === throwAt) throw new Injected(`thrown at ${name}`);
  };
  const store = memoryStore((call) => step(`store.${call.split(' ')[0]}`));
  const ports: LookupPorts = {
    store,
    cache: memoryCache(cache, (call) => step(`cache.${call}`)),
    lock: {
      tryWith: (work) => {
        step('lock.tryLock');
        const value = work();
        step('lock.releaseLock');
        return { value };
      },
    },
    clock: {
      now: () => now,
      sleep: (ms) => {
        now += ms;
      },
    },
    transport: {
      sendBatch: (urls) => {
        step('transport.fetchAll');
        now += 100;
        return { outcomes: urls.map((url) => found(url)), sent: urls.length, lost: false };
      },
    },
  };
  return { ports, cache, stored: store.results, calls };
}

/** The daily limit's shape: what is claimed is reserved under the lock; what was not charged is given back. */
function reservationGate() {
  const spend = { reserved: 0 };
  const gate: Gate = {
    name: 'reservation',
    admit(_markers, free) {
      spend.reserved += free;
      return { take: free };
    },
    close({ charged }) {
      const unused = spend.reserved - charged;
      spend.reserved -= unused;
    },
  };
  return { gate, spend };
}

/** No key check passed: the account check sends its first key alone and holds its marker meanwhile. */
const noKeyCheckPassed = { passed: () => false } as unknown as KeyCheckGate;

/** One formula-like lookup of five new profiles, in batches of two; its error, if any. */
function lookUpFive(w: ReturnType<typeof throwingWorld>) {
  const { gate, spend } = reservationGate();
  const session = openLookup(w.ports, {
    apiKey: 'k',
    endpoint: 'https://service.test/network_finder',
    claim: { value: FORMULA_CLAIM, seconds: 31 },
    budget: sliceBudget(w.ports.clock.now() + 60_000),
    retry: DEFAULT_RETRY,
    sizer: fixedBatchSize(2),
    inStore: () => ({ stored: new Set<string>() }),
    gates: [accountCheckGate(w.ports.cache, 'k', 31, noKeyCheckPassed), gate],
  });
  let error: unknown;
  try {
    session.lookUp(new Map(['a', 'b', 'c', 'd', 'e'].map((key) => [key, key])));
  } catch (thrown) {
    error = thrown;
  } finally {
    try {
      session.close();
    } catch (thrown) {
      error ??= thrown;
    }
  }
  return { error, spend };
}

const heldAfter = (w: ReturnType<typeof throwingWorld>) =>
  [...w.cache.keys()].filter((key) => key.startsWith(CLAIM_PREFIX) || key === ACCOUNT_CHECK_KEY);

describe('release by construction: a lookup whose ports throw at any step', () => {
  it('a lookup that meets no error sends every key and leaves nothing held (the steps the next test breaks)', () => {
    const w = throwingWorld();
    const { error, spend } = lookUpFive(w);
    expect(error).toBeUndefined();
    expect(w.stored.size).toBe(5);
    expect(heldAfter(w)).toEqual([]);
    expect(spend.reserved).toBe(5);
    // Each kind of step is there to be broken: the claims' read and put, both lock calls, the store's check and
    // write, the fetch.
    for (const name of [
      'cache.getAll',
      'cache.putAll',
      'lock.tryLock',
      'lock.releaseLock',
      'store.beginSend',
      'store.keep',
      'transport.fetchAll',
    ])
      expect(w.calls).toContain(name);
  });

  it('whichever port call throws, nothing is held afterwards: no claim, no marker, no credit reserved unspent', () => {
    const steps = throwingWorld();
    lookUpFive(steps);
    expect(steps.calls.length).toBeGreaterThan(8);
    for (let at = 1; at <= steps.calls.length; at++) {
      const w = throwingWorld(at);
      const { error, spend } = lookUpFive(w);
      const where = `thrown at call ${at} (${steps.calls[at - 1]})`;
      expect([where, error]).toEqual([where, expect.any(Injected)]);
      expect([where, heldAfter(w)]).toEqual([where, []]);
      // What was charged is stored; nothing more stays reserved.
      expect([where, spend.reserved]).toEqual([where, w.stored.size]);
    }
  });
});
