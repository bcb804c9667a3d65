/** A cache (script, a document's, or a user's), shared by every execution of an environment. */
import { AppsScriptException } from '../errors';
import { utf8Bytes } from './properties';

// https://developers.google.com/apps-script/reference/cache/cache#putkey,-value,-expirationinseconds:
// keys up to 250 characters, values up to 100KB, 600 s by default, at most 21600 s (6 hours); "The cap for cached
// items is 1,000. If more than 1,000 items are written, the cache stores the 900 items farthest from expiration."
// A 2025 measurement (justin.poehnelt.com, "CacheService: Unofficial Documentation and Limits") found first-in,
// first-out by creation instead, about a tenth at once: the stricter for long-lived entries, modelled here (an entry
// written again keeps its place).
export const CACHE_KEY_CHARS = 250;
export const CACHE_VALUE_BYTES = 100 * 1024;
export const CACHE_DEFAULT_SECONDS = 600;
export const CACHE_MAX_SECONDS = 21600;
const CACHE_CAP = 1000;
const CACHE_KEPT = 900;

export interface CacheEntry {
  value: string;
  expiresAt: number;
}

export class CacheStore {
  readonly entries = new Map<string, CacheEntry>();
  /** Entries dropped early by `evict` (the best-effort mode). */
  evictions = 0;

  /**
   * `evict`, asked at each read of a live entry, drops it early when it answers true: CacheService is best-effort,
   * "you must be prepared to get back null from all reads" (https://developers.google.com/apps-script/reference/cache/cache).
   */
  constructor(private readonly evict?: () => boolean) {}

  get(key: string, now: number): string | null {
    const entry = this.entries.get(String(key));
    if (!entry) return null;
    if (entry.expiresAt <= now || this.evict?.()) {
      if (entry.expiresAt > now) this.evictions++;
      this.entries.delete(String(key));
      return null;
    }
    return entry.value;
  }

  getAll(keys: string[], now: number): Record<string, string> {
    const found: Record<string, string> = {};
    for (const key of keys) {
      const value = this.get(key, now);
      if (value !== null) found[key] = value;
    }
    return found;
  }

  put(values: Record<string, unknown>, seconds: number | undefined, now: number): void {
    const ttl = Math.min(CACHE_MAX_SECONDS, Math.max(1, Math.floor(seconds ?? CACHE_DEFAULT_SECONDS)));
    const checked = Object.entries(values).map(([key, raw]) => {
      const value = String(raw);
      if (key.length > CACHE_KEY_CHARS) throw new AppsScriptException('Argument too large: key');
      if (utf8Bytes(value) > CACHE_VALUE_BYTES) throw new AppsScriptException('Argument too large: value');
      return [key, value] as const;
    });
    for (const [key, value] of checked) this.entries.set(key, { value, expiresAt: now + ttl * 1000 });
    this.prune(now);
  }

  remove(keys: string[]): void {
    for (const key of keys) this.entries.delete(String(key));
  }

  /** Live entries, e.g. for tests. */
  dump(now: number): Map<string, CacheEntry> {
    this.prune(now);
    return new Map(this.entries);
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    if (this.entries.size <= CACHE_CAP) return;
    for (const key of [...this.entries.keys()].slice(0, this.entries.size - CACHE_KEPT))
      this.entries.delete(key);
  }
}
