/** PropertiesService and CacheService adapter: the user's key and settings, the add-on's configuration, the result cache. */
import { type EndpointResult, resolveEndpoint } from '../core/config';
import { stableHash } from '../core/hash';
import type { LookupResult } from '../core/lookup';
import { API_KEY_PROPERTY } from '../core/propertyNames';
import { type CachedResult, decodeResult, encodeResult } from '../core/resultCodec';
import type { Settings } from '../core/sidebarState';
import { type NetworkHosts, parseNetworkHosts } from '../core/url';

const SETTINGS_PROPERTY = 'PEF_SETTINGS';
const RESULT_PREFIX = 'pef.r.';
const BYTES_PROPERTY = 'pef.bytes';

// Apps Script quotas: 500 KB per property store, 9 KB per value
// (https://developers.google.com/apps-script/guides/services/quotas). The cache keeps well below the store
// limit so job state and settings always fit.
const CACHE_BUDGET_BYTES = 350 * 1024;
const CACHE_EVICT_TO_BYTES = 280 * 1024;
const LOCK_WAIT_MS = 5000;

/** The user's own key. In a custom function this is the spreadsheet owner's (Apps Script's rule). */
export function readApiKey(): string | null {
  const key = PropertiesService.getUserProperties().getProperty(API_KEY_PROPERTY);
  return key && key.trim() !== '' ? key : null;
}

export function writeApiKey(key: string): void {
  PropertiesService.getUserProperties().setProperty(API_KEY_PROPERTY, key);
}

export function deleteApiKey(): void {
  PropertiesService.getUserProperties().deleteProperty(API_KEY_PROPERTY);
}

export const DEFAULT_SETTINGS: Settings = { writeHeader: true, extraFields: false, recheck: false };

