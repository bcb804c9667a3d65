/**
 * Sending records and answers: where every lookup's money is accounted for, from its claim to the hidden sheets, for
 * =FINDEMAIL, bulk slices and the watch alike. Pure: the records' layout, reading them back, and the property values
 * each step writes (./resultStore.ts writes them).
 *
 *   pef.s.<id>  a sending record: its sender's keys at the service (`k`) and claimed for a later fetchAll (`q`),
 *               until when (`u`: the sender's execution cannot outlive it), who pays (`c`; `b`: the formulas) and,
 *               for a bulk slice, its window's token (`w`) and whether it ended without writing it (`e`). Written
 *               under the document lock with the claims, then only by its sender, without the lock.
 *   pef.a.<id>  the answers of one fetchAll: charged results (`r`: key, encoded result), answers lost to a
 *               connection failure (`l`: maybe charged), when (`t`), who pays. Written by the sender in the same
 *               call that takes their keys out of `k`, so a paid answer is kept whether or not the lock is free;
 *               never changed.
 *
 * An execution that may write the spreadsheet, holding the lock, folds what is final (every answer; every record
 * with nothing claimed, or past its time, when its keys at the service are lost answers): results into the results
 * sheet, a row per charge or lost answer into the credits log, the lost marks, then deletes them, one call each.
 * A record is split across properties below a value's 9 KB (apps-script/guides/services/quotas).
 */
import { PENDING_RESULT_RESERVE_BYTES, PROPERTY_RECORD_BYTES, REQUEST_OUTLIVES_MS } from '../core/limits';
import { ANSWERS_PREFIX, CHARGE_PREFIX, PENDING_PREFIX, SENDING_PREFIX } from '../core/propertyNames';
import { storedRecord } from '../core/storedJson';
import { utf8Bytes } from '../core/text';
import { timeId } from '../core/timeId';
import { type LookupResult, lostAnswer } from '../lookup/result';
import { decodeResult, encodeResult } from './codec';
import { type ChargeContext, chargeRows, contextTuple, FORMULAS_CONTEXT, rowsOfBuffered } from './credits';
import type { Folded } from './ports';
import { hashOf } from './table';

/** A sending record as stored (one property of it: a record of many long URLs is split). */
export interface SendingRecord {
  u: number;
  k: string[];
  q?: string[];
  c?: string[];
  b?: 1;
  w?: string;
  e?: 1;
}

/** One fetchAll's answers as stored. */
export interface Answers {
  t: number;
  r: Array<[string, string]>;
  l?: string[];
  c?: string[];
  b?: 1;
}

const RECORD_FIELDS = {
  u: 'number',
  k: 'array',
  q: 'array?',
  c: 'array?',
  b: 'number?',
  w: 'string?',
  e: 'number?',
} as const;
const ANSWERS_FIELDS = { t: 'number', r: 'array', l: 'array?', c: 'array?', b: 'number?' } as const;

export function parseRecord(raw: string | null | undefined): SendingRecord | undefined {
  return storedRecord<SendingRecord>(raw, RECORD_FIELDS) ?? undefined;
}

type Payer = Pick<SendingRecord, 'b' | 'c'>;

function payerFields(payer: ChargeContext): Payer {
  return payer.source === 'formulas' ? { b: 1 } : { c: contextTuple(payer) };
}

/** Who pays for a record's or answers' keys (the formulas' when it names no run). */
export function payerOf(stored: Payer): ChargeContext {
  const [source, payer, payerId, where, run] = stored.c ?? [];
  if (stored.b || !stored.c) return FORMULAS_CONTEXT;
  const context: ChargeContext = { source: source as ChargeContext['source'], payer, payerId, where };
  if (run) context.run = run;
  return context;
}

/** A record (a part of one) is final: nothing of it is claimed any more, or its sender's time is over. */
function isFinal(record: SendingRecord, now: number): boolean {
  return record.u <= now || (record.k.length === 0 && (record.q?.length ?? 0) === 0);
}

/** What one read of the document properties says of the batches. */
export interface RecordsRead {
  /**
   * What the service may have charged and the results sheet lacks yet, by URL hash (encoded): results, unusable
   * answers, and the keys at the service of records past their time (lost answers).
   */
  results: Map<string, string>;
  /** URL hashes in a record still at work: another execution sends them. */
  held: Set<string>;
  /** Bytes the formulas' answers take, with their records at work at a typical result's size each. */
  pendingBytes: number;
  /** What a writing execution folds now (property names with what they hold). */
  final: {
    answers: Array<{ name: string; answers: Answers }>;
    records: Array<{ name: string; record: SendingRecord }>;
    /** Kept by an earlier version: formulas' results (`pef.p.`) and charges (`pef.c.`). */
    legacy: Array<{ name: string; value: string }>;
  };
}

/** The answer lost of a key at the service when its sender's execution ended (its record past its time). */
export function lostAt(at: number): string {
  return encodeResult(lostAnswer('its execution ended before the answer came'), at);
}

