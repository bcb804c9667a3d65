/**
 * How the result store's records sit in document properties: the buffer of results formulas paid for
 * (PENDING_PREFIX), the records of batches being sent (SENDING_PREFIX) and
 * the results sheet's version (TABLE_VERSION_PROPERTY); the answers lost lately (LOST_PROPERTY) in ./lostMarks.ts.
 * Reading and sorting only; src/store/resultStore.ts writes.
 */

import { PENDING_RESULT_RESERVE_BYTES } from '../core/limits';
import { CHARGE_PREFIX, PENDING_PREFIX, SENDING_PREFIX, TABLE_VERSION_PROPERTY } from '../core/propertyNames';
import { timeId } from '../core/timeId';
import { decodeResult } from './codec';
import { lostRowsOf, rowsOfBuffered } from './credits';
import type { PropertyStore } from './ports';
import { hashOf } from './table';

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

/** Document properties as read in one call. */
export interface DocumentView {
  all: Record<string, string>;
  version: string;
  /** Bytes of results waiting in the buffer, and of buffered batches under way at a typical size. */
  pendingBytes: number;
  /** URL hashes of batches under way elsewhere. */
  sending: Set<string>;
  /** Records of batches whose execution ended before their answers were stored (settled as lost answers). */
  expired: ExpiredSending[];
}

export function parseSending(raw: string): SendingRecord | undefined {
  try {
    const record = JSON.parse(raw) as SendingRecord;
    return typeof record.u === 'number' && Array.isArray(record.k) ? record : undefined;
  } catch {
    return undefined;
  }
}

export function pendingOf(view: DocumentView, hash: string): string | undefined {
  return view.all[PENDING_PREFIX + hash];
}

/** Buffered by formulas until a writing execution moves it into the sheets: a result, or a batch's charges. */
export function isPendingKey(key: string): boolean {
  return key.startsWith(PENDING_PREFIX) || key.startsWith(CHARGE_PREFIX);
}

export function newVersion(now: number): string {
  return timeId(now);
}

/** Reads the document properties once: the buffer's results, its size, the batches under way elsewhere. */
export function readDocumentView(props: PropertyStore, now: number): DocumentView {
  const all = props.getProperties();
  let pendingBytes = 0;
  const sending = new Set<string>();
  const expired: ExpiredSending[] = [];
  for (const key of Object.keys(all)) {
    if (isPendingKey(key)) pendingBytes += key.length + all[key].length;
    const record = key.startsWith(SENDING_PREFIX) ? parseSending(all[key]) : undefined;
    if (record && record.u > now) {
      for (const urlKey of record.k) sending.add(hashOf(urlKey));
      if (record.b) pendingBytes += record.k.length * PENDING_RESULT_RESERVE_BYTES;
    } else if (record) expired.push({ name: key, record });
  }
  return { all, version: all[TABLE_VERSION_PROPERTY] ?? '', pendingBytes, sending, expired };
}

/**
 * Document properties sorted for keepPending: the buffered results to move into the sheet (by hash), the buffered
 * charges to move into the credits log (its rows, oldest first), with the lost answers of sending records whose
 * execution ended before storing them (`lostKeys`, whose lost marks go up), the properties that stay, and how many
 * go (buffered results and charges, ended and expired sending records).
 */
export function sortForKeeping(all: Record<string, string>, now: number) {
  const added = new Map<string, string>();
  const charges: string[][] = [];
  const kept: Record<string, string> = {};
  const lostKeys: string[] = [];
  let dropped = 0;
  for (const key of Object.keys(all).sort()) {
    const value = all[key];
    const record = key.startsWith(SENDING_PREFIX) ? parseSending(value) : undefined;
    if (key.startsWith(CHARGE_PREFIX)) {
      charges.push(...rowsOfBuffered(value));
    } else if (isPendingKey(key)) {
      if (decodeResult(value)) added.set(key.slice(PENDING_PREFIX.length), value);
    } else if (record && record.u <= now) {
      charges.push(...lostRowsOf(record, now));
      lostKeys.push(...record.k);
    } else if (!key.startsWith(SENDING_PREFIX) || record) {
      kept[key] = value;
      continue;
    }
    dropped++;
  }
  return { added, charges, kept, lostKeys, dropped };
}
