/**
 * The result store: every paid result, kept for the life of the spreadsheet.
 *
 * - The hidden results sheet (src/adapters/resultSheet.ts) holds them; only executions that may write the
 *   spreadsheet write it (bulk slices, sidebar calls), always holding the document lock.
 * - Custom functions may read the sheet but not write it: what =FINDEMAIL pays for waits in document properties
 *   (PENDING_PREFIX, a bounded buffer) until the next writing execution moves it into the sheet. The first
 *   versions' results (RESULT_PREFIX) are read the same way and moved the same way.
 * - Before a batch goes out (beginSend, under the lock) the store is read again and the batch is recorded in
 *   document properties (SENDING_PREFIX): a claim in the best-effort cache may vanish, this record does not.
 * Every write of document properties here happens holding the document lock, so a rewrite of the whole store
 * (moving the buffer into the sheet) can never erase a result written meanwhile. Nothing is ever evicted.
 */

import {
  PENDING_RESULT_RESERVE_BYTES,
  PENDING_RESULTS_BUDGET_BYTES,
  STORE_LOCK_ATTEMPTS,
} from '../core/limits';
import type { LookupResult } from '../core/lookup';
import type { ResultStore, SendCheck } from '../core/ports';
import {
  PENDING_PREFIX,
  RESULT_BYTES_PROPERTY,
  RESULT_PREFIX,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../core/propertyNames';
import { isPropertiesQuotaError } from '../core/quota';
import { type CachedResult, decodeResult, encodeResult } from '../core/resultCodec';
import { hashOf } from '../core/resultTable';
import { tryWithDocumentLock } from './lock';
import { appendResults, readAll, readHashes } from './resultSheet';

export { isPropertiesQuotaError };

/** The store is full ("exceeded the property storage quota"); not a single value over 9 KB ("too large"). */
export function isStorageFullError(error: unknown): boolean {
  return /storage quota/i.test(error instanceof Error ? error.message : String(error));
}

interface Sending {
  until: number;
  hashes: string[];
  /** The batch's results go to the buffer (a formula's). */
  buffered: boolean;
}

/** Document properties as read in one call. */
interface DocumentView {
  all: Record<string, string>;
  version: string;
  /** Bytes of results waiting in the buffer (and of buffered batches under way, at a typical size). */
  pendingBytes: number;
  sending: Map<string, Sending>;
}

function readView(props: GoogleAppsScript.Properties.Properties, now: number): DocumentView {
  const all = props.getProperties();
  let pendingBytes = 0;
  const sending = new Map<string, Sending>();
  for (const key of Object.keys(all)) {
    if (key.startsWith(PENDING_PREFIX) || key.startsWith(RESULT_PREFIX))
      pendingBytes += key.length + all[key].length;
    else if (key.startsWith(SENDING_PREFIX) && all[key]) {
      const record = parseSending(all[key]);
      if (record && record.until > now) {
        sending.set(key, record);
        if (record.buffered) pendingBytes += record.hashes.length * PENDING_RESULT_RESERVE_BYTES;
      }
    }
  }
  return { all, version: all[TABLE_VERSION_PROPERTY] ?? '', pendingBytes, sending };
}

function parseSending(raw: string): Sending | undefined {
  try {
    const parsed = JSON.parse(raw) as { u?: unknown; k?: unknown; b?: unknown };
    if (typeof parsed.u !== 'number' || !Array.isArray(parsed.k)) return undefined;
    return { until: parsed.u, hashes: parsed.k.map(String), buffered: parsed.b === 1 };
  } catch {
    return undefined;
  }
}

function pendingOf(view: DocumentView, hash: string): string | undefined {
  return view.all[PENDING_PREFIX + hash] ?? view.all[RESULT_PREFIX + hash];
}

function newVersion(): string {
  return Date.now().toString(36) + Math.floor(Math.random() * 1e9).toString(36);
}

/** Runs `work` holding the document lock, waiting up to STORE_LOCK_ATTEMPTS times; throws when it stays busy. */
function withStoreLock<T>(work: () => T): T {
  for (let attempt = 0; attempt < STORE_LOCK_ATTEMPTS; attempt++) {
    const done = tryWithDocumentLock(work);
    if (done) return done.value;
  }
  throw new Error('The spreadsheet stayed busy (another execution held its lock); try again in a moment.');
}

export class SheetResultStore implements ResultStore {
  private readonly props = PropertiesService.getDocumentProperties();
  /** The whole sheet as last read (bulk slices), valid while the table version is `copyVersion`. */
  private copy: Map<string, string> | null = null;
  private copyVersion: string | undefined;
  /** Hashes known to be absent from the sheet at table version `absentVersion`. */
  private absent = new Set<string>();
  private absentVersion: string | undefined;
  private lastView: DocumentView | undefined;

  /** `writable`: this execution may write the spreadsheet (not a custom function). */
  constructor(private readonly writable: boolean) {}

  private view(): DocumentView {
    this.lastView = readView(this.props, Date.now());
    return this.lastView;
  }

  /**
   * The sheet's results of these hashes as of `version` (read after the properties that gave it): from the
   * whole copy when it is current, else from their bucket rows; remembers which are absent.
   */
  private fromSheet(hashes: string[], version: string): Map<string, string> {
    if (this.copy && this.copyVersion === version) {
      const found = new Map<string, string>();
      for (const hash of hashes) {
        const encoded = this.copy.get(hash);
        if (encoded !== undefined) found.set(hash, encoded);
      }
      return found;
    }
    if (this.absentVersion !== version) {
      this.absent.clear();
      this.absentVersion = version;
    }
    const unknown = hashes.filter((hash) => !this.absent.has(hash));
    const found = readHashes(unknown);
    for (const hash of unknown) if (!found.has(hash)) this.absent.add(hash);
    return found;
  }

  /**
   * The sheet first (a result kept there costs no property call); then, for keys it lacks, the buffer, and the
   * sheet again unless it cannot have changed since (a writer may have moved the buffer into it meanwhile).
   */
  getMany(urlKeys: string[]): Map<string, LookupResult> {
    const found = new Map<string, LookupResult>();
    const hashOfKey = new Map(urlKeys.map((key) => [key, hashOf(key)]));
    const add = (key: string, encoded: string | undefined) => {
      const cached = decodeResult(encoded);
      if (cached) found.set(key, cached.result);
    };
    const first = this.copy ? new Map<string, string>() : readHashes([...new Set(hashOfKey.values())]);
    for (const [key, hash] of hashOfKey) add(key, first.get(hash));
    const missing = urlKeys.filter((key) => !found.has(key));
    if (missing.length === 0) return found;
    const view = this.view();
    for (const key of missing) add(key, pendingOf(view, hashOfKey.get(key) as string));
    const still = missing.filter((key) => !found.has(key));
    if (still.length > 0) {
      const again = this.fromSheet(
        still.map((key) => hashOfKey.get(key) as string),
        view.version,
      );
      for (const key of still) add(key, again.get(hashOfKey.get(key) as string));
    }
    return found;
  }

  snapshot(): (urlKey: string) => CachedResult | undefined {
    const view = this.view();
    if (!this.copy || this.copyVersion !== view.version) {
      this.copy = readAll();
      this.copyVersion = view.version;
    }
    const copy = this.copy;
    return (urlKey) => {
      const hash = hashOf(urlKey);
      return decodeResult(pendingOf(view, hash) ?? copy.get(hash));
    };
  }

  room(): number {
    if (this.writable || !this.lastView) return Number.POSITIVE_INFINITY;
    return Math.max(
      0,
      Math.floor((PENDING_RESULTS_BUDGET_BYTES - this.lastView.pendingBytes) / PENDING_RESULT_RESERVE_BYTES),
    );
  }

  beginSend(urlKeys: string[], untilMs: number): SendCheck {
    const view = this.view();
    const check: SendCheck = { send: [], stored: new Map(), elsewhere: [], full: [] };
    const hashOfKey = new Map(urlKeys.map((key) => [key, hashOf(key)]));
    const inSheet = this.fromSheet(
      urlKeys
        .filter((key) => pendingOf(view, hashOfKey.get(key) as string) === undefined)
        .map((key) => hashOfKey.get(key) as string),
      view.version,
    );
    const beingSent = new Set<string>();
    for (const record of view.sending.values()) for (const hash of record.hashes) beingSent.add(hash);
    let room = this.room();
    for (const key of urlKeys) {
      const hash = hashOfKey.get(key) as string;
      const cached = decodeResult(pendingOf(view, hash) ?? inSheet.get(hash));
      if (cached) check.stored.set(key, cached.result);
      else if (beingSent.has(hash)) check.elsewhere.push(key);
      else if (room-- > 0) check.send.push(key);
      else check.full.push(key);
    }
    if (check.send.length > 0) {
      const sending = SENDING_PREFIX + newVersion();
      const record = { u: untilMs, k: check.send.map((key) => hashOfKey.get(key)), b: this.writable ? 0 : 1 };
      this.props.setProperty(sending, JSON.stringify(record));
      check.sending = sending;
      if (this.lastView)
        this.lastView.pendingBytes += this.writable ? 0 : check.send.length * PENDING_RESULT_RESERVE_BYTES;
    }
    return check;
  }

  putMany(entries: Array<[string, LookupResult]>, sending?: string): void {
    if (entries.length === 0 && !sending) return;
    const now = Date.now();
    const added = new Map<string, string>();
    for (const [urlKey, result] of entries) added.set(hashOf(urlKey), encodeResult(result, now));
    const ended: Record<string, string> = sending ? { [sending]: '' } : {};
    withStoreLock(() => {
      if (!this.writable || added.size === 0) {
        const values: Record<string, string> = { ...ended };
        for (const [hash, encoded] of added) values[PENDING_PREFIX + hash] = encoded;
        this.props.setProperties(values);
        return;
      }
      const version = this.props.getProperty(TABLE_VERSION_PROPERTY) ?? '';
      appendResults(added);
      const next = newVersion();
      this.props.setProperties({ ...ended, [TABLE_VERSION_PROPERTY]: next });
      this.keptAt(version, next, added);
    });
  }

  /** After this execution wrote `added` at table version `before` (now `after`): its own copies stay current. */
  private keptAt(before: string, after: string, added: Map<string, string>): void {
    if (this.copy && this.copyVersion === before) {
      for (const [hash, encoded] of added) this.copy.set(hash, encoded);
      this.copyVersion = after;
    }
    if (this.absentVersion === before) {
      for (const hash of added.keys()) this.absent.delete(hash);
      this.absentVersion = after;
    }
  }

  /**
   * Moves the buffer (and the first versions' results) into the sheet and drops finished sending records. Call
   * holding the document lock, in an execution that may write the spreadsheet. Returns the results moved.
   */
  keepPendingHoldingLock(): number {
    const now = Date.now();
    const all = this.props.getProperties();
    const added = new Map<string, string>();
    const dropped = new Set<string>();
    for (const key of Object.keys(all)) {
      const prefix = key.startsWith(PENDING_PREFIX)
        ? PENDING_PREFIX
        : key.startsWith(RESULT_PREFIX)
          ? RESULT_PREFIX
          : '';
      if (prefix) {
        if (decodeResult(all[key])) added.set(key.slice(prefix.length), all[key]);
        dropped.add(key);
      } else if (key.startsWith(SENDING_PREFIX) && !((parseSending(all[key])?.until ?? 0) > now))
        dropped.add(key);
      else if (key === RESULT_BYTES_PROPERTY) dropped.add(key);
    }
    if (dropped.size === 0) return 0;
    const version = all[TABLE_VERSION_PROPERTY] ?? '';
    // The sheet first: the buffer is dropped only once its results are kept there.
    appendResults(added);
    const kept: Record<string, string> = {};
    for (const key of Object.keys(all)) if (!dropped.has(key)) kept[key] = all[key];
    const next = added.size > 0 ? newVersion() : version;
    kept[TABLE_VERSION_PROPERTY] = next;
    this.props.setProperties(kept, true);
    this.keptAt(version, next, added);
    return added.size;
  }
}

/**
 * At the start of an execution that may write the spreadsheet: moves what formulas paid for into the results
 * sheet. Never fails the caller's action: when the lock stays busy or a service refuses (a quota), the results
 * stay in the buffer for the next writing execution.
 */
export function keepPendingResults(store = new SheetResultStore(true)): number {
  try {
    return tryWithDocumentLock(() => store.keepPendingHoldingLock())?.value ?? 0;
  } catch {
    return 0;
  }
}
