/**
 * The formula's gates kept in the document cache: the halt after a 401 or 402 (every cell of the document pauses,
 * for this key only), and the account check (one cell sends alone while the others wait; its marker never outlives
 * the session).
 */
import { stableHash } from '../../src/core/hash';
import { HALT_SECONDS } from '../../src/core/limits';
import { ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, HALT_KEY } from '../../src/core/propertyNames';
import { accountCheckGate, haltFormulas, haltGate } from '../../src/formula/gates';
import type { Admission, Gate } from '../../src/lookup/gate';
import type { KeyCheckGate } from '../../src/lookup/keyCheck';
import type { BatchReport } from '../../src/lookup/pipeline';
import type { DocumentCache } from '../../src/lookup/ports';
import { type ErrorKind, serviceError } from '../../src/lookup/result';
import { memoryCache } from '../support/platform';

const KEY = 'key-of-the-owner';
const OTHER_KEY = 'another-key';

function cacheWithSeconds() {
  const entries = new Map<string, string>();
  const seconds = new Map<string, number | undefined>();
  const base = memoryCache(entries);
  const cache: DocumentCache = {
    ...base,
    put(key, value, ttl) {
      seconds.set(key, ttl);
      base.put(key, value, ttl);
    },
  };
  return { cache, entries, seconds };
}

const batch = (charged: number, halt?: ErrorKind): BatchReport => ({
  stored: Array.from({ length: charged }, (_, i) => [`key-${i}`, {}] as BatchReport['stored'][number]),
  halt: halt && serviceError(halt, `the service said ${halt}`),
});

describe('haltFormulas', () => {
  test.each(['unauthorized', 'payment_required'] as const)(
    'a %s answer halts the formulas for HALT_SECONDS and forgets that the account worked',
    (kind) => {
      const { cache, entries, seconds } = cacheWithSeconds();
      entries.set(ACCOUNT_OK_KEY, stableHash(KEY));
      haltFormulas(cache, KEY, serviceError(kind, 'refused'));
      expect(seconds.get(HALT_KEY)).toBe(HALT_SECONDS);
      expect(JSON.parse(entries.get(HALT_KEY) as string)).toMatchObject({ keyHash: stableHash(KEY) });
      expect(entries.has(ACCOUNT_OK_KEY)).toBe(false);
    },
  );

  test.each(['rate_limited', 'server_error', 'quota', 'timeout'] as const)(
    'a %s answer does not halt the formulas',
    (kind) => {
      const { cache, entries } = cacheWithSeconds();
      entries.set(ACCOUNT_OK_KEY, stableHash(KEY));
      haltFormulas(cache, KEY, serviceError(kind, 'trouble'));
      expect(entries.has(HALT_KEY)).toBe(false);
      expect(entries.get(ACCOUNT_OK_KEY)).toBe(stableHash(KEY));
    },
  );

  test('without a document cache there is nothing to write and nothing fails', () => {
    expect(() => haltFormulas(null, KEY, serviceError('payment_required', 'no credits'))).not.toThrow();
  });
});

describe('haltGate', () => {
  test('a halt written for this key stops the lookup before the claim, at admission and before a batch', () => {
    const { cache, entries } = cacheWithSeconds();
    haltFormulas(cache, KEY, serviceError('payment_required', 'no credits'));
    const gate = haltGate(cache, KEY);
    const before = gate.beforeClaim?.(3);
    expect(before?.stop).toMatchObject({ kind: 'error', error: 'config', effect: 'pause' });
    expect(before?.stop?.message).toMatch(/Settings tab/);
    expect(gate.markers).toEqual([HALT_KEY]);
    const admitted = gate.admit?.({ [HALT_KEY]: entries.get(HALT_KEY) as string }, 3) as Admission;
    expect(admitted).toEqual({ stop: before?.stop });
    expect(gate.beforeBatch?.()).toEqual(before?.stop);
  });

  test("another key's halt does not stop this key's formulas", () => {
    const { cache, entries } = cacheWithSeconds();
    haltFormulas(cache, OTHER_KEY, serviceError('unauthorized', 'bad key'));
    const gate = haltGate(cache, KEY);
    expect(gate.beforeClaim?.(1)).toBeFalsy();
    expect(gate.admit?.({ [HALT_KEY]: entries.get(HALT_KEY) as string }, 1)).toBeFalsy();
    expect(gate.beforeBatch?.()).toBeFalsy();
  });

  test('admission reads the markers given (read with the claims), not the cache again', () => {
    const { cache, entries } = cacheWithSeconds();
    haltFormulas(cache, KEY, serviceError('unauthorized', 'bad key'));
    const written = entries.get(HALT_KEY) as string;
    const gate = haltGate(cache, KEY);
    expect(gate.admit?.({}, 2)).toBeFalsy();
    entries.clear();
    expect(gate.admit?.({ [HALT_KEY]: written }, 2)).toHaveProperty('stop');
  });

  test('an unreadable halt marker stops nothing', () => {
    const { cache, entries } = cacheWithSeconds();
    entries.set(HALT_KEY, '{not json');
    const gate = haltGate(cache, KEY);
    expect(gate.beforeClaim?.(1)).toBeFalsy();
    expect(gate.beforeBatch?.()).toBeFalsy();
  });

  test("a batch's 401 or 402 halts the other cells; a charged batch without one does not", () => {
    const { cache, entries } = cacheWithSeconds();
    const gate = haltGate(cache, KEY);
    gate.afterBatch?.(batch(2));
    expect(entries.has(HALT_KEY)).toBe(false);
    gate.afterBatch?.(batch(0, 'payment_required'));
    expect(haltGate(cache, KEY).beforeClaim?.(1)).toHaveProperty('stop');
  });
});

