/**
 * Claims on normalised URLs and the formulas' halt marker in the document cache (the DocumentCache port). Pure.
 * Whoever holds a URL's claim is the only one sending it. Read and put claims under the document lock, and
 * store a result before its claim is released, so a key seen unclaimed is either in the result store read
 * after it or really unknown. The cache is best-effort (a claim may vanish): the result store's durable record
 * of each batch being sent (ResultStore.beginSend) is what finally keeps a URL from being sent twice.
 */
import { profileHash, stableHash } from '../core/hash';
import { MAX_CLAIMS_AT_ONCE } from '../core/limits';
import { CLAIM_PREFIX, HALT_KEY } from '../core/propertyNames';
import { storedRecord } from '../core/storedJson';
import type { DocumentCache } from './ports';

/** The value of a claim the bulk run holds; a formula does not wait for those (a bulk batch may take a minute). */
export const BULK_CLAIM = 'bulk';
/** The value of a claim a formula holds. */
export const FORMULA_CLAIM = '1';

export function claimKey(key: string): string {
  return CLAIM_PREFIX + profileHash(key);
}

/** The claims held on these keys (claim key -> claim value) and the `extra` markers, in one cache call. */
export function readClaims(
  cache: DocumentCache,
  keys: string[],
  extra: string[] = [],
): Record<string, string> {
  return cache.getAll([...keys.map(claimKey), ...extra]);
}

/** Puts claims, never more than MAX_CLAIMS_AT_ONCE in one call (the cache keeps at most about 1,000 items). */
export function putClaims(cache: DocumentCache, keys: string[], value: string, seconds: number): void {
  for (let from = 0; from < keys.length; from += MAX_CLAIMS_AT_ONCE) {
    const claims: Record<string, string> = {};
    for (const key of keys.slice(from, from + MAX_CLAIMS_AT_ONCE)) claims[claimKey(key)] = value;
    cache.putAll(claims, seconds);
  }
}

export function releaseClaims(cache: DocumentCache | null, keys: string[]): void {
  if (cache && keys.length > 0) cache.removeAll(keys.map(claimKey));
}

/**
 * The claims one lookup put: released as their keys settle, and the rest in one place (`releaseAll`, the session's
 * `finally`) whatever ended the lookup. A key counts as held from before its claim is put, so a put that throws
 * half-way is released too.
 */
export interface ClaimScope {
  put(keys: string[], value: string, seconds: number): void;
  /** Releases the claims of these keys this scope holds. */
  release(keys: readonly string[]): void;
  /** Releases every claim still held. */
  releaseAll(): void;
  /** The keys whose claims are held now. */
  held(): string[];
}

export function claimScope(cache: DocumentCache | null): ClaimScope {
  const held = new Set<string>();
  const release = (keys: readonly string[]) => {
    const mine = keys.filter((key) => held.has(key));
    for (const key of mine) held.delete(key);
    releaseClaims(cache, mine);
  };
  return {
    put(keys, value, seconds) {
      if (!cache) return;
      for (const key of keys) held.add(key);
      putClaims(cache, keys, value, seconds);
    },
    release,
    releaseAll: () => release([...held]),
    held: () => [...held],
  };
}

export interface Halt {
  message: string;
  keyHash: string;
}

/** The halt stored under HALT_KEY, if it was written for this key. */
export function parseHalt(raw: string | null | undefined, apiKey: string): Halt | undefined {
  const halt = storedRecord<Halt>(raw, { message: 'string', keyHash: 'string' });
  return halt?.keyHash === stableHash(apiKey) ? halt : undefined;
}

/** After a 401 or 402, formulas stop calling the service for a short window (shared by all cells). */
export function readHalt(cache: DocumentCache | null, apiKey: string): Halt | undefined {
  return parseHalt(cache?.get(HALT_KEY), apiKey);
}

export function writeHalt(
  cache: DocumentCache | null,
  apiKey: string,
  message: string,
  seconds: number,
): void {
  const halt: Halt = { message, keyHash: stableHash(apiKey) };
  cache?.put(HALT_KEY, JSON.stringify(halt), seconds);
}
