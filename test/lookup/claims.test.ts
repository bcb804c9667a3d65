/** Claims and the halt marker in the document cache (src/lookup/claims.ts), over a cache in memory. */

import { stableHash } from '../../src/core/hash';
import { MAX_CLAIMS_AT_ONCE } from '../../src/core/limits';
import { CLAIM_PREFIX, HALT_KEY } from '../../src/core/propertyNames';
import {
  BULK_CLAIM,
  claimKey,
  claimScope,
  FORMULA_CLAIM,
  parseHalt,
  putClaims,
  readClaims,
  readHalt,
  releaseClaims,
  writeHalt,
} from '../../src/lookup/claims';
import type { DocumentCache } from '../../src/lookup/ports';
import { memoryCache } from '../support/platform';

const A = 'network.com/in/ann';
const B = 'network.com/in/bob';
const C = 'network.com/in/cat';

/** A cache in memory that records its calls (name and keys). */
function recorded(entries = new Map<string, string>()) {
  const calls: Array<[keyof DocumentCache, string[]]> = [];
  const cache = memoryCache(entries, (call, keys) => calls.push([call, keys]));
  return { entries, calls, cache };
}

describe('claimKey', () => {
  it('is the claim prefix and a stable hash of the key: the same key, the same claim; two keys, two claims', () => {
    expect(claimKey(A)).toBe(CLAIM_PREFIX + stableHash(A));
    expect(claimKey(A)).toBe(claimKey(A));
    expect(claimKey(A)).not.toBe(claimKey(B));
  });
});

describe('readClaims', () => {
  it('reads the claims of the keys and the extra markers in one cache call', () => {
    const { entries, calls, cache } = recorded(
      new Map([
        [claimKey(A), BULK_CLAIM],
        [HALT_KEY, 'halted'],
      ]),
    );
    entries.set('unrelated', 'x');
    expect(readClaims(cache, [A, B], [HALT_KEY])).toEqual({
      [claimKey(A)]: BULK_CLAIM,
      [HALT_KEY]: 'halted',
    });
    expect(calls).toEqual([['getAll', [claimKey(A), claimKey(B), HALT_KEY]]]);
  });
});

describe('putClaims and releaseClaims', () => {
  it('puts each key with the value and the lifetime given, in calls of at most MAX_CLAIMS_AT_ONCE', () => {
    const lifetimes: number[] = [];
    const entries = new Map<string, string>();
    const base = memoryCache(entries);
    const cache: DocumentCache = {
      ...base,
      putAll: (values, seconds) => {
        lifetimes.push(seconds);
        expect(Object.keys(values).length).toBeLessThanOrEqual(MAX_CLAIMS_AT_ONCE);
        base.putAll(values, seconds);
      },
    };
    const keys = Array.from({ length: MAX_CLAIMS_AT_ONCE + 1 }, (_, i) => `network.com/in/p${i}`);
    putClaims(cache, keys, FORMULA_CLAIM, 90);
    expect(lifetimes).toEqual([90, 90]);
    expect(entries.size).toBe(keys.length);
    for (const key of keys) expect(entries.get(claimKey(key))).toBe(FORMULA_CLAIM);
  });

  it('releases exactly the claims of the keys named, and calls nothing for none or without a cache', () => {
    const { entries, calls, cache } = recorded();
    putClaims(cache, [A, B], BULK_CLAIM, 60);
    calls.length = 0;
    releaseClaims(cache, [A]);
    expect([...entries.keys()]).toEqual([claimKey(B)]);
    releaseClaims(cache, []);
    expect(() => releaseClaims(null, [B])).not.toThrow();
    expect(calls).toEqual([['removeAll', [claimKey(A)]]]);
  });
});

