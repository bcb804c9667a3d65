/**
 * The result store: every paid result, kept for the life of the spreadsheet. This module composes its parts into
 * the lookup's ResultStore (src/lookup/ports.ts):
 *
 * - The hidden results sheet holds them (layout: ./table.ts); only executions that may write the spreadsheet write
 *   it (bulk slices, sidebar calls), always holding the document lock. What this execution read of it: ./resultsCopy.ts.
 * - Custom functions may read the sheet but not write it: what =FINDEMAIL pays for waits in the formulas' buffer
 *   (./formulaBuffer.ts) until the next writing execution moves it into the sheet (keepPending).
 * - Before a batch goes out (beginSend, under the lock) the store is read again and the batch recorded
 *   (./sendingRecords.ts): a claim in the best-effort cache may vanish, this record does not. The same read brings
 *   the URLs whose answers were lost lately to connection failures (./lostMarks.ts, written by putMany after a lost
 *   batch): durable, so no profile is charged a third time when the cache forgets.
 * - Every charge goes into the credits log (./credits.ts) in the same locked write as its result.
 *
 * Each read of the document properties is one DocumentView (./documentView.ts), passed along explicitly: no answer
 * depends on which read ran last. Every write of document properties here happens holding the document lock but a
 * formula's batch (keepInBuffer: properties of its own); the rewrite of the whole store (keepPending, moving the
 * buffer into the sheet) reads the properties again right before it writes, so it keeps what formulas wrote
 * meanwhile; a formula's write landing between that read and the write is kept from its journal (writeJournal). Nothing is ever evicted. (Plain functions over a state object rather than a class: the bundle's minifier shortens
 * function names, not members.)
 */

