/**
 * The result store: every paid result, kept for the life of the spreadsheet.
 *
 * - The hidden results sheet (src/adapters/resultSheet.ts) holds them; only executions that may write the
 *   spreadsheet write it (bulk slices, sidebar calls), always holding the document lock.
 * - Custom functions may read the sheet but not write it: what =FINDEMAIL pays for waits in document properties
 *   (PENDING_PREFIX, a bounded buffer) until the next writing execution moves it into the sheet. The first
 *   versions' results (RESULT_PREFIX) are read the same way and moved the same way.
 * - Before a batch goes out (beginSend, under the lock) the store is read again and the batch recorded in
 *   document properties (SENDING_PREFIX): a claim in the best-effort cache may vanish, this record does not.
 * Every write of document properties here happens holding the document lock, so a rewrite of the whole store
 * (moving the buffer into the sheet) can never erase a result written meanwhile. Nothing is ever evicted.
 * (A factory with closures rather than a class: the bundle's minifier shortens local names, not members.)
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
import { type CachedResult, decodeResult, encodeResult } from '../core/resultCodec';
import { hashOf } from '../core/resultTable';
import { tryWithDocumentLock } from './lock';
import { appendResults, readAll, readHashes } from './resultSheet';

/** The store is full ("exceeded the property storage quota"); not a single value over 9 KB ("too large"). */
export function isStorageFullError(error: unknown): boolean {
  return /storage quota/i.test(String(error instanceof Error ? error.message : error));
}

/** A batch being sent: until when, its URL hashes, and whether its results go to the buffer (a formula's). */
interface Sending {
  u: number;
  k: string[];
  b?: 1;
}

/** Document properties as read in one call. */
interface DocumentView {
  all: Record<string, string>;
  version: string;
  /** Bytes of results waiting in the buffer, and of buffered batches under way at a typical size. */
  pendingBytes: number;
  sending: Set<string>;
}

function parseSending(raw: string): Sending | undefined {
  try {
    const record = JSON.parse(raw) as Sending;
    return typeof record.u === 'number' && Array.isArray(record.k) ? record : undefined;
  } catch {
    return undefined;
  }
}

function pendingOf(view: DocumentView, hash: string): string | undefined {
  return view.all[PENDING_PREFIX + hash] ?? view.all[RESULT_PREFIX + hash];
}

function isPendingKey(key: string): boolean {
  return key.startsWith(PENDING_PREFIX) || key.startsWith(RESULT_PREFIX);
}

function newVersion(): string {
  return Date.now().toString(36) + Math.floor(Math.random() * 1e9).toString(36);
}

/** Runs `work` holding the document lock, waiting up to STORE_LOCK_ATTEMPTS times; throws when it stays busy. */
function withStoreLock(work: () => void): void {
  for (let attempt = 0; attempt < STORE_LOCK_ATTEMPTS; attempt++) if (tryWithDocumentLock(work)) return;
  throw new Error('The spreadsheet stayed busy (another execution held its lock); try again in a moment.');
}

export interface SheetResultStore extends ResultStore {
  /**
   * Moves the buffer (and the first versions' results) into the sheet and drops finished sending records. Call
   * holding the document lock, in an execution that may write the spreadsheet. Returns the results moved.
   */
  keepPending(): number;
}