/** An answers property's charged results, its lost answers (an earlier version's `l`) among them, encoded. */
function answeredIn(answers: Answers): Array<[string, string]> {
  const lost = (answers.l ?? []).map((key): [string, string] => [
    key,
    encodeResult(lostAnswer('a connection failed'), answers.t),
  ]);
  return [...answers.r, ...lost];
}

export function readRecords(all: Readonly<Record<string, string>>, now: number): RecordsRead {
  const read: RecordsRead = {
    results: new Map(),
    held: new Set(),
    pendingBytes: 0,
    final: { answers: [], records: [], legacy: [] },
  };
  for (const [name, value] of Object.entries(all)) {
    if (name.startsWith(ANSWERS_PREFIX)) {
      const answers = storedRecord<Answers>(value, ANSWERS_FIELDS);
      if (!answers) continue;
      for (const [key, encoded] of answeredIn(answers)) read.results.set(hashOf(key), encoded);
      if (answers.b) read.pendingBytes += name.length + value.length;
      read.final.answers.push({ name, answers });
    } else if (name.startsWith(SENDING_PREFIX)) {
      const record = parseRecord(value);
      // An empty value: a record an earlier version ended in place.
      if (!record) {
        if (value === '') read.final.records.push({ name, record: { u: 0, k: [] } });
        continue;
      }
      if (isFinal(record, now)) {
        for (const key of record.u <= now ? record.k : []) {
          const hash = hashOf(key);
          if (!read.results.has(hash)) read.results.set(hash, lostAt(record.u));
        }
        read.final.records.push({ name, record });
        continue;
      }
      for (const key of [...record.k, ...(record.q ?? [])]) read.held.add(hashOf(key));
      if (record.b)
        read.pendingBytes += (record.k.length + (record.q?.length ?? 0)) * PENDING_RESULT_RESERVE_BYTES;
    } else if (name.startsWith(PENDING_PREFIX) || name.startsWith(CHARGE_PREFIX)) {
      if (name.startsWith(PENDING_PREFIX)) read.results.set(name.slice(PENDING_PREFIX.length), value);
      read.pendingBytes += name.length + value.length;
      read.final.legacy.push({ name, value });
    }
  }
  return read;
}

/**
 * A request of some record may still be at the service: a record at work, or one whose sender ended within the time
 * a sent request may outlive it (REQUEST_OUTLIVES_MS: its answer, and its charge, may still come).
 */
export function mayBeAtService(all: Readonly<Record<string, string>>, now: number): boolean {
  return recordsIn(all).some((record) =>
    record.u > now
      ? record.k.length + (record.q?.length ?? 0) > 0
      : record.k.length > 0 && record.u + REQUEST_OUTLIVES_MS > now,
  );
}

/** Requests at the service now for the run `run` (its id). */
export function requestsAtService(all: Readonly<Record<string, string>>, run: string, now: number): number {
  return recordsIn(all)
    .filter((record) => record.u > now && record.c && payerOf(record).run === run)
    .reduce((sum, record) => sum + record.k.length, 0);
}

function recordsIn(all: Readonly<Record<string, string>>): SendingRecord[] {
  return Object.entries(all)
    .filter(([name]) => name.startsWith(SENDING_PREFIX))
    .flatMap(([, value]) => parseRecord(value) ?? []);
}

export function fold(final: RecordsRead['final'], now: number): Folded {
  const folded: Folded = { results: new Map(), charges: [], byRun: new Map(), endedWindows: [], names: [] };
  const charged = (payer: ChargeContext, answered: Array<[string, string]>, at: number) => {
    const entries: Array<[string, LookupResult]> = [];
    for (const [key, encoded] of answered) {
      const decoded = decodeResult(encoded);
      if (!decoded) continue;
      folded.results.set(hashOf(key), encoded);
      entries.push([key, decoded.result]);
    }
    folded.charges.push(...chargeRows(payer, entries, at));
    const run = payer.run ?? '';
    const counts = folded.byRun.get(run) ?? { used: 0, found: 0, lost: 0 };
    for (const [, result] of entries) {
      if (result.kind === 'unusable' && result.lost) counts.lost++;
      else counts.used++;
      if (result.kind === 'found') counts.found++;
    }
    folded.byRun.set(run, counts);
  };
  for (const { name, answers } of final.answers) {
    charged(payerOf(answers), answeredIn(answers), answers.t);
    folded.names.push(name);
  }
  for (const { name, record } of final.records) {
    if (record.u <= now && record.k.length > 0) {
      const lost = record.k.map((key): [string, string] => [key, lostAt(record.u)]);
      charged(payerOf(record), lost, now);
    }
    if (record.w && (record.e || record.u <= now)) folded.endedWindows.push(record.w);
    folded.names.push(name);
  }
  for (const { name, value } of final.legacy) {
    if (name.startsWith(PENDING_PREFIX)) folded.results.set(name.slice(PENDING_PREFIX.length), value);
    else folded.charges.push(...rowsOfBuffered(value));
    folded.names.push(name);
  }
  return folded;
}

