/** Property stores, caches and locks, shared by every execution of an environment. */

export class AppsScriptException extends Error {
  override name = 'Exception';
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

// https://developers.google.com/apps-script/guides/services/quotas: "Properties value size 9 KB / val",
// "Properties total storage 500 KB / property store".
export const PROPERTY_VALUE_BYTES = 9 * 1024;
export const PROPERTY_STORE_BYTES = 500 * 1024;
const STORE_FULL =
  'You have exceeded the property storage quota. Please remove some properties and try again.';

/** One property store (script, a document's, or a user's). Values are strings; limits as in Apps Script. */
export class PropertyStore {
  readonly map = new Map<string, string>();

  get(key: string): string | null {
    return this.map.get(String(key)) ?? null;
  }

  all(): Record<string, string> {
    return Object.fromEntries(this.map);
  }

  keys(): string[] {
    return [...this.map.keys()];
  }

  /** Writes all or nothing. */
  set(values: Record<string, unknown>, deleteAllOthers = false): void {
    const next = new Map(deleteAllOthers ? [] : this.map);
    for (const [key, raw] of Object.entries(values)) {
      const value = String(raw);
      if (utf8(value) > PROPERTY_VALUE_BYTES) throw new AppsScriptException('Argument too large: value');
      next.set(key, value);
    }
    if (storeBytes(next) > PROPERTY_STORE_BYTES) throw new AppsScriptException(STORE_FULL);
    this.map.clear();
    for (const [key, value] of next) this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(String(key));
  }

  clear(): void {
    this.map.clear();
  }

  bytes(): number {
    return storeBytes(this.map);
  }
}

function storeBytes(map: Map<string, string>): number {
  let total = 0;
  for (const [key, value] of map) total += utf8(key) + utf8(value);
  return total;
}

// https://developers.google.com/apps-script/reference/cache/cache#putkey,-value,-expirationinseconds:
// keys up to 250 characters, values up to 100KB, 600 s by default, at most 21600 s (6 hours); "The cap for cached
// items is 1,000. If more than 1,000 items are written, the cache stores the 900 items farthest from expiration."
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

  get(key: string, now: number): string | null {
    const entry = this.entries.get(String(key));
    if (!entry) return null;
    if (entry.expiresAt <= now) {
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
      if (utf8(value) > CACHE_VALUE_BYTES) throw new AppsScriptException('Argument too large: value');
      return [key, value] as const;
    });
    for (const [key, value] of checked) {
      this.entries.delete(key);
      this.entries.set(key, { value, expiresAt: now + ttl * 1000 });
    }
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
    const kept = [...this.entries].sort((a, b) => b[1].expiresAt - a[1].expiresAt).slice(0, CACHE_KEPT);
    this.entries.clear();
    for (const [key, entry] of kept) this.entries.set(key, entry);
  }
}

interface Waiter {
  owner: string;
  grant: (granted: boolean) => void;
  timer: NodeJS.Timeout;
}

/** Script, document and user locks held by executions; a waiter is parked until release or time-out (FIFO). */
export class LockManager {
  private readonly holders = new Map<string, string>();
  private readonly waiters = new Map<string, Waiter[]>();

  holds(key: string, owner: string): boolean {
    return this.holders.get(key) === owner;
  }

  holder(key: string): string | undefined {
    return this.holders.get(key);
  }

  acquire(key: string, owner: string, timeoutMs: number): Promise<boolean> {
    const current = this.holders.get(key);
    if (current === undefined || current === owner) {
      this.holders.set(key, owner);
      return Promise.resolve(true);
    }
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const queue = this.waiters.get(key) ?? [];
      this.waiters.set(key, queue);
      const waiter: Waiter = {
        owner,
        grant: (granted) => {
          clearTimeout(waiter.timer);
          resolve(granted);
        },
        timer: setTimeout(() => {
          const list = this.waiters.get(key) ?? [];
          const index = list.indexOf(waiter);
          if (index >= 0) list.splice(index, 1);
          resolve(false);
        }, timeoutMs),
      };
      queue.push(waiter);
    });
  }

  release(key: string, owner: string): void {
    if (this.holders.get(key) !== owner) return;
    this.holders.delete(key);
    const queue = this.waiters.get(key);
    const next = queue?.shift();
    if (next) {
      this.holders.set(key, next.owner);
      next.grant(true);
    }
  }

  /** At the end of an execution: releases what it holds and drops its waits. */
  releaseAll(owner: string): void {
    for (const [_key, queue] of this.waiters) {
      for (const waiter of queue.filter((w) => w.owner === owner)) {
        queue.splice(queue.indexOf(waiter), 1);
        waiter.grant(false);
      }
    }
    for (const [key, holder] of [...this.holders]) if (holder === owner) this.release(key, owner);
  }
}