export function readSettings(): Settings {
  const raw = PropertiesService.getUserProperties().getProperty(SETTINGS_PROPERTY);
  if (!raw) return { ...DEFAULT_SETTINGS };
  try {
    const parsed = JSON.parse(raw) as Partial<Settings>;
    return {
      writeHeader:
        typeof parsed.writeHeader === 'boolean' ? parsed.writeHeader : DEFAULT_SETTINGS.writeHeader,
      extraFields:
        typeof parsed.extraFields === 'boolean' ? parsed.extraFields : DEFAULT_SETTINGS.extraFields,
      recheck: typeof parsed.recheck === 'boolean' ? parsed.recheck : DEFAULT_SETTINGS.recheck,
    };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function writeSettings(settings: Settings): void {
  PropertiesService.getUserProperties().setProperty(SETTINGS_PROPERTY, JSON.stringify(settings));
}

/** The add-on owner's configuration in script properties, read once per execution. */
export interface ScriptConfig {
  endpoint: EndpointResult;
  stepBudgetMs?: number;
  batchSize?: number;
  concurrency?: number;
  /** FINDEMAIL_BUDGET_MS: lowers =FINDEMAIL's work budget (tests and operators). */
  findEmailBudgetMs?: number;
  /** NETWORK_HOSTS: the network's domains, whose profile URLs are looked up (src/core/url.ts). */
  networkHosts: NetworkHosts;
}

let scriptConfig: ScriptConfig | undefined;

function positiveInt(raw: string | undefined): number | undefined {
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}

export function readScriptConfig(): ScriptConfig {
  if (scriptConfig) return scriptConfig;
  const props = PropertiesService.getScriptProperties().getProperties();
  scriptConfig = {
    endpoint: resolveEndpoint(props.API_BASE_URL || __API_BASE_URL__),
    stepBudgetMs: positiveInt(props.ENRICH_STEP_BUDGET_MS),
    batchSize: positiveInt(props.ENRICH_BATCH_SIZE),
    concurrency: positiveInt(props.FETCH_CONCURRENCY),
    findEmailBudgetMs: positiveInt(props.FINDEMAIL_BUDGET_MS),
    networkHosts: parseNetworkHosts(props.NETWORK_HOSTS),
  };
  return scriptConfig;
}

function cacheKey(urlKey: string): string {
  return RESULT_PREFIX + stableHash(urlKey);
}

/** The store is full ("exceeded the property storage quota"); not a single value over 9 KB ("too large"). */
export function isQuotaError(error: unknown): boolean {
  return /quota/i.test(error instanceof Error ? error.message : String(error));
}

/**
 * Results by normalised URL, kept in document properties so they survive reloads and days
 * (CacheService entries live at most 6 hours). Shared by =FINDEMAIL and the bulk run.
 * BYTES_PROPERTY counts the results' bytes so a write need not read the whole store: it only grows (a
 * rewritten key counts twice, which evicts a little early) until an eviction recounts it exactly.
 */
export class ResultCache {
  private readonly props = PropertiesService.getDocumentProperties();

  /** One service call whatever the number of keys. */
  getMany(urlKeys: string[]): Map<string, LookupResult> {
    const found = new Map<string, LookupResult>();
    if (urlKeys.length === 1) {
      const cached = decodeResult(this.props.getProperty(cacheKey(urlKeys[0])));
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

  /** Reads the whole store once; the returned function looks results up in memory. */
  snapshot(): (urlKey: string) => CachedResult | undefined {
    const all = this.props.getProperties();
    return (urlKey) => decodeResult(all[cacheKey(urlKey)]);
  }

  /** The property values for these results and their size in bytes. */
  private encode(entries: Array<[string, LookupResult]>): { values: Record<string, string>; bytes: number } {
    const now = Date.now();
    const values: Record<string, string> = {};
    let bytes = 0;
    for (const [urlKey, result] of entries) {
      const key = cacheKey(urlKey);
      values[key] = encodeResult(result, now);
      bytes += key.length + values[key].length;
    }
    return { values, bytes };
  }

  /**
   * One write of the results and the byte counter; when the store is full, evicts the oldest results first and
   * writes again. Whatever the path (a single =FINDEMAIL cell too), the store is kept under budget.
   */
  putMany(entries: Array<[string, LookupResult]>): void {
    if (entries.length === 0) return;
    const { values, bytes } = this.encode(entries);
    // Under the document lock, so an eviction (read, then rewrite of the store) never erases this write.
    // Never call it holding the lock: Apps Script's lock is not counted, this release would free it.
    const lock = LockService.getDocumentLock();
    const locked = lock.tryLock(LOCK_WAIT_MS);
    try {
      const stored = Number(this.props.getProperty(BYTES_PROPERTY) ?? Number.NaN);
      // A store without a valid counter (written before it existed) is counted once.
      let total = (Number.isFinite(stored) ? stored : cacheBytes(this.props.getProperties())) + bytes;
      try {
        this.props.setProperties({ ...values, [BYTES_PROPERTY]: String(total) });
      } catch (error) {
        if (!isQuotaError(error)) throw error;
        const kept = this.evict(locked);
        if (kept !== undefined) total = kept + bytes;
        this.props.setProperties({ ...values, [BYTES_PROPERTY]: String(total) });
      }
      if (total > CACHE_BUDGET_BYTES) this.evict(locked);
    } finally {
      if (locked) lock.releaseLock();
    }
  }

  /**
   * Keeps the newest results under the target size and stores their exact byte count, under the document lock
   * so no other writer is lost (`lockHeld`: the caller holds it already; Apps Script's lock is not counted, a
   * nested release would free it). Returns the bytes kept, undefined when the lock stayed busy.
   */
  evict(lockHeld = false): number | undefined {
    const lock = lockHeld ? null : LockService.getDocumentLock();
    if (lock && !lock.tryLock(LOCK_WAIT_MS)) return undefined;
    try {
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
        if (bytes + entry.bytes > CACHE_EVICT_TO_BYTES) break;
        bytes += entry.bytes;
        kept[entry.key] = all[entry.key];
      }
      kept[BYTES_PROPERTY] = String(bytes);
      this.props.setProperties(kept, true);
      return bytes;
    } finally {
      lock?.releaseLock();
    }
  }
}

function cacheBytes(all: Record<string, string>): number {
  let bytes = 0;
  for (const key of Object.keys(all))
    if (key.startsWith(RESULT_PREFIX)) bytes += key.length + all[key].length;
  return bytes;
}

/** Document-cache key of the halt; read it with other keys in one call and parse it with `parseHalt`. */
export const HALT_KEY = 'pef.halt';

export interface Halt {
  message: string;
  keyHash: string;
}

/** The halt stored under HALT_KEY, if it was written for this key. */
export function parseHalt(raw: string | null | undefined, apiKey: string): Halt | undefined {
  if (!raw) return undefined;
  try {
    const halt = JSON.parse(raw) as Halt;
    return halt.keyHash === stableHash(apiKey) ? halt : undefined;
  } catch {
    return undefined;
  }
}

/** After a 401 or 402, formulas stop calling the service for a short window (document cache, shared by all cells). */
export function readHalt(apiKey: string): Halt | undefined {
  return parseHalt(CacheService.getDocumentCache()?.get(HALT_KEY), apiKey);
}

export function writeHalt(apiKey: string, message: string, seconds: number): void {
  const halt: Halt = { message, keyHash: stableHash(apiKey) };
  CacheService.getDocumentCache()?.put(HALT_KEY, JSON.stringify(halt), seconds);
}

export function clearHalt(): void {
  CacheService.getDocumentCache()?.remove(HALT_KEY);
}
