/** Claims never exceed what the cache keeps in one call, and the claim step claims at most MAX_CLAIMS_AT_ONCE keys. */

import { MAX_CLAIMS_AT_ONCE } from '../../src/core/limits';
import { claimUnknown } from '../../src/lookup/claimStep';
import { claimKey, claimScope, putClaims } from '../../src/lookup/claims';
import type { DocumentCache, LookupPorts } from '../../src/lookup/ports';
import { memoryCache } from '../support/platform';
import { memoryStore } from './memoryStore';

function recordingCache(): { cache: DocumentCache; putSizes: number[]; entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const putSizes: number[] = [];
  const cache = memoryCache(entries, (call, keys) => {
    if (call === 'putAll') putSizes.push(keys.length);
  });
  return { cache, putSizes, entries };
}

const keys = Array.from({ length: 1100 }, (_, i) => `network.com/in/key-${i}`);

/** The claim step's ports: an empty store, `cache`, a lock that is always free. */
function portsOver(cache: LookupPorts['cache']): LookupPorts {
  return {
    store: memoryStore(),
    cache,
    lock: { tryWith: <T>(work: () => T) => ({ value: work() }) },
  } as Partial<LookupPorts> as LookupPorts;
}

/** A claim of `keys` with room for `room` results, no gate, its claims put in `cache`. */
const ask = (cache: DocumentCache, claimed: string[], room = 2000) => ({
  keys: claimed,
  claims: claimScope(cache),
  value: '1',
  seconds: 31,
  inStore: () => ({ stored: new Set<string>(), room }),
  gates: [],
  firstBatch: () => undefined,
});

test('putClaims splits 1,100 claims into calls of at most MAX_CLAIMS_AT_ONCE (the cache keeps about 1,000 items)', () => {
  const { cache, putSizes, entries } = recordingCache();
  putClaims(cache, keys, '1', 31);
  expect(Math.max(...putSizes)).toBeLessThanOrEqual(MAX_CLAIMS_AT_ONCE);
  expect(MAX_CLAIMS_AT_ONCE).toBeLessThan(900);
  expect(entries.size).toBe(1100);
});

test('claimUnknown claims at most MAX_CLAIMS_AT_ONCE keys; the rest wait (blocked), none is lost', () => {
  const { cache, putSizes } = recordingCache();
  const ports = portsOver(cache);
  const first = claimUnknown(ports, ask(cache, keys));
  expect(first?.mine).toHaveLength(MAX_CLAIMS_AT_ONCE);
  expect(first?.blocked).toHaveLength(1100 - MAX_CLAIMS_AT_ONCE);
  expect(Math.max(...putSizes)).toBeLessThanOrEqual(MAX_CLAIMS_AT_ONCE);
  // Claimed keys are held: a second call claims the next ones.
  const second = claimUnknown(ports, ask(cache, keys));
  expect(second?.heldBy.size).toBe(MAX_CLAIMS_AT_ONCE);
  expect(second?.mine[0]).toBe(keys[MAX_CLAIMS_AT_ONCE]);
  expect(cache.get(claimKey(keys[0]))).toBe('1');
});

test('claimUnknown claims no more than the store can keep: the rest are reported unsaved, not claimed', () => {
  const { cache } = recordingCache();
  const ports = portsOver(cache);
  const claimed = claimUnknown(ports, ask(cache, keys.slice(0, 10), 3));
  expect(claimed?.mine).toEqual(keys.slice(0, 3));
  expect(claimed?.unsaved).toEqual(keys.slice(3, 10));
  expect(cache.get(claimKey(keys[5]))).toBeNull();
});
