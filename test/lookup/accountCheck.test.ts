/**
 * =FINDEMAIL's account check in the document cache (src/lookup/accountCheck.ts): one cell at a time sends a single
 * request while no charged answer proved the account works, so hundreds of cells of an account without credits
 * send one failing request, not hundreds.
 */

import { stableHash } from '../../src/core/hash';
import { ACCOUNT_OK_SECONDS } from '../../src/core/limits';
import { ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, HALT_KEY } from '../../src/core/propertyNames';
import {
  ACCOUNT_CHECK_MARKERS,
  accountCheckOver,
  admission,
  beginAccountCheck,
  dropAccountCheck,
  endAccountCheck,
} from '../../src/lookup/accountCheck';
import { writeHalt } from '../../src/lookup/claims';
import type { DocumentCache } from '../../src/lookup/ports';
import { memoryCache } from '../support/platform';

const ANN = 'key-of-ann-123';
const BOB = 'key-of-bob-456';

/** A cache in memory that remembers each entry's lifetime. */
function cacheWithLifetimes() {
  const entries = new Map<string, string>();
  const lifetimes = new Map<string, number>();
  const base = memoryCache(entries);
  const cache: DocumentCache = {
    ...base,
    put: (key, value, seconds) => {
      lifetimes.set(key, seconds);
      base.put(key, value, seconds);
    },
  };
  const markers = () => cache.getAll(ACCOUNT_CHECK_MARKERS);
  return { entries, lifetimes, cache, markers };
}

describe('admission', () => {
  it('the first cell with keys to claim checks the account; the next ones wait for it', () => {
    const { cache, markers } = cacheWithLifetimes();
    expect(admission(markers(), ANN, 5)).toBe('check account');
    beginAccountCheck(cache, 30);
    expect(admission(markers(), ANN, 5)).toBe('wait');
    expect(admission(markers(), ANN, 40)).toBe('wait');
  });

  it('a cell with nothing left to claim just claims (it sends nothing)', () => {
    const { cache, markers } = cacheWithLifetimes();
    beginAccountCheck(cache, 30);
    expect(admission(markers(), ANN, 0)).toBe('claim');
  });

  it('after a charged answer, every cell of that key claims at once for ACCOUNT_OK_SECONDS', () => {
    const { cache, markers, lifetimes } = cacheWithLifetimes();
    beginAccountCheck(cache, 30);
    endAccountCheck(cache, ANN, true);
    expect(lifetimes.get(ACCOUNT_OK_KEY)).toBe(ACCOUNT_OK_SECONDS);
    expect(admission(markers(), ANN, 5)).toBe('claim');
  });

  it("another key's proof proves nothing for this one: a second user's cells still check their own account", () => {
    const { cache, markers } = cacheWithLifetimes();
    endAccountCheck(cache, ANN, true);
    expect(admission(markers(), BOB, 5)).toBe('check account');
  });

  it("a halt written for this key stops the cells before any claim; another key's halt does not", () => {
    const { cache, markers } = cacheWithLifetimes();
    endAccountCheck(cache, ANN, true);
    writeHalt(cache, ANN, 'Out of credits. Buy credits, then use Retry.', 60);
    expect(admission(markers(), ANN, 5)).toEqual({
      halt: { message: 'Out of credits. Buy credits, then use Retry.', keyHash: stableHash(ANN) },
    });
    expect(admission(markers(), ANN, 0)).toMatchObject({ halt: expect.anything() });
    expect(admission(markers(), BOB, 5)).toBe('check account');
  });

  it('reads its markers in the same call as the claims: the check, the proof and the halt', () => {
    expect([...ACCOUNT_CHECK_MARKERS].sort()).toEqual([ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, HALT_KEY].sort());
  });
});

describe('the end of a check', () => {
  it('an uncharged answer (a 402) ends the check without a proof: the next cell checks again, one at a time', () => {
    const { cache, markers, entries } = cacheWithLifetimes();
    beginAccountCheck(cache, 30);
    expect(accountCheckOver(markers(), ANN)).toBe(false);
    endAccountCheck(cache, ANN, false);
    expect(entries.has(ACCOUNT_OK_KEY)).toBe(false);
    expect(accountCheckOver(markers(), ANN)).toBe(true);
    expect(admission(markers(), ANN, 5)).toBe('check account');
  });

  it('a check dropped (nothing sent, a failure) frees the next cell to check, and proves nothing', () => {
    const { cache, markers, entries } = cacheWithLifetimes();
    beginAccountCheck(cache, 30);
    dropAccountCheck(cache);
    expect(entries.has(ACCOUNT_CHECK_KEY)).toBe(false);
    expect(entries.has(ACCOUNT_OK_KEY)).toBe(false);
    expect(admission(markers(), ANN, 5)).toBe('check account');
  });

  it('the check marker lives as long as the claims it goes with', () => {
    const { cache, lifetimes } = cacheWithLifetimes();
    beginAccountCheck(cache, 45);
    expect(lifetimes.get(ACCOUNT_CHECK_KEY)).toBe(45);
  });

  it('a waiting cell may go on once the account is proved, even while the marker is still there', () => {
    const { cache, markers } = cacheWithLifetimes();
    beginAccountCheck(cache, 30);
    cache.put(ACCOUNT_OK_KEY, stableHash(ANN), ACCOUNT_OK_SECONDS);
    expect(accountCheckOver(markers(), ANN)).toBe(true);
    expect(accountCheckOver(markers(), BOB)).toBe(false);
  });

  it('without a cache, ending or dropping a check does nothing and does not throw', () => {
    expect(() => endAccountCheck(null, ANN, true)).not.toThrow();
    expect(() => dropAccountCheck(null)).not.toThrow();
  });
});