import { BATCH_JOURNAL_SECONDS } from '../core/limits';
import {
  BATCH_JOURNAL_PREFIX,
  CHARGE_PREFIX,
  LOST_PROPERTY,
  PENDING_PREFIX,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../core/propertyNames';
import { isRecord, parseStored } from '../core/storedJson';
import type { CachedResult, ResultStore, SendCheck, StoreRead } from '../lookup/ports';
import type { LookupResult } from '../lookup/result';
import { decodeResult, encodeResult } from './codec';
import { type ChargeContext, chargeRows, FORMULAS_CONTEXT } from './credits';
import { type DocumentView, newVersion, readDocumentView } from './documentView';
import { bufferedValues, pendingOf, roomLeft, sortForKeeping } from './formulaBuffer';
import { lostMarksOf, withLostSends } from './lostMarks';
import type { StoreServices } from './ports';
import { followOwnWrite, fromSheet, type ResultsCopy, resultsCopy, wholeSheet } from './resultsCopy';
import { parseSending, sendingRecords, settleExpired } from './sendingRecords';
import { hashOf } from './table';

export interface SheetResultStore extends ResultStore {
  /**
   * Moves the buffer into the sheet and drops finished sending records. Call
   * holding the document lock, in an execution that may write the spreadsheet. Returns the results moved.
   */
  keepPending(): number;
}

/** One store's state for the life of its execution. */
interface StoreState {
  /** This execution may write the spreadsheet (not a custom function). */
  writable: boolean;
  /** Apps Script: the document properties, the results sheet, the credits log, the document lock. */
  io: StoreServices;
  /** What this execution read of the results sheet. */
  copy: ResultsCopy;
  /** Who pays for what this execution stores, and where (the credits log). */
  charges: ChargeContext;
}

/**
 * `writable`: this execution may write the spreadsheet (not a custom function). `charges`: who pays for what it
 * stores (a run's owner); formulas' by default.
 */
export function sheetResultStore(
  writable: boolean,
  io: StoreServices,
  charges = FORMULAS_CONTEXT,
): SheetResultStore {
  const state: StoreState = { charges, writable, io, copy: resultsCopy(io.resultsSheet) };
  return {
    getMany: (urlKeys) => readStored(state, urlKeys).results,
    readStored: (urlKeys) => readStored(state, urlKeys),
    snapshot: () => snapshot(state),
    beginSend: (urlKeys, untilMs, storedSince = 0, sendableAfterLosses) =>
      beginSend(state, { urlKeys, untilMs, storedSince, sendableAfterLosses }),
    putMany: (entries, sending, lost) => putMany(state, entries, sending, lost),
    keepPending: () => keepPending(state),
  };
}

function readView(state: StoreState): DocumentView {
  return readDocumentView(state.io.properties, state.io.clock.now());
}

/** How many more results this execution may pay for, as of `view` (none read: unbounded). */
function roomAsOf(state: StoreState, view: DocumentView | undefined): number {
  return state.writable || !view ? Number.POSITIVE_INFINITY : roomLeft(view.pendingBytes);
}

/**
 * The sheet first (a result kept there costs no property call); then, for keys it lacks, the buffer, and
 * the sheet again unless it cannot have changed since (a writer may have moved the buffer into it).
 */
function readStored(state: StoreState, urlKeys: string[]): StoreRead {
  const results = new Map<string, LookupResult>();
  const hashes = urlKeys.map(hashOf);
  const addFrom = (lookup: (hash: string) => string | undefined) => {
    hashes.forEach((hash, index) => {
      const cached = results.has(urlKeys[index]) ? undefined : decodeResult(lookup(hash));
      if (cached) results.set(urlKeys[index], cached.result);
    });
  };
  const first = state.copy.whole ? new Map<string, string>() : state.copy.sheet.readHashes(hashes);
  addFrom((hash) => first.get(hash));
  if (results.size === urlKeys.length)
    return { results, room: roomAsOf(state, undefined), property: () => undefined };
  const current = readView(state);
  addFrom((hash) => pendingOf(current.all, hash));
  const again = fromSheet(
    state.copy,
    hashes.filter((_, index) => !results.has(urlKeys[index])),
    current.version,
  );
  addFrom((hash) => again.get(hash));
  return { results, room: roomAsOf(state, current), property: (name) => current.all[name] };
}

function snapshot(state: StoreState): (urlKey: string) => CachedResult | undefined {
  const current = readView(state);
  const all = wholeSheet(state.copy, current.version);
  return (urlKey) => {
    const hash = hashOf(urlKey);
    return decodeResult(pendingOf(current.all, hash) ?? all.get(hash));
  };
}

interface SendAsk {
  urlKeys: string[];
  untilMs: number;
  storedSince: number;
  sendableAfterLosses?: (urlKey: string, lostSends: number) => boolean;
}

function beginSend(
  state: StoreState,
  { urlKeys, untilMs, storedSince, sendableAfterLosses }: SendAsk,
): SendCheck {
  const { io } = state;
  const read = readView(state);
  const restored = journaledBatches(io, read.all, io.clock.now());
  const current: DocumentView = {
    ...read,
    all: { ...read.all, ...restored },
    expired: read.expired.filter((one) => restored[one.name] === undefined),
  };
  const expired = settleExpired(current.expired, current.all[LOST_PROPERTY], {
    writable: state.writable,
    appendCharges: io.appendCharges,
    now: () => io.clock.now(),
  });
  const settled = expired.values;
  const lostRaw = settled[LOST_PROPERTY] ?? current.all[LOST_PROPERTY];
  const marks = lostMarksOf(lostRaw, urlKeys, io.clock.now());
  const lost = new Map([...marks].map(([key, mark]) => [key, mark.sends]));
  const lostUntil = new Map([...marks].map(([key, mark]) => [key, mark.until]));
  const check: SendCheck = {
    send: [],
    stored: new Map(),
    elsewhere: [],
    full: [],
    lost,
    lostUntil,
    held: [],
  };
  const hashes = urlKeys.map(hashOf);
  const inSheet = fromSheet(
    state.copy,
    hashes.filter((hash) => pendingOf(current.all, hash) === undefined),
    current.version,
  );
  let left = roomAsOf(state, current);
  urlKeys.forEach((key, index) => {
    const hash = hashes[index];
    const cached = decodeResult(pendingOf(current.all, hash) ?? inSheet.get(hash));
    if (cached && cached.savedAt >= storedSince) check.stored.set(key, cached.result);
    else if (current.sending.has(hash)) check.elsewhere.push(key);
    else if (lost.has(key) && sendableAfterLosses && !sendableAfterLosses(key, lost.get(key) as number))
      check.held.push(key);
    else if (left-- > 0) check.send.push(key);
    else check.full.push(key);
  });
  const charges = state.writable ? state.charges : undefined;
  const records =
    check.send.length > 0 ? sendingRecords(check.send, untilMs, charges, () => io.clock.now()) : {};
  if (check.send.length > 0) check.sending = Object.keys(records);
  const values = { ...restored, ...settled, ...records };
  if (Object.keys(values).length > 0) io.properties.setProperties(values);
  return check;
}

function putMany(
  state: StoreState,
  entries: Array<[string, LookupResult]>,
  sending: readonly string[] = [],
  lost: string[] = [],
): void {
  if (entries.length === 0 && sending.length === 0 && lost.length === 0) return;
  const { io } = state;
  const props = io.properties;
  const now = io.clock.now();
  const added = new Map<string, string>();
  for (const [urlKey, result] of entries) added.set(hashOf(urlKey), encodeResult(result, now));
  const values: Record<string, string> = Object.fromEntries(sending.map((name) => [name, '']));
  if (!state.writable) {
    keepInBuffer(state, values, { added, entries, lost, now });
    return;
  }
  io.withStoreLock(() => {
    // Only after a lost batch (rare): one more read, under the lock, so no other execution's marks are lost.
    if (lost.length > 0) values[LOST_PROPERTY] = withLostSends(props.getProperty(LOST_PROPERTY), lost, now);
    // The sheets first, before any property call: a result (and its charge) is kept even if the properties
    // quota runs out now. Only lock holders change the version, so reading it after the sheet write still
    // gives `before`.
    io.resultsSheet.appendResults(added);
    io.appendCharges(chargeRows(state.charges, entries, lost, now));
    if (added.size === 0) {
      props.setProperties(values);
      return;
    }
    const before = props.getProperty(TABLE_VERSION_PROPERTY) ?? '';
    values[TABLE_VERSION_PROPERTY] = newVersion(io.clock.now());
    props.setProperties(values);
    followOwnWrite(state.copy, before, values[TABLE_VERSION_PROPERTY], added);
  }, state.writable);
}

/**
 * A formula's batch into the buffer. Its results and charges are properties of their own (a result by its hash, a
 * batch's charges by a new name), and ending its sending record writes that record alone: no other execution writes
 * them, so they need no document lock, and a paid answer is kept even when LockService is busy or refuses (its
 * rate quota). keepPending, the one rewrite of the whole store, reads the properties again right before it writes,
 * and the batch is journaled in the document cache first for a write landing after that read (writeJournal).
 * Only the lost marks (one property every execution changes) need the lock: one try; when it is busy the batch's
 * sending record stays, and the next execution settles it as lost answers (the same charges and marks).
 */
function keepInBuffer(
  state: StoreState,
  ended: Record<string, string>,
  batch: { added: Map<string, string>; entries: Array<[string, LookupResult]>; lost: string[]; now: number },
): void {
  const { io } = state;
  const props = io.properties;
  const values = {
    ...ended,
    ...bufferedValues(batch.added, batch.entries, batch.lost, batch.now, () => io.clock.now()),
  };
  if (batch.lost.length === 0) {
    writeJournal(io, Object.keys(ended), values);
    props.setProperties(values);
    return;
  }
  io.tryStoreLock(() => {
    values[LOST_PROPERTY] = withLostSends(props.getProperty(LOST_PROPERTY), batch.lost, batch.now);
    props.setProperties(values);
  });
}

function keepPending(state: StoreState): number {
  const { io } = state;
  const now = io.clock.now();
  const first = io.properties.getProperties();
  const all = { ...first, ...journaledBatches(io, first, now) };
  const { added, charges, kept, lostKeys, dropped } = sortForKeeping(all, now);
  if (dropped === 0) return 0;
  if (lostKeys.length > 0) kept[LOST_PROPERTY] = withLostSends(all[LOST_PROPERTY], lostKeys, now);
  const before = all[TABLE_VERSION_PROPERTY] ?? '';
  // The sheets first: the buffer is dropped only once its results and charges are kept there.
  io.resultsSheet.appendResults(added);
  io.appendCharges(charges);
  kept[TABLE_VERSION_PROPERTY] = added.size > 0 ? newVersion(io.clock.now()) : before;
  // Formulas write their results without the lock (keepInBuffer): what they wrote since the first read stays. One
  // landing between the second read and this write is deleted and its sending record left unended: its journal
  // (journaledBatches) keeps it when the record is found past its time.
  Object.assign(kept, writtenSince(first, io.properties.getProperties()));
  io.properties.setProperties(kept, true);
  followOwnWrite(state.copy, before, kept[TABLE_VERSION_PROPERTY], added);
  return added.size;
}

/** The properties of `latest` that are new or changed since `first`, both reads of the document properties. */
function writtenSince(first: Record<string, string>, latest: Record<string, string>): Record<string, string> {
  const written: Record<string, string> = {};
  for (const [key, value] of Object.entries(latest)) if (first[key] !== value) written[key] = value;
  return written;
}

/**
 * Before a formula's lock-free write of its batch (`values`: its results and charges, and its sending records
 * ended): the same results and charges in the document cache under each of its sending records' names. keepPending's
 * rewrite of the whole store (setProperties deleting every other property: Apps Script has no other batch delete)
 * may land right after this write and undo it, leaving the records unended; whoever finds one past its time then
 * keeps the batch from here instead of settling it as lost answers. Best-effort, as the cache is: without it the
 * batch is settled as lost answers (each a "maybe charged" row and a lost mark).
 */
function writeJournal(io: StoreServices, records: string[], values: Record<string, string>): void {
  const cache = io.cache?.();
  if (!cache || records.length === 0) return;
  const batch: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (isJournaled(name)) batch[name] = value;
  const text = JSON.stringify(batch);
  try {
    cache.putAll(
      Object.fromEntries(records.map((name) => [BATCH_JOURNAL_PREFIX + name, text])),
      BATCH_JOURNAL_SECONDS,
    );
  } catch {
    // Too large for one cache value, or the cache refused: the record is settled as lost answers.
  }
}

function isJournaled(name: string): boolean {
  return name.startsWith(PENDING_PREFIX) || name.startsWith(CHARGE_PREFIX);
}

/**
 * The formula batches whose sending records `all` (one read of the document properties) holds unended past their
 * time and whose journal the cache still has: their results and charges, and the records ended, as properties to
 * write. The journal's names are the ones the batch wrote, so a batch found twice is counted once.
 */
function journaledBatches(
  io: StoreServices,
  all: Record<string, string>,
  now: number,
): Record<string, string> {
  const names = Object.keys(all).filter((name) => {
    const record = name.startsWith(SENDING_PREFIX) ? parseSending(all[name]) : undefined;
    return record?.b === 1 && record.u <= now;
  });
  const cache = names.length > 0 ? io.cache?.() : null;
  if (!cache) return {};
  let found: Record<string, string>;
  try {
    found = cache.getAll(names.map((name) => BATCH_JOURNAL_PREFIX + name));
  } catch {
    return {};
  }
  const restored: Record<string, string> = {};
  for (const name of names) {
    const batch = parseJournal(found[BATCH_JOURNAL_PREFIX + name]);
    if (!batch) continue;
    Object.assign(restored, batch);
    restored[name] = '';
  }
  return restored;
}

function parseJournal(raw: string | undefined): Record<string, string> | undefined {
  const batch = parseStored(raw);
  if (!isRecord(batch)) return undefined;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(batch))
    if (isJournaled(name) && typeof value === 'string') values[name] = value;
  return values;
}