/** `writable`: this execution may write the spreadsheet (not a custom function). */
export function sheetResultStore(writable: boolean): SheetResultStore {
  const props = PropertiesService.getDocumentProperties();
  // The whole sheet as last read (bulk slices), valid while the table version is `copyVersion`.
  let copy: Map<string, string> | null = null;
  let copyVersion: string | undefined;
  // Hashes known to be absent from the sheet at table version `absentVersion`.
  const absent = new Set<string>();
  let absentVersion: string | undefined;
  let last: DocumentView | undefined;

  function view(): DocumentView {
    const now = Date.now();
    const all = props.getProperties();
    let pendingBytes = 0;
    const sending = new Set<string>();
    for (const key of Object.keys(all)) {
      if (isPendingKey(key)) pendingBytes += key.length + all[key].length;
      const record = key.startsWith(SENDING_PREFIX) ? parseSending(all[key]) : undefined;
      if (record && record.u > now) {
        for (const hash of record.k) sending.add(hash);
        if (record.b) pendingBytes += record.k.length * PENDING_RESULT_RESERVE_BYTES;
      }
    }
    last = { all, version: all[TABLE_VERSION_PROPERTY] ?? '', pendingBytes, sending };
    return last;
  }

  /**
   * The sheet's results of these hashes as of `version` (read after the properties that gave it): from the
   * whole copy when it is current, else from their bucket rows; remembers which are absent.
   */
  function fromSheet(hashes: string[], version: string): Map<string, string> {
    const found = new Map<string, string>();
    if (copy && copyVersion === version) {
      for (const hash of hashes) if (copy.has(hash)) found.set(hash, copy.get(hash) as string);
      return found;
    }
    if (absentVersion !== version) absent.clear();
    absentVersion = version;
    const unknown = hashes.filter((hash) => !absent.has(hash));
    for (const [hash, encoded] of readHashes(unknown)) found.set(hash, encoded);
    for (const hash of unknown) if (!found.has(hash)) absent.add(hash);
    return found;
  }

  /** After this execution wrote `added` at table version `before` (now `after`): its own copies stay current. */
  function keptAt(before: string, after: string, added: Map<string, string>): void {
    if (copy && copyVersion === before) {
      for (const [hash, encoded] of added) copy.set(hash, encoded);
      copyVersion = after;
    }
    if (absentVersion === before) {
      for (const hash of added.keys()) absent.delete(hash);
      absentVersion = after;
    }
  }

  function room(): number {
    if (writable || !last) return Number.POSITIVE_INFINITY;
    return Math.max(
      0,
      Math.floor((PENDING_RESULTS_BUDGET_BYTES - last.pendingBytes) / PENDING_RESULT_RESERVE_BYTES),
    );
  }

  return {
    room,

    /**
     * The sheet first (a result kept there costs no property call); then, for keys it lacks, the buffer, and
     * the sheet again unless it cannot have changed since (a writer may have moved the buffer into it).
     */
    getMany(urlKeys) {
      const found = new Map<string, LookupResult>();
      const hashes = urlKeys.map(hashOf);
      const addFrom = (lookup: (hash: string) => string | undefined) => {
        hashes.forEach((hash, index) => {
          const cached = found.has(urlKeys[index]) ? undefined : decodeResult(lookup(hash));
          if (cached) found.set(urlKeys[index], cached.result);
        });
      };
      const first = copy ? new Map<string, string>() : readHashes(hashes);
      addFrom((hash) => first.get(hash));
      if (found.size === urlKeys.length) return found;
      const current = view();
      addFrom((hash) => pendingOf(current, hash));
      const again = fromSheet(
        hashes.filter((_, index) => !found.has(urlKeys[index])),
        current.version,
      );
      addFrom((hash) => again.get(hash));
      return found;
    },

    snapshot(): (urlKey: string) => CachedResult | undefined {
      const current = view();
      if (!copy || copyVersion !== current.version) {
        copy = readAll();
        copyVersion = current.version;
      }
      const all = copy;
      return (urlKey) => {
        const hash = hashOf(urlKey);
        return decodeResult(pendingOf(current, hash) ?? all.get(hash));
      };
    },

    beginSend(urlKeys, untilMs, storedSince = 0): SendCheck {
      const current = view();
      const check: SendCheck = { send: [], stored: new Map(), elsewhere: [], full: [] };
      const hashes = urlKeys.map(hashOf);
      const inSheet = fromSheet(
        hashes.filter((hash) => pendingOf(current, hash) === undefined),
        current.version,
      );
      let left = room();
      urlKeys.forEach((key, index) => {
        const hash = hashes[index];
        const cached = decodeResult(pendingOf(current, hash) ?? inSheet.get(hash));
        if (cached && cached.savedAt >= storedSince) check.stored.set(key, cached.result);
        else if (current.sending.has(hash)) check.elsewhere.push(key);
        else if (left-- > 0) check.send.push(key);
        else check.full.push(key);
      });
      if (check.send.length > 0) {
        const record: Sending = { u: untilMs, k: check.send.map(hashOf) };
        if (!writable) {
          record.b = 1;
          current.pendingBytes += check.send.length * PENDING_RESULT_RESERVE_BYTES;
        }
        check.sending = SENDING_PREFIX + newVersion();
        props.setProperty(check.sending, JSON.stringify(record));
      }
      return check;
    },

    putMany(entries, sending) {
      if (entries.length === 0 && !sending) return;
      const now = Date.now();
      const added = new Map<string, string>();
      for (const [urlKey, result] of entries) added.set(hashOf(urlKey), encodeResult(result, now));
      const values: Record<string, string> = sending ? { [sending]: '' } : {};
      withStoreLock(() => {
        if (!writable || added.size === 0) {
          for (const [hash, encoded] of added) values[PENDING_PREFIX + hash] = encoded;
          props.setProperties(values);
          return;
        }
        // The sheet first, before any property call: a result is kept even if the properties quota runs out
        // now. Only lock holders change the version, so reading it after the sheet write still gives `before`.
        appendResults(added);
        const before = props.getProperty(TABLE_VERSION_PROPERTY) ?? '';
        values[TABLE_VERSION_PROPERTY] = newVersion();
        props.setProperties(values);
        keptAt(before, values[TABLE_VERSION_PROPERTY], added);
      });
    },

    keepPending() {
      const now = Date.now();
      const all = props.getProperties();
      const added = new Map<string, string>();
      const kept: Record<string, string> = {};
      let dropped = 0;
      for (const key of Object.keys(all)) {
        const value = all[key];
        if (isPendingKey(key)) {
          const prefix = key.startsWith(PENDING_PREFIX) ? PENDING_PREFIX : RESULT_PREFIX;
          if (decodeResult(value)) added.set(key.slice(prefix.length), value);
        } else if (
          key !== RESULT_BYTES_PROPERTY &&
          !(key.startsWith(SENDING_PREFIX) && !((parseSending(value)?.u ?? 0) > now))
        ) {
          kept[key] = value;
          continue;
        }
        dropped++;
      }
      if (dropped === 0) return 0;
      const before = all[TABLE_VERSION_PROPERTY] ?? '';
      // The sheet first: the buffer is dropped only once its results are kept there.
      appendResults(added);
      kept[TABLE_VERSION_PROPERTY] = added.size > 0 ? newVersion() : before;
      props.setProperties(kept, true);
      keptAt(before, kept[TABLE_VERSION_PROPERTY], added);
      return added.size;
    },
  };
}

/**
 * At the start of an execution that may write the spreadsheet: moves what formulas paid for into the results
 * sheet. Never fails the caller's action: when the lock stays busy or a service refuses (a quota), the results
 * stay in the buffer for the next writing execution.
 */
export function keepPendingResults(): number {
  try {
    return tryWithDocumentLock(() => sheetResultStore(true).keepPending())?.value ?? 0;
  } catch {
    return 0;
  }
}
