/**
 * The result store in document properties: results survive reloads and days (CacheService entries live at most
 * 6 hours). RESULT_BYTES_PROPERTY counts the results' bytes so a write need not read the whole store: it only
 * grows (a rewritten key counts twice, which evicts a little early) until an eviction recounts it exactly.
 */
import { stableHash } from '../core/hash';
import { RESULT_STORE_BUDGET_BYTES, RESULT_STORE_EVICT_TO_BYTES } from '../core/limits';
import type { LookupResult } from '../core/lookup';
import type { ResultStore } from '../core/ports';
import { RESULT_BYTES_PROPERTY, RESULT_PREFIX } from '../core/propertyNames';
import { type CachedResult, decodeResult, encodeResult } from '../core/resultCodec';
import { tryWithDocumentLock, withDocumentLockIfFree } from './lock';

function propertyKey(urlKey: string): string {
  return RESULT_PREFIX + stableHash(urlKey);
}

/** The store is full ("exceeded the property storage quota"); not a single value over 9 KB ("too large"). */
export function isQuotaError(error: unknown): boolean {
  return /quota/i.test(error instanceof Error ? error.message : String(error));
}

function resultBytes(all: Record<string, string>): number {
  let bytes = 0;
  for (const key of Object.keys(all))
    if (key.startsWith(RESULT_PREFIX)) bytes += key.length + all[key].length;
  return bytes;
}

export class PropertiesResultStore implements ResultStore {
  private readonly props = PropertiesService.getDocumentProperties();

  /** One service call whatever the number of keys. */
  getMany(urlKeys: string[]): Map<string, LookupResult> {
    const found = new Map<string, LookupResult>();
    if (urlKeys.length === 1) {
      const cached = decodeResult(this.props.getProperty(propertyKey(urlKeys[0])));
      if (cached) found.set(urlKeys[0], cached.result);
    } else if (urlKeys.length > 1) {
      const snapshot = this.snapshot();
      for (const urlKey of urlKeys) {
        const cached = snapshot(urlKey);
        if (cached) found.set(urlKey, cached.result);
      }
    }
    return found;
  }

  snapshot(): (urlKey: string) => CachedResult | undefined {
    const all = this.props.getProperties();
    return (urlKey) => decodeResult(all[propertyKey(urlKey)]);
  }

  /** The property values for these results and their size in bytes. */
  private encode(entries: Array<[string, LookupResult]>): { values: Record<string, string>; bytes: number } {
    const now = Date.now();
    const values: Record<string, string> = {};
    let bytes = 0;
    for (const [urlKey, result] of entries) {
      const key = propertyKey(urlKey);
      values[key] = encodeResult(result, now);
      bytes += key.length + values[key].length;
    }
    return { values, bytes };
  }

  /**
   * One write of the results and the byte counter; when the store is full, evicts the oldest results first and
   * writes again. Whatever the path (a single =FINDEMAIL cell too), the store is kept under budget.
   * Under the document lock when it can be had, so an eviction (read, then rewrite) never erases this write.
   */
  putMany(entries: Array<[string, LookupResult]>): void {
    if (entries.length === 0) return;
    const { values, bytes } = this.encode(entries);
    withDocumentLockIfFree((locked) => {
      const stored = Number(this.props.getProperty(RESULT_BYTES_PROPERTY) ?? Number.NaN);
      // A store without a valid counter (written before it existed) is counted once.
      let total = (Number.isFinite(stored) ? stored : resultBytes(this.props.getProperties())) + bytes;
      try {
        this.props.setProperties({ ...values, [RESULT_BYTES_PROPERTY]: String(total) });
      } catch (error) {
        if (!isQuotaError(error)) throw error;
        const kept = this.evict(locked);
        if (kept !== undefined) total = kept + bytes;
        this.props.setProperties({ ...values, [RESULT_BYTES_PROPERTY]: String(total) });
      }
      if (total > RESULT_STORE_BUDGET_BYTES) this.evict(locked);
    });
  }

  /**
   * Keeps the newest results under the target size and stores their exact byte count, under the document lock
   * so no other writer is lost (`lockHeld`: the caller holds it already). Returns the bytes kept, undefined when
   * the lock stayed busy.
   */
  evict(lockHeld = false): number | undefined {
    if (!lockHeld) return tryWithDocumentLock(() => this.evictHoldingLock())?.value;
    return this.evictHoldingLock();
  }

  private evictHoldingLock(): number {
    const all = this.props.getProperties();
    const results = Object.keys(all)
      .filter((key) => key.startsWith(RESULT_PREFIX))
      .map((key) => ({
        key,
        bytes: key.length + all[key].length,
        savedAt: decodeResult(all[key])?.savedAt ?? 0,
      }))
      .sort((a, b) => b.savedAt - a.savedAt);
    const kept: Record<string, string> = {};
    for (const key of Object.keys(all)) if (!key.startsWith(RESULT_PREFIX)) kept[key] = all[key];
    let bytes = 0;
    for (const entry of results) {
      if (bytes + entry.bytes > RESULT_STORE_EVICT_TO_BYTES) break;
      bytes += entry.bytes;
      kept[entry.key] = all[entry.key];
    }
    kept[RESULT_BYTES_PROPERTY] = String(bytes);
    this.props.setProperties(kept, true);
    return bytes;
  }
}
