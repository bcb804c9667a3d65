/**
 * Claims on normalised URLs in the document cache, shared by =FINDEMAIL and the bulk run: whoever holds a URL's
 * claim is the only one sending it. Read and put them under the document lock, and cache a result before its
 * claim is released, so a key seen unclaimed is either in the result store read after it or really unknown.
 */
import { stableHash } from '../core/hash';

const CLAIM_PREFIX = 'pef.claim.';
/** The value of a claim the bulk run holds; a formula does not wait for those (a bulk batch may take a minute). */
export const BULK_CLAIM = 'bulk';

type DocCache = GoogleAppsScript.Cache.Cache;

export function claimKey(key: string): string {
  return CLAIM_PREFIX + stableHash(key);
}

/** The claims held on these keys (key -> claim value), in one cache call. */
export function readClaims(cache: DocCache, keys: string[], extra: string[] = []): Record<string, string> {
  return cache.getAll([...keys.map(claimKey), ...extra]);
}

export function putClaims(cache: DocCache, keys: string[], value: string, seconds: number): void {
  if (keys.length === 0) return;
  const claims: Record<string, string> = {};
  for (const key of keys) claims[claimKey(key)] = value;
  cache.putAll(claims, seconds);
}

export function releaseClaims(cache: DocCache | null, keys: string[]): void {
  if (cache && keys.length > 0) cache.removeAll(keys.map(claimKey));
}
