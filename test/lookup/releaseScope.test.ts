/**
 * Release by construction: a lookup whose ports throw at any step — each cache write, each lock call, each store
 * read and write, the fetch — leaves nothing held afterwards: no claim, no account-check marker, no reservation of
 * the daily limit beyond what was charged. Plain objects as ports (the emulator is not needed to make a port throw).
 */

import { DEFAULT_RETRY } from '../../src/core/limits';
import { ACCOUNT_CHECK_KEY, CLAIM_PREFIX } from '../../src/core/propertyNames';
import { accountCheckGate } from '../../src/formula/gates';
import { fixedBatchSize, sliceBudget } from '../../src/lookup/budget';
import { FORMULA_CLAIM } from '../../src/lookup/claims';
import type { Gate } from '../../src/lookup/gate';
import type { KeyCheckGate } from '../../src/lookup/keyCheck';
import type { LookupPorts, SendCheck } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';
import { openLookup } from '../../src/lookup/session';
import { memoryCache } from '../support/platform';
import { found } from '../support/results';

/** Port calls that give a claim or a marker back: a throw there is the release failing, not a step of the lookup. */
const RELEASES = new Set(['cache.removeAll', 'cache.remove']);

class Injected extends Error {}

/**
 * A world of plain objects whose `throwAt`-th port call (counting every call but the releases) throws; `calls`
 * lists the calls made, by port and method.
 */
function world(throwAt = 0) {
  const cache = new Map<string, string>();
  const stored = new Map<string, LookupResult>();
  const calls: string[] = [];
  let now = 1_000;
  const step = (name: string) => {
    if (RELEASES.has(name)) return;
    calls.push(name);
    if (calls.length === throwAt) throw new Injected(`thrown at ${name}`);
  };
  const check = (keys: string[]): SendCheck => ({
    send: keys.filter((key) => !stored.has(key)),
    stored: new Map(
      keys.filter((key) => stored.has(key)).map((key) => [key, stored.get(key) as LookupResult]),
    ),
    elsewhere: [],
    full: [],
    lost: new Map(),
    held: [],
    sending: ['pef.s.1'],
  });
  const ports: LookupPorts = {
    store: {
      getMany: () => new Map(),
      readStored: () => ({ results: new Map(), room: Number.POSITIVE_INFINITY, property: () => undefined }),
      snapshot: () => () => undefined,
      putMany: (entries) => {
        step('store.putMany');
        for (const [key, result] of entries) stored.set(key, result);
      },
      beginSend: (keys) => {
        step('store.beginSend');
        return check(keys);
      },
    },
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
  return { ports, cache, stored, calls };
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
const noKeyCheck = { passed: () => false } as unknown as KeyCheckGate;

/** One formula-like lookup of five new profiles, in batches of two; its error, if any. */
function lookUp(w: ReturnType<typeof world>) {
  const { gate, spend } = reservationGate();
  const session = openLookup(w.ports, {
    apiKey: 'k',
    endpoint: 'https://service.test/network_finder',
    claim: { value: FORMULA_CLAIM, seconds: 31 },
    budget: sliceBudget(w.ports.clock.now() + 60_000),
    retry: DEFAULT_RETRY,
    sizer: fixedBatchSize(2),
    inStore: () => ({ stored: new Set<string>() }),
    gates: [accountCheckGate(w.ports.cache, 'k', 31, noKeyCheck), gate],
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

const held = (w: ReturnType<typeof world>) =>
  [...w.cache.keys()].filter((key) => key.startsWith(CLAIM_PREFIX) || key === ACCOUNT_CHECK_KEY);

test('a lookup that meets no error sends every key and leaves nothing held (the steps the next test breaks)', () => {
  const w = world();
  const { error, spend } = lookUp(w);
  expect(error).toBeUndefined();
  expect(w.stored.size).toBe(5);
  expect(held(w)).toEqual([]);
  expect(spend.reserved).toBe(5);
  // Each kind of step is there to be broken: the claims' read and put, both lock calls, the store's check and
  // write, the fetch.
  for (const name of [
    'cache.getAll',
    'cache.putAll',
    'lock.tryLock',
    'lock.releaseLock',
    'store.beginSend',
    'store.putMany',
    'transport.fetchAll',
  ])
    expect(w.calls).toContain(name);
});

test('whichever port call throws, nothing is held afterwards: no claim, no marker, no credit reserved unspent', () => {
  const steps = world();
  lookUp(steps);
  expect(steps.calls.length).toBeGreaterThan(8);
  for (let at = 1; at <= steps.calls.length; at++) {
    const w = world(at);
    const { error, spend } = lookUp(w);
    const where = `thrown at call ${at} (${steps.calls[at - 1]})`;
    expect([where, error]).toEqual([where, expect.any(Injected)]);
    expect([where, held(w)]).toEqual([where, []]);
    // What was charged is stored; nothing more stays reserved.
    expect([where, spend.reserved]).toEqual([where, w.stored.size]);
  }
});
