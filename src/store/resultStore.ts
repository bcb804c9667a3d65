/**
 * The result store: every paid result, kept for the life of the spreadsheet. This module composes its parts into
 * the lookup's ResultStore (src/lookup/ports.ts):
 *
 * - The hidden results sheet holds them (layout: ./table.ts); only executions that may write the spreadsheet write
 *   it, holding the document lock. What this execution read of it: ./resultsCopy.ts.
 * - The keys sent are recorded under the lock with their claims (beginSend), and each fetchAll's answers are kept in
 *   records by the sender alone, without the lock (./sendingRecords.ts): a claim in the best-effort cache may
 *   vanish, a record does not, and a paid answer is kept whether or not LockService lets anyone in.
 * - An execution that may write the spreadsheet folds what is final into the sheets (`fold`): results, a row per
 *   charge or lost answer in the credits log (./credits.ts), the lost marks (./lostMarks.ts); then deletes those
 *   records, one call each. Nothing rewrites the whole store. Until then readers find the answers in the records.
 *
 * (Plain functions over a state object rather than a class: the bundle's minifier shortens function names, not
 * members.)
 */

import { PENDING_RESULT_RESERVE_BYTES, PENDING_RESULTS_BUDGET_BYTES } from '../core/limits';
import { TABLE_VERSION_PROPERTY } from '../core/propertyNames';
import { timeId } from '../core/timeId';
import type { CachedResult, RecordWrites, SendAsk, SendCheck, StoreRead } from '../lookup/ports';
import type { LookupResult } from '../lookup/result';
import { decodeResult, encodeResult } from './codec';
import { type ChargeContext, FORMULAS_CONTEXT } from './credits';
import type { Folded, FoldOutcome, SheetResultStore, StoreServices } from './ports';
import {
  followOwnWrite,
  fromSheet,
  type ResultsCopy,
  resultsCopy,
  tableVersion,
  wholeSheet,
} from './resultsCopy';
import {
  answered,
  dropped,
  endedWithoutWriting,
  fold,
  type OwnRecord,
  openRecord,
  type RecordsRead,
  readRecords,
  toService,
} from './sendingRecords';
import { hashOf } from './table';

/** The document properties as one call read them. */
type Properties = Readonly<Record<string, string>>;

/** One store's state for the life of its execution. */
interface StoreState {
  /** This execution may write the spreadsheet (not a custom function). */
  writable: boolean;
  io: StoreServices;
  copy: ResultsCopy;
  /** Who pays for what this execution sends, and where (the credits log). */
  charges: ChargeContext;
}

/** One execution's store (fields as StoreState's); `charges`: who pays for what it sends, the formulas by default. */
export function sheetResultStore(
  writable: boolean,
  io: StoreServices,
  charges = FORMULAS_CONTEXT,
): SheetResultStore {
  const state: StoreState = { charges, writable, io, copy: resultsCopy(io.resultsSheet) };
  return {
    getMany: (urlKeys) => readStored(state, urlKeys).results,
    readStored: (urlKeys) => readStored(state, urlKeys),
    beginSend: (ask) => beginSend(state, ask),
    fold: (all, also) => foldFinal(state, all, also),
    lookIn: (urlKeys, all) => lookIn(state, urlKeys, all),
    allResults: () => allResults(state),
  };
}

/** How many more results this execution may pay for, as of `read` (none read: unbounded). */
function roomAsOf(state: StoreState, read: RecordsRead | undefined): number {
  if (state.writable || !read) return Number.POSITIVE_INFINITY;
  return Math.max(
    0,
    Math.floor((PENDING_RESULTS_BUDGET_BYTES - read.pendingBytes) / PENDING_RESULT_RESERVE_BYTES),
  );
}

/**
 * The sheet first (a result kept there costs no property call); then, for keys it lacks, the answers not folded
 * yet, and the sheet again unless it cannot have changed since (a writer may have folded them into it).
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
  const all = state.io.properties.getProperties();
  const records = readRecords(all, state.io.clock.now());
  addFrom((hash) => records.results.get(hash));
  const lacking = hashes.filter((_, index) => !results.has(urlKeys[index]));
  const again = fromSheet(state.copy, lacking, all[TABLE_VERSION_PROPERTY] ?? '');
  addFrom((hash) => again.get(hash));
  return { results, room: roomAsOf(state, records), property: (name) => all[name] };
}

function allResults(state: StoreState): LookupResult[] {
  const all = state.io.properties.getProperties();
  const pending = readRecords(all, state.io.clock.now()).results;
  const sheet = wholeSheet(state.copy, all[TABLE_VERSION_PROPERTY] ?? '');
  return [...new Map([...sheet, ...pending]).values()].flatMap(
    (encoded) => decodeResult(encoded)?.result ?? [],
  );
}

function lookIn(state: StoreState, urlKeys: string[], all: Properties): Map<string, CachedResult> {
  const pending = readRecords(all, state.io.clock.now()).results;
  const hashes = urlKeys.map(hashOf);
  const inSheet = sheetResultsOf(state, hashes, pending, all);
  const found = new Map<string, CachedResult>();
  urlKeys.forEach((key, index) => {
    const cached = decodeResult(pending.get(hashes[index]) ?? inSheet.get(hashes[index]));
    if (cached) found.set(key, cached);
  });
  return found;
}

/**
 * The results sheet's results of the hashes not `pending` in records, at `all`'s version: a writer (a bulk slice,
 * holding the lock batch after batch) keeps the whole sheet, current through its own writes; a formula reads their
 * bucket rows.
 */
