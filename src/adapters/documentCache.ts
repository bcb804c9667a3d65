/** CacheService: the document cache (claims and markers, src/lookup/claims.ts), shared by every user of the spreadsheet. */

import { HALT_KEY } from '../core/propertyNames';
import { parseStored } from '../core/storedJson';
import type { DocumentCache } from '../lookup/ports';
import { systemClock } from './clock';

/**
 * The document cache, or null when the execution has none. CacheService is best-effort ("be prepared to get back
 * null from all reads", apps-script/reference/cache/cache): the halt marker (after a 401 or 402 formulas stop
 * calling the service) is also kept in document properties with its end time, and `get(HALT_KEY)` (read before
 * each request batch, never by the polls) falls back to it, so a vanished marker sends no failing request again.
 */
export function documentCache(): DocumentCache | null {
  const cache = CacheService.getDocumentCache();
  if (!cache) return null;
  const props = () => PropertiesService.getDocumentProperties();
  return {
    get(key) {
      const value = cache.get(key);
      if (value !== null || key !== HALT_KEY) return value;
      const kept = parseStored(props().getProperty(HALT_KEY));
      const [until, halt]: unknown[] = Array.isArray(kept) ? kept : [];
      return typeof until === 'number' && until > systemClock.now() && typeof halt === 'string' && halt
        ? halt
        : null;
    },
    getAll: (keys) => cache.getAll(keys),
    putAll: (values, seconds) => cache.putAll(values, seconds),
    put(key, value, seconds) {
      cache.put(key, value, seconds);
      if (key === HALT_KEY)
        props().setProperty(HALT_KEY, JSON.stringify([systemClock.now() + seconds * 1000, value]));
    },
    remove: (key) => cache.remove(key),
    removeAll: (keys) => cache.removeAll(keys),
  };
}

/** A new key was saved: formulas may call the service again at once. */
export function clearHalt(): void {
  CacheService.getDocumentCache()?.remove(HALT_KEY);
  PropertiesService.getDocumentProperties().deleteProperty(HALT_KEY);
}
