/**
 * The records of batches being sent, in document properties (SENDING_PREFIX): written right before a batch goes out
 * (under the document lock), ended when its answers are stored, and settled as lost answers when the execution that
 * wrote one ended first. A claim in the best-effort cache may vanish; a record does not.
 */
import { PROPERTY_RECORD_CHARS } from '../core/limits';
import { CHARGE_PREFIX, LOST_PROPERTY, SENDING_PREFIX } from '../core/propertyNames';
import { storedRecord } from '../core/storedJson';
import { timeId } from '../core/timeId';
import { bufferedCharges, type ChargeContext, contextTuple, lostRowsOf } from './credits';
import { withLostSends } from './lostMarks';

/**
 * A batch being sent: until when, its normalised URLs, and who pays: `b` when its results go to the buffer (a
 * formula's), else `c`, the run's line in the credits log (source, payer, payer id, where). A record still
 * unended after its `u` belongs to an execution that ended before storing the answers (Apps Script ended it at
 * its time limit, or it crashed): the service may have charged each, so it is settled as lost answers.
 */
export interface SendingRecord {
  u: number;
  k: string[];
  b?: 1;
  c?: string[];
}

/** A record a reader found unended past its time: its property's name and what it holds. */
export interface ExpiredSending {
  name: string;
  record: SendingRecord;
}

/** A sending record's value read back; undefined when it is ended ('') or not a record. */
export function parseSending(raw: string): SendingRecord | undefined {
  return (
    storedRecord<SendingRecord>(raw, { u: 'number', k: 'array', b: 'number?', c: 'array?' }) ?? undefined
  );
}

/** A new name for a record of this store (a sending record, a buffered charge): its time, then a random part. */
export function newRecordName(prefix: string, now: number): string {
  return prefix + timeId(now);
}

/**
 * The records of a batch about to be sent (document properties, by name): one, or more for long URLs. `charges`:
 * who pays, or undefined when the results go to the formulas' buffer.
 */
export function sendingRecords(
  send: readonly string[],
  untilMs: number,
  charges: ChargeContext | undefined,
  now: () => number,
): Record<string, string> {
  const payer: Pick<SendingRecord, 'b' | 'c'> = charges ? { c: contextTuple(charges) } : { b: 1 };
  const records: Record<string, string> = {};
  let chunk: string[] = [];
  let chars = 0;
  const flush = () => {
    const record: SendingRecord = { u: untilMs, k: chunk, ...payer };
    records[newRecordName(SENDING_PREFIX, now())] = JSON.stringify(record);
    chunk = [];
    chars = 0;
  };
  for (const key of send) {
    if (chunk.length > 0 && chars + key.length > PROPERTY_RECORD_CHARS) flush();
    chunk.push(key);
    chars += key.length + 3;
  }
  flush();
  return records;
}

/** Where settled records' lost answers go. */
export interface SettleTarget {
  /** This execution may write the sheets: the lost answers go into the credits log now (else to the buffer). */
  writable: boolean;
  /** Appends rows to the credits log; called holding the document lock, before any property is written. */
  appendCharges(rows: string[][]): void;
  now(): number;
}

/**
 * Under the document lock, with `expired` just read (and `lostRaw`, the LOST_PROPERTY value of the same read): the
 * sending records whose execution ended before storing their answers become lost answers, once: a "maybe charged"
 * row each in the credits log (the formulas' buffer when this execution cannot write the sheets; such an execution
 * settles formulas' records only) and one more lost send of each URL, so it is sent again at most once more.
 * Returns the records settled and the properties to write (the records ended, the lost marks, buffered charges);
 * the sheets are written first.
 */
export function settleExpired(
  expired: readonly ExpiredSending[],
  lostRaw: string | undefined,
  target: SettleTarget,
): { settled: ExpiredSending[]; values: Record<string, string> } {
  const now = target.now();
  const settled = expired.filter((one) => target.writable || one.record.b);
  if (settled.length === 0) return { settled, values: {} };
  const keys = settled.flatMap((one) => one.record.k);
  const values: Record<string, string> = {};
  if (target.writable) target.appendCharges(settled.flatMap((one) => lostRowsOf(one.record, now)));
  else
    for (const record of bufferedCharges([], keys, now))
      values[newRecordName(CHARGE_PREFIX, target.now())] = record;
  for (const one of settled) values[one.name] = '';
  values[LOST_PROPERTY] = withLostSends(lostRaw, keys, now);
  return { settled, values };
}

/**
 * URLs of the batches being sent now (sent, answers not yet stored) that `where` pays for (a run's line in the
 * credits log): their answers may still be charged. `all`: the document properties.
 */
export function urlsBeingSent(all: Record<string, string>, where: string, now: number): number {
  let urls = 0;
  for (const [name, value] of Object.entries(all)) {
    if (!name.startsWith(SENDING_PREFIX)) continue;
    const record = parseSending(value);
    if (record && record.u > now && record.c?.[3] === where) urls += record.k.length;
  }
  return urls;
}
