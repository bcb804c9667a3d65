/**
 * The result store: every paid result, kept for the life of the spreadsheet.
 *
 * - The hidden results sheet (src/adapters/resultsSheet.ts) holds them; only executions that may write the
 *   spreadsheet write it (bulk slices, sidebar calls), always holding the document lock.
 * - Custom functions may read the sheet but not write it: what =FINDEMAIL pays for waits in document properties
 *   (PENDING_PREFIX, a bounded buffer) until the next writing execution moves it into the sheet.
 * - Before a batch goes out (beginSend, under the lock) the store is read again and the batch recorded in
 *   document properties (SENDING_PREFIX): a claim in the best-effort cache may vanish, this record does not.
 *   The same read brings the URLs whose answers were lost lately to connection failures (LOST_PROPERTY, written
 *   by putMany after a lost batch): durable, so no profile is charged a third time when the cache forgets.
 *   (How these records are laid out and read: src/store/documentView.ts, lostMarks.ts.)
 * Every write of document properties here happens holding the document lock, so a rewrite of the whole store
 * (moving the buffer into the sheet) can never erase a result written meanwhile. Nothing is ever evicted.
 * (Plain functions over a state object rather than a class: the bundle's minifier shortens function names, not
 * members.)
 */

import { PENDING_RESULT_RESERVE_BYTES, PENDING_RESULTS_BUDGET_BYTES } from '../core/limits';
import {
  CHARGE_PREFIX,
  LOST_PROPERTY,
  PENDING_PREFIX,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../core/propertyNames';
import type { LookupResult } from '../lookup/contract';
import type { CachedResult, Clock, ResultStore, SendCheck } from '../lookup/ports';
import { decodeResult, encodeResult } from './codec';
import {
  bufferedCharges,
  type ChargeContext,
  chargeRows,
  contextTuple,
  FORMULAS_CONTEXT,
  lostRowsOf,
} from './credits';
import { lostMarksOf, withLostSends } from './lostMarks';
import type { PropertyStore, StoreServices } from './ports';
import {
  type DocumentView,
  isPendingKey,
  newVersion,
  pendingOf,
  readDocumentView,
  type SendingRecord,
  sortForKeeping,
} from './documentView';
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
  props: PropertyStore;
  clock: Clock;
  /** Apps Script: the results sheet, the credits log, the document lock. */
  io: StoreServices;
  /** The whole sheet as last read (bulk slices), valid while the table version is `copyVersion`. */
  copy: Map<string, string> | null;
  copyVersion?: string;
  /** Hashes known to be absent from the sheet at table version `absentVersion`. */
  absent: Set<string>;
  absentVersion?: string;
  /** The document properties as last read. */
  last?: DocumentView;
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
  const state: StoreState = {
    charges,
    writable,
    props: io.properties,
    clock: io.clock,
    io,
    copy: null,
    absent: new Set<string>(),
  };
  return {
    room: () => roomOf(state),
    property: (name) => state.last?.all[name],
    getMany: (urlKeys) => getMany(state, urlKeys),
    snapshot: () => snapshot(state),
    beginSend: (urlKeys, untilMs, storedSince = 0, sendableAfterLosses) =>
      beginSend(state, { urlKeys, untilMs, storedSince, sendableAfterLosses }),
    putMany: (entries, sending, lost) => putMany(state, entries, sending, lost),
    keepPending: () => keepPending(state),
  };
}

/** Reads the document properties, remembering them for room(). */
function readView(state: StoreState): DocumentView {
  state.last = readDocumentView(state.props, state.clock.now());
  return state.last;
}

/**
 * The sheet's results of these hashes as of `version` (read after the properties that gave it): from the
 * whole copy when it is current, else from their bucket rows; remembers which are absent.
 */
function fromSheet(state: StoreState, hashes: string[], version: string): Map<string, string> {
  const found = new Map<string, string>();
  const { copy, absent } = state;
  if (copy && state.copyVersion === version) {
    for (const hash of hashes) if (copy.has(hash)) found.set(hash, copy.get(hash) as string);
    return found;
  }
  if (state.absentVersion !== version) absent.clear();
  state.absentVersion = version;
  const unknown = hashes.filter((hash) => !absent.has(hash));
  for (const [hash, encoded] of state.io.resultsSheet.readHashes(unknown)) found.set(hash, encoded);
  for (const hash of unknown) if (!found.has(hash)) absent.add(hash);
  return found;
}

