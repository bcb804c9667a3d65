/**
 * Sending records and answers: every lookup's money accounted for from its claim to the hidden sheets. Pure.
 *   pef.s.<id>  the claim: until (`u`; past it keys in `k` are lost), at the service (`k`), claimed (`q`), payer (`c`;
 *               `b`: the formulas). Written under the lock, then by its sender alone.
 *   pef.a.<id>  one fetchAll's answers (`r`), when (`t`), payer: written as their keys leave `k`, never changed.
 */
import { PENDING_RESULT_RESERVE_BYTES, PROPERTY_RECORD_BYTES, REQUEST_OUTLIVES_MS } from '../core/limits';
import { ANSWERS_PREFIX, SENDING_PREFIX } from '../core/propertyNames';
import { storedRecord } from '../core/storedJson';
import { utf8Bytes } from '../core/text';
import { timeId } from '../core/timeId';
import { type LookupResult, lostAnswer } from '../lookup/result';
import { decodeResult, encodeResult } from './codec';
import { type ChargeContext, chargeRows, contextTuple, FORMULAS_CONTEXT } from './credits';
import { hashOf } from './table';

export interface SendingRecord {
  u: number;
  k: string[];
  q?: string[];
  c?: string[];
  b?: 1;
}

export interface Answers {
  t: number;
  r: Array<[string, string]>;
  c?: string[];
  b?: 1;
}

const RECORD_FIELDS = { u: 'number', k: 'array', q: 'array?', c: 'array?', b: 'number?' } as const;
const ANSWERS_FIELDS = { t: 'number', r: 'array', c: 'array?', b: 'number?' } as const;

type Payer = Pick<SendingRecord, 'b' | 'c'>;

export function payerOf(stored: Payer): ChargeContext {
  const [source, payer, payerId, where, run] = stored.c ?? [];
  if (stored.b || !stored.c) return FORMULAS_CONTEXT;
  const context: ChargeContext = { source: source as ChargeContext['source'], payer, payerId, where };
  if (run) context.run = run;
  return context;
}

function isFinal(record: SendingRecord, now: number): boolean {
  return record.u <= now || (record.k.length === 0 && (record.q?.length ?? 0) === 0);
}

export interface RecordsRead {
  /** What the service may have charged that the results sheet lacks yet, by URL hash. */
  results: Map<string, string>;
  held: Map<string, 'formulas' | 'run'>;
  /** Bytes of the formulas' answers, and a typical result's size for each key their records at work hold. */
  pendingBytes: number;
  final: {
    answers: Array<{ name: string; answers: Answers }>;
    records: Array<{ name: string; record: SendingRecord }>;
  };
}

function lostAt(at: number): string {
  return encodeResult(lostAnswer('its execution ended before the answer came'), at);
}

export function readRecords(all: Readonly<Record<string, string>>, now: number): RecordsRead {
  const read: RecordsRead = {
    results: new Map(),
    held: new Map(),
    pendingBytes: 0,
    final: { answers: [], records: [] },
  };
  for (const [name, value] of Object.entries(all)) {
    if (name.startsWith(ANSWERS_PREFIX)) {
      const answers = storedRecord<Answers>(value, ANSWERS_FIELDS);
      if (!answers) continue;
      for (const [key, encoded] of answers.r) read.results.set(hashOf(key), encoded);
      if (answers.b) read.pendingBytes += name.length + value.length;
      read.final.answers.push({ name, answers });
    } else if (name.startsWith(SENDING_PREFIX)) {
      const record = storedRecord<SendingRecord>(value, RECORD_FIELDS);
      if (!record) continue;
      if (isFinal(record, now)) {
        for (const key of record.u <= now ? record.k : []) {
          const hash = hashOf(key);
          if (!read.results.has(hash)) read.results.set(hash, lostAt(record.u));
        }
        read.final.records.push({ name, record });
        continue;
      }
      for (const key of [...record.k, ...(record.q ?? [])])
        read.held.set(hashOf(key), record.b ? 'formulas' : 'run');
      if (record.b)
        read.pendingBytes += (record.k.length + (record.q?.length ?? 0)) * PENDING_RESULT_RESERVE_BYTES;
    }
  }
  return read;
}

function recordsIn(all: Readonly<Record<string, string>>): SendingRecord[] {
  return Object.entries(all)
    .filter(([name]) => name.startsWith(SENDING_PREFIX))
    .flatMap(([, value]) => storedRecord<SendingRecord>(value, RECORD_FIELDS) ?? []);
}

/** A record at work, or one whose sender ended within the time a sent request may outlive it. */
export function mayBeAtService(all: Readonly<Record<string, string>>, now: number): boolean {
  return recordsIn(all).some(
    (record) => !isFinal(record, now) || (record.k.length > 0 && record.u + REQUEST_OUTLIVES_MS > now),
  );
}