/** Admits `free` keys with no marker set, and begins what the gate begins once the claims are put. */
function admitAndClaim(gate: Gate, free: number): void {
  const admitted = gate.admit?.({}, free);
  if (!admitted || !('take' in admitted)) throw new Error('the gate did not admit keys');
  admitted.claimed?.();
}

describe('accountCheckGate', () => {
  const keyCheck = (passed: boolean) => ({ name: 'key check', passed: () => passed }) as KeyCheckGate;
  const SECONDS = 31;

  test('while nothing proved the account, the first cell sends its first key alone and marks the check', () => {
    const { cache, entries, seconds } = cacheWithSeconds();
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    expect(gate.markers).toEqual([ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY]);
    const admitted = gate.admit?.({}, 4) as Extract<Admission, { take: number }>;
    expect(admitted).toMatchObject({ take: 4, alone: true });
    expect(entries.has(ACCOUNT_CHECK_KEY)).toBe(false);
    admitted.claimed?.();
    expect(entries.get(ACCOUNT_CHECK_KEY)).toBe('1');
    expect(seconds.get(ACCOUNT_CHECK_KEY)).toBe(SECONDS);
  });

  test('another cell checking: this one waits', () => {
    const { cache } = cacheWithSeconds();
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    expect(gate.admit?.({ [ACCOUNT_CHECK_KEY]: '1' }, 2)).toEqual({ wait: true });
  });

  test('the account proved for this key: no check; proved for another key: checked again', () => {
    const { cache } = cacheWithSeconds();
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    expect(gate.admit?.({ [ACCOUNT_OK_KEY]: stableHash(KEY), [ACCOUNT_CHECK_KEY]: '1' }, 2)).toBeUndefined();
    expect(gate.admit?.({ [ACCOUNT_OK_KEY]: stableHash(OTHER_KEY) }, 2)).toMatchObject({ alone: true });
  });

  test("no free key, no document cache, or this session's key check passed: the gate admits without a word", () => {
    const { cache } = cacheWithSeconds();
    expect(accountCheckGate(cache, KEY, SECONDS, keyCheck(false)).admit?.({}, 0)).toBeUndefined();
    expect(accountCheckGate(null, KEY, SECONDS, keyCheck(false)).admit?.({}, 3)).toBeUndefined();
    expect(accountCheckGate(cache, KEY, SECONDS, keyCheck(true)).admit?.({}, 3)).toBeUndefined();
  });

  test('a charged answer ends the check and proves the account for this key; the next cell claims', () => {
    const { cache, entries } = cacheWithSeconds();
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    admitAndClaim(gate, 1);
    gate.afterBatch?.(batch(1));
    expect(entries.has(ACCOUNT_CHECK_KEY)).toBe(false);
    expect(entries.get(ACCOUNT_OK_KEY)).toBe(stableHash(KEY));
    const next = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    expect(next.admit?.(Object.fromEntries(entries), 5)).toBeUndefined();
  });

  test('an uncharged answer ends the check without proving anything: the next cell checks again', () => {
    const { cache, entries } = cacheWithSeconds();
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    admitAndClaim(gate, 1);
    gate.afterBatch?.(batch(0, 'payment_required'));
    expect(entries.has(ACCOUNT_CHECK_KEY)).toBe(false);
    expect(entries.has(ACCOUNT_OK_KEY)).toBe(false);
    // A second batch after the check ended changes nothing.
    gate.afterBatch?.(batch(3));
    expect(entries.has(ACCOUNT_OK_KEY)).toBe(false);
  });

  test('a session closing with the check open (nothing sent, an error) drops the marker', () => {
    const { cache, entries } = cacheWithSeconds();
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    admitAndClaim(gate, 2);
    gate.close?.({ charged: 0 });
    expect(entries.has(ACCOUNT_CHECK_KEY)).toBe(false);
  });

  test("closing a session that never began the check leaves another cell's check alone", () => {
    const { cache, entries } = cacheWithSeconds();
    entries.set(ACCOUNT_CHECK_KEY, '1');
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    gate.admit?.({ [ACCOUNT_CHECK_KEY]: '1' }, 2);
    gate.close?.({ charged: 0 });
    gate.afterBatch?.(batch(1));
    expect(entries.get(ACCOUNT_CHECK_KEY)).toBe('1');
    expect(entries.has(ACCOUNT_OK_KEY)).toBe(false);
  });

  test('admitted but not claimed (another gate refused every key): nothing began, nothing to drop', () => {
    const { cache, entries } = cacheWithSeconds();
    entries.set(ACCOUNT_CHECK_KEY, '1');
    const gate = accountCheckGate(cache, KEY, SECONDS, keyCheck(false));
    gate.admit?.({}, 2);
    gate.close?.({ charged: 0 });
    expect(entries.get(ACCOUNT_CHECK_KEY)).toBe('1');
  });
});