function sheetResultsOf(
  state: StoreState,
  hashes: string[],
  pending: ReadonlyMap<string, string>,
  all: Properties,
): ReadonlyMap<string, string> {
  const version = all[TABLE_VERSION_PROPERTY] ?? '';
  if (state.writable) return wholeSheet(state.copy, version);
  const lacking = hashes.filter((hash) => !pending.has(hash));
  return fromSheet(state.copy, lacking, version);
}

function beginSend(state: StoreState, ask: SendAsk): SendCheck {
  const { io } = state;
  const now = io.clock.now();
  const all = ask.all ?? io.properties.getProperties();
  const records = readRecords(all, now);
  const check: SendCheck = { send: [], first: [], stored: new Map(), elsewhere: [], full: [] };
  const hashes = ask.urlKeys.map(hashOf);
  const inSheet = sheetResultsOf(state, hashes, records.results, all);
  let room = roomAsOf(state, records);
  ask.urlKeys.forEach((key, index) => {
    const hash = hashes[index];
    const cached = decodeResult(records.results.get(hash) ?? inSheet.get(hash));
    if (cached && (ask.keepsStored?.(cached.result, cached.savedAt) ?? true))
      check.stored.set(key, cached.result);
    else if (records.held.has(hash)) check.elsewhere.push(key);
    else if (room-- > 0) check.send.push(key);
    else check.full.push(key);
  });
  if (check.send.length === 0) return check;
  const firstKeys = new Set(ask.first(check.send));
  check.first = check.send.filter((key) => firstKeys.has(key));
  const later = check.send.filter((key) => !firstKeys.has(key));
  const opened = openRecord(check.first, later, ask.untilMs, state.charges, () => io.clock.now(), ask.window);
  io.properties.setProperties(opened.values);
  check.record = recordWrites(state, opened.own);
  return check;
}

/** The record as its sender writes it: one property call a step, no lock. */
function recordWrites(state: StoreState, own: OwnRecord): RecordWrites {
  const { io } = state;
  const write = (values: Record<string, string>) => {
    if (Object.keys(values).length > 0) io.properties.setProperties(values);
  };
  return {
    toService: (keys) => write(toService(own, keys)),
    keep(sent, results, requeued) {
      const now = io.clock.now();
      const encoded = results.map(([key, result]) => [key, encodeResult(result, now)] as [string, string]);
      write(answered(own, sent, encoded, requeued, now, () => io.clock.now()));
    },
    drop: (keys) => write(dropped(own, keys)),
    endWithoutWriting: () => write(endedWithoutWriting(own)),
  };
}

function foldFinal(
  state: StoreState,
  read: Record<string, string> | undefined,
  also?: (folded: Folded, all: Record<string, string>) => Record<string, string> | undefined,
): FoldOutcome {
  const { io } = state;
  const now = io.clock.now();
  const all = { ...(read ?? io.properties.getProperties()) };
  const folded = fold(readRecords(all, now).final, now);
  const values: Record<string, string> = { ...also?.(folded, all) };
  if (folded.names.length === 0 && Object.keys(values).length === 0) return { all, folded };
  // The sheets first: a record is deleted only once its results and charges are kept there.
  const merged = io.resultsSheet.appendResults(folded.results);
  io.appendCharges(folded.charges);
  const before = all[TABLE_VERSION_PROPERTY] ?? '';
  if (folded.results.size > 0)
    values[TABLE_VERSION_PROPERTY] = tableVersion(before, merged, timeId(io.clock.now()));
  if (Object.keys(values).length > 0) io.properties.setProperties(values);
  Object.assign(all, values);
  for (const name of folded.names) {
    io.properties.deleteProperty(name);
    delete all[name];
  }
  if (values[TABLE_VERSION_PROPERTY])
    followOwnWrite(state.copy, before, values[TABLE_VERSION_PROPERTY], folded.results, merged);
  return { all, folded };
}