export function requestsAtService(all: Readonly<Record<string, string>>, run: string, now: number): number {
  return recordsIn(all)
    .filter((record) => record.u > now && payerOf(record).run === run)
    .reduce((sum, record) => sum + record.k.length, 0);
}

/** The sheets are written first, then the names deleted. */
export interface Folded {
  results: Map<string, string>;
  charges: string[][];
  byRun: Map<string, { used: number; found: number; lost: number }>;
  names: string[];
}

/** `runs`: also runs' records and answers (only a run's own slices fold those: they count them). */
export function fold(final: RecordsRead['final'], now: number, runs: boolean): Folded {
  const folded: Folded = { results: new Map(), charges: [], byRun: new Map(), names: [] };
  const charged = (name: string, payer: ChargeContext, answered: Array<[string, string]>, at: number) => {
    if (payer.run && !runs) return;
    const entries: Array<[string, LookupResult]> = [];
    for (const [key, encoded] of answered) {
      const decoded = decodeResult(encoded);
      if (!decoded) continue;
      folded.results.set(hashOf(key), encoded);
      entries.push([key, decoded.result]);
    }
    folded.charges.push(...chargeRows(payer, entries, at));
    const counts = folded.byRun.get(payer.run ?? '') ?? { used: 0, found: 0, lost: 0 };
    for (const [, result] of entries) {
      counts[result.kind === 'unusable' && result.lost ? 'lost' : 'used']++;
      if (result.kind === 'found') counts.found++;
    }
    folded.byRun.set(payer.run ?? '', counts);
    folded.names.push(name);
  };
  for (const { name, answers } of final.answers) charged(name, payerOf(answers), answers.r, answers.t);
  for (const { name, record } of final.records) {
    const lost = record.u <= now ? record.k.map((key): [string, string] => [key, lostAt(record.u)]) : [];
    charged(name, payerOf(record), lost, now);
  }
  return folded;
}

/** A sending record as its sender holds it. */
export interface OwnRecord {
  until: number;
  payer: Payer;
  parts: Array<{ name: string; keys: string[] }>;
  atService: Set<string>;
  claimed: Set<string>;
}

export function openRecord(
  claimed: readonly string[],
  until: number,
  payer: ChargeContext,
  now: () => number,
): { own: OwnRecord; values: Record<string, string> } {
  const own: OwnRecord = {
    until,
    payer: payer.source === 'formulas' ? { b: 1 } : { c: contextTuple(payer) },
    parts: inChunks(claimed).map((keys) => ({ name: SENDING_PREFIX + timeId(now()), keys })),
    atService: new Set(),
    claimed: new Set(claimed),
  };
  return { own, values: partValues(own) };
}

/** 9 KB a value (apps-script/guides/services/quotas). */
function inChunks<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const item of items) {
    const bytes = utf8Bytes(JSON.stringify(item)) + 1;
    if (size + bytes > PROPERTY_RECORD_BYTES) {
      chunks.push([]);
      size = 0;
    }
    chunks[chunks.length - 1].push(item);
    size += bytes;
  }
  return chunks;
}

function partValues(own: OwnRecord, touched?: ReadonlySet<string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const part of own.parts) {
    if (touched && !part.keys.some((key) => touched.has(key))) continue;
    const record: SendingRecord = {
      u: own.until,
      k: part.keys.filter((key) => own.atService.has(key)),
      ...own.payer,
    };
    const claimed = part.keys.filter((key) => own.claimed.has(key));
    if (claimed.length > 0) record.q = claimed;
    values[part.name] = JSON.stringify(record);
  }
  return values;
}

function moved(own: OwnRecord, keys: readonly string[], move: (key: string) => void): Record<string, string> {
  if (keys.length === 0) return {};
  keys.forEach(move);
  return partValues(own, new Set(keys));
}

/** Before a fetchAll. */
export function toService(own: OwnRecord, keys: readonly string[]): Record<string, string> {
  return moved(own, keys, (key) => {
    own.claimed.delete(key);
    own.atService.add(key);
  });
}

/** After a fetchAll: its charged answers kept, `sent` out of `k` (`requeued` back in `q`). */
export function answered(
  own: OwnRecord,
  sent: readonly string[],
  results: Array<[string, LookupResult]>,
  requeued: readonly string[],
  now: () => number,
): Record<string, string> {
  const at = now();
  const values = moved(own, sent, (key) => {
    own.atService.delete(key);
    if (requeued.includes(key)) own.claimed.add(key);
  });
  const encoded = results.map(([key, result]): [string, string] => [key, encodeResult(result, at)]);
  for (const chunk of inChunks(encoded)) {
    values[ANSWERS_PREFIX + timeId(now())] = JSON.stringify({ t: at, r: chunk, ...own.payer });
  }
  return values;
}

export function dropped(own: OwnRecord, keys: readonly string[]): Record<string, string> {
  return moved(own, keys, (key) => {
    own.claimed.delete(key);
    own.atService.delete(key);
  });
}