/** After this execution wrote `added` at table version `before` (now `after`): its own copies stay current. */
function followOwnWrite(state: StoreState, before: string, after: string, added: Map<string, string>): void {
  if (state.copy && state.copyVersion === before) {
    for (const [hash, encoded] of added) state.copy.set(hash, encoded);
    state.copyVersion = after;
  }
  if (state.absentVersion === before) {
    for (const hash of added.keys()) state.absent.delete(hash);
    state.absentVersion = after;
  }
}

function roomOf(state: StoreState): number {
  if (state.writable || !state.last) return Number.POSITIVE_INFINITY;
  return Math.max(
    0,
    Math.floor((PENDING_RESULTS_BUDGET_BYTES - state.last.pendingBytes) / PENDING_RESULT_RESERVE_BYTES),
  );
}

/**
 * The sheet first (a result kept there costs no property call); then, for keys it lacks, the buffer, and
 * the sheet again unless it cannot have changed since (a writer may have moved the buffer into it).
 */
function getMany(state: StoreState, urlKeys: string[]): Map<string, LookupResult> {
  const found = new Map<string, LookupResult>();
  const hashes = urlKeys.map(hashOf);
  const addFrom = (lookup: (hash: string) => string | undefined) => {
    hashes.forEach((hash, index) => {
      const cached = found.has(urlKeys[index]) ? undefined : decodeResult(lookup(hash));
      if (cached) found.set(urlKeys[index], cached.result);
    });
  };
  const first = state.copy ? new Map<string, string>() : state.io.resultsSheet.readHashes(hashes);
  addFrom((hash) => first.get(hash));
  if (found.size === urlKeys.length) return found;
  const current = readView(state);
  addFrom((hash) => pendingOf(current, hash));
  const again = fromSheet(
    state,
    hashes.filter((_, index) => !found.has(urlKeys[index])),
    current.version,
  );
  addFrom((hash) => again.get(hash));
  return found;
}

function snapshot(state: StoreState): (urlKey: string) => CachedResult | undefined {
  const current = readView(state);
  if (!state.copy || state.copyVersion !== current.version) {
    state.copy = state.io.resultsSheet.readAll();
    state.copyVersion = current.version;
  }
  const all = state.copy;
  return (urlKey) => {
    const hash = hashOf(urlKey);
    return decodeResult(pendingOf(current, hash) ?? all.get(hash));
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
  const current = readView(state);
  const settled = settleExpired(state, current);
  const lostRaw = settled[LOST_PROPERTY] ?? current.all[LOST_PROPERTY];
  const marks = lostMarksOf(lostRaw, urlKeys, state.clock.now());
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
    state,
    hashes.filter((hash) => pendingOf(current, hash) === undefined),
    current.version,
  );
  let left = roomOf(state);
  urlKeys.forEach((key, index) => {
    const hash = hashes[index];
    const cached = decodeResult(pendingOf(current, hash) ?? inSheet.get(hash));
    if (cached && cached.savedAt >= storedSince) check.stored.set(key, cached.result);
    else if (current.sending.has(hash)) check.elsewhere.push(key);
    else if (lost.has(key) && sendableAfterLosses && !sendableAfterLosses(key, lost.get(key) as number))
      check.held.push(key);
    else if (left-- > 0) check.send.push(key);
    else check.full.push(key);
  });
  const records = check.send.length > 0 ? sendingRecords(state, current, check.send, untilMs) : {};
  if (check.send.length > 0) check.sending = Object.keys(records);
  const values = { ...settled, ...records };
  if (Object.keys(values).length > 0) state.props.setProperties(values);
  return check;
}

/**
 * Under the document lock, with the view just read: the sending records whose execution ended before storing their
 * answers (expired unended) become lost answers, once: a "maybe charged" row each in the credits log (the
 * formulas' buffer when this execution cannot write the sheets; such an execution settles formulas' records only)
 * and one more lost send of each URL, so it is sent again at most once more. Returns the properties to write
 * (the records ended, the lost marks, buffered charges); the sheets are written first.
 */
function settleExpired(state: StoreState, current: DocumentView): Record<string, string> {
  const now = state.clock.now();
  const expired = current.expired.filter((one) => state.writable || one.record.b);
  if (expired.length === 0) return {};
  const keys = expired.flatMap((one) => one.record.k);
  const values: Record<string, string> = {};
  if (state.writable) state.io.appendCharges(expired.flatMap((one) => lostRowsOf(one.record, now)));
  else
    for (const record of bufferedCharges([], keys, now))
      values[CHARGE_PREFIX + newVersion(state.clock.now())] = record;
  for (const one of expired) values[one.name] = '';
  values[LOST_PROPERTY] = withLostSends(current.all[LOST_PROPERTY], keys, now);
  current.expired = current.expired.filter((one) => !expired.includes(one));
  return values;
}