describe('claimScope', () => {
  it('releases a key as it settles, and every other claim it put at releaseAll', () => {
    const { entries, cache } = recorded();
    const scope = claimScope(cache);
    scope.put([A, B, C], FORMULA_CLAIM, 30);
    scope.release([A]);
    expect(scope.held().sort()).toEqual([B, C].sort());
    expect(entries.has(claimKey(A))).toBe(false);
    scope.releaseAll();
    expect(scope.held()).toEqual([]);
    expect(entries.size).toBe(0);
  });

  it("never releases a claim it did not put: another execution's claim on the same cache stays", () => {
    const { entries, cache } = recorded();
    putClaims(cache, [B], BULK_CLAIM, 60);
    const scope = claimScope(cache);
    scope.put([A], FORMULA_CLAIM, 30);
    scope.release([A, B]);
    scope.releaseAll();
    expect(entries.get(claimKey(B))).toBe(BULK_CLAIM);
    expect(entries.has(claimKey(A))).toBe(false);
  });

  it('a key released once is not released again (no second removeAll for it)', () => {
    const { calls, cache } = recorded();
    const scope = claimScope(cache);
    scope.put([A, B], FORMULA_CLAIM, 30);
    scope.release([A]);
    scope.release([A]);
    scope.releaseAll();
    scope.releaseAll();
    const removed = calls.filter(([call]) => call === 'removeAll').map(([, keys]) => keys);
    expect(removed).toEqual([[claimKey(A)], [claimKey(B)]]);
  });

  it('a put that throws half-way still counts its keys as held, so releaseAll frees those the cache kept', () => {
    const entries = new Map<string, string>();
    let puts = 0;
    const base = memoryCache(entries);
    const cache: DocumentCache = {
      ...base,
      putAll: (values, seconds) => {
        puts++;
        base.putAll(values, seconds);
        if (puts === 2) throw new Error('Service invoked too many times: cache');
      },
    };
    const keys = Array.from({ length: MAX_CLAIMS_AT_ONCE * 3 }, (_, i) => `network.com/in/p${i}`);
    const scope = claimScope(cache);
    expect(() => scope.put(keys, FORMULA_CLAIM, 30)).toThrow('too many times');
    expect(entries.size).toBe(MAX_CLAIMS_AT_ONCE * 2);
    expect(scope.held()).toHaveLength(keys.length);
    scope.releaseAll();
    expect(entries.size).toBe(0);
  });

  it('without a cache, holds nothing and calls nothing', () => {
    const scope = claimScope(null);
    scope.put([A], FORMULA_CLAIM, 30);
    expect(scope.held()).toEqual([]);
    expect(() => scope.releaseAll()).not.toThrow();
  });
});

describe('the halt marker', () => {
  it('is read back for the key that wrote it, with its message and lifetime', () => {
    let lifetime = 0;
    const entries = new Map<string, string>();
    const base = memoryCache(entries);
    const cache: DocumentCache = {
      ...base,
      put: (key, value, seconds) => {
        lifetime = seconds;
        base.put(key, value, seconds);
      },
    };
    writeHalt(cache, 'key-of-ann-123', 'Out of credits. Buy credits, then use Retry.', 120);
    expect(lifetime).toBe(120);
    expect(readHalt(cache, 'key-of-ann-123')).toEqual({
      message: 'Out of credits. Buy credits, then use Retry.',
      keyHash: stableHash('key-of-ann-123'),
    });
  });

  it("does not halt another key: a user whose key works is not stopped by another user's 402", () => {
    const { cache } = recorded();
    writeHalt(cache, 'key-of-ann-123', 'Out of credits.', 120);
    expect(readHalt(cache, 'key-of-bob-456')).toBeUndefined();
  });

  it('is no halt when absent, unreadable or of the wrong shape, and nothing without a cache', () => {
    expect(parseHalt(null, 'k-12345678')).toBeUndefined();
    expect(parseHalt(undefined, 'k-12345678')).toBeUndefined();
    expect(parseHalt('{not json', 'k-12345678')).toBeUndefined();
    expect(
      parseHalt(JSON.stringify({ message: 7, keyHash: stableHash('k-12345678') }), 'k-12345678'),
    ).toBeUndefined();
    expect(readHalt(null, 'k-12345678')).toBeUndefined();
    expect(() => writeHalt(null, 'k-12345678', 'x', 10)).not.toThrow();
  });
});