/**
 * A sending record as its sender holds it: its properties' names with their keys, and which keys are at the service
 * or claimed for later. Each step returns the property values to write (one call), without the lock: no other
 * execution writes these records.
 */
export interface OwnRecord {
  until: number;
  payer: Payer;
  window?: string;
  parts: Array<{ name: string; keys: string[] }>;
  atService: Set<string>;
  claimed: Set<string>;
  /** A bulk slice ended without writing its window (the lock refused): folding its records frees the window. */
  ended?: boolean;
}

/** A new sending record: `atService` go out first, `later` are claimed for later fetchAlls; its values. */
export function openRecord(
  atService: readonly string[],
  later: readonly string[],
  until: number,
  payer: ChargeContext,
  now: () => number,
  window?: string,
): { own: OwnRecord; values: Record<string, string> } {
  const parts = inChunks([...atService, ...later], jsonBytes).map((keys) => ({
    name: SENDING_PREFIX + timeId(now()),
    keys,
  }));
  const own: OwnRecord = {
    until,
    payer: payerFields(payer),
    parts,
    atService: new Set(atService),
    claimed: new Set(later),
  };
  if (window) own.window = window;
  return { own, values: partValues(own, parts) };
}

/** The UTF-8 bytes `value` takes in a record's JSON, with its comma. */
function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value)) + 1;
}

/** `items` in order, in chunks of at most PROPERTY_RECORD_BYTES (an item alone may be more). */
function inChunks<T>(items: readonly T[], bytesOf: (item: T) => number): T[][] {
  const chunks: T[][] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const item of items) {
    const bytes = bytesOf(item);
    if (size + bytes > PROPERTY_RECORD_BYTES) {
      chunks.push([]);
      size = 0;
    }
    chunks[chunks.length - 1].push(item);
    size += bytes;
  }
  return chunks;
}

function partValues(own: OwnRecord, parts: OwnRecord['parts']): Record<string, string> {
  const values: Record<string, string> = {};
  for (const part of parts) {
    const record: SendingRecord = {
      u: own.until,
      k: part.keys.filter((key) => own.atService.has(key)),
      ...own.payer,
    };
    const claimed = part.keys.filter((key) => own.claimed.has(key));
    if (claimed.length > 0) record.q = claimed;
    if (own.window) record.w = own.window;
    if (own.ended) record.e = 1;
    values[part.name] = JSON.stringify(record);
  }
  return values;
}

/** The parts holding any of `keys`. */
function partsOf(own: OwnRecord, keys: readonly string[]): OwnRecord['parts'] {
  const touched = new Set(keys);
  return own.parts.filter((part) => part.keys.some((key) => touched.has(key)));
}

/** Before a later fetchAll: these claimed keys go to the service now. */
export function toService(own: OwnRecord, keys: readonly string[]): Record<string, string> {
  const going = keys.filter((key) => own.claimed.has(key));
  return moved(own, going, (key) => {
    own.claimed.delete(key);
    own.atService.add(key);
  });
}

/** The values of the parts of `keys` after `move` applied to each (none when no key moves). */
function moved(own: OwnRecord, keys: readonly string[], move: (key: string) => void): Record<string, string> {
  if (keys.length === 0) return {};
  keys.forEach(move);
  return partValues(own, partsOf(own, keys));
}

/**
 * After a fetchAll of `sent`: what the service may have charged (results, unusable and lost answers) kept in new
 * answer properties, and its keys out of `k`: `requeued` stay claimed for another try, the rest are done.
 */
export function answered(
  own: OwnRecord,
  sent: readonly string[],
  results: Array<[string, string]>,
  requeued: readonly string[],
  at: number,
  now: () => number,
): Record<string, string> {
  for (const key of sent) own.atService.delete(key);
  for (const key of requeued) own.claimed.add(key);
  const values = partValues(own, partsOf(own, sent));
  for (const chunk of inChunks(results, jsonBytes)) {
    const answers: Answers = { t: at, r: chunk, ...own.payer };
    values[ANSWERS_PREFIX + timeId(now())] = JSON.stringify(answers);
  }
  return values;
}

/** Keys never sent leave the record (nothing of theirs is at the service). */
export function dropped(own: OwnRecord, keys: readonly string[]): Record<string, string> {
  const leaving = keys.filter((key) => own.claimed.has(key) || own.atService.has(key));
  return moved(own, leaving, (key) => {
    own.claimed.delete(key);
    own.atService.delete(key);
  });
}

/** A bulk slice ends without writing its window (the lock refused): its records say so, and free it when folded. */
export function endedWithoutWriting(own: OwnRecord): Record<string, string> {
  own.ended = true;
  return partValues(own, own.parts);
}