/** A property value holds at most 9 KB (apps-script/guides/services/quotas): a batch's record is split below it. */
const RECORD_CHARS = 8000;

/** The records of a batch about to be sent (document properties, by name): one, or more for long URLs. */
function sendingRecords(
  state: StoreState,
  current: DocumentView,
  send: string[],
  untilMs: number,
): Record<string, string> {
  const payer: Pick<SendingRecord, 'b' | 'c'> = state.writable
    ? { c: contextTuple(state.charges) }
    : { b: 1 };
  if (!state.writable) current.pendingBytes += send.length * PENDING_RESULT_RESERVE_BYTES;
  const records: Record<string, string> = {};
  let chunk: string[] = [];
  let chars = 0;
  const flush = () => {
    const record: SendingRecord = { u: untilMs, k: chunk, ...payer };
    records[SENDING_PREFIX + newVersion(state.clock.now())] = JSON.stringify(record);
    chunk = [];
    chars = 0;
  };
  for (const key of send) {
    if (chunk.length > 0 && chars + key.length > RECORD_CHARS) flush();
    chunk.push(key);
    chars += key.length + 3;
  }
  flush();
  return records;
}

function putMany(
  state: StoreState,
  entries: Array<[string, LookupResult]>,
  sending: readonly string[] = [],
  lost: string[] = [],
): void {
  if (entries.length === 0 && sending.length === 0 && lost.length === 0) return;
  const now = state.clock.now();
  const added = new Map<string, string>();
  for (const [urlKey, result] of entries) added.set(hashOf(urlKey), encodeResult(result, now));
  const values: Record<string, string> = Object.fromEntries(sending.map((name) => [name, '']));
  const { props } = state;
  state.io.withStoreLock(() => {
    // Only after a lost batch (rare): one more read, under the lock, so no other execution's marks are lost.
    if (lost.length > 0) values[LOST_PROPERTY] = withLostSends(props.getProperty(LOST_PROPERTY), lost, now);
    if (!state.writable) {
      for (const [hash, encoded] of added) values[PENDING_PREFIX + hash] = encoded;
      for (const record of bufferedCharges(entries, lost, now))
        values[CHARGE_PREFIX + newVersion(state.clock.now())] = record;
      props.setProperties(values);
      return;
    }
    // The sheets first, before any property call: a result (and its charge) is kept even if the properties
    // quota runs out now. Only lock holders change the version, so reading it after the sheet write still
    // gives `before`.
    state.io.resultsSheet.appendResults(added);
    state.io.appendCharges(chargeRows(state.charges, entries, lost, now));
    if (added.size === 0) {
      props.setProperties(values);
      return;
    }
    const before = props.getProperty(TABLE_VERSION_PROPERTY) ?? '';
    values[TABLE_VERSION_PROPERTY] = newVersion(state.clock.now());
    props.setProperties(values);
    followOwnWrite(state, before, values[TABLE_VERSION_PROPERTY], added);
  }, state.writable);
}

function keepPending(state: StoreState): number {
  const now = state.clock.now();
  const all = state.props.getProperties();
  const { added, charges, kept, lostKeys, dropped } = sortForKeeping(all, now);
  if (dropped === 0) return 0;
  if (lostKeys.length > 0) kept[LOST_PROPERTY] = withLostSends(all[LOST_PROPERTY], lostKeys, now);
  const before = all[TABLE_VERSION_PROPERTY] ?? '';
  // The sheets first: the buffer is dropped only once its results and charges are kept there.
  state.io.resultsSheet.appendResults(added);
  state.io.appendCharges(charges);
  kept[TABLE_VERSION_PROPERTY] = added.size > 0 ? newVersion(state.clock.now()) : before;
  state.props.setProperties(kept, true);
  followOwnWrite(state, before, kept[TABLE_VERSION_PROPERTY], added);
  return added.size;
}

/** Whether formulas left results waiting to be saved: one read of the document properties' names. */
export function bufferHoldsResults(props: PropertyStore): boolean {
  return props.getKeys().some(isPendingKey);
}

/**
 * The profiles of `urlKeys` whose answers were lost `atLeast` times lately, and until when (epoch ms) they are
 * not sent again, from the LOST_PROPERTY value `raw` (a retry's plan counts them apart instead of promising them).
 */
export function heldByLostMarks(
  raw: string | null,
  urlKeys: string[],
  atLeast: number,
  now: number,
): Map<string, number> {
  const held = new Map<string, number>();
  for (const [key, mark] of lostMarksOf(raw, urlKeys, now))
    if (mark.sends >= atLeast) held.set(key, mark.until);
  return held;
}
