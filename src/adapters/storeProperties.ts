/**
 * How the result store's records sit in document properties: the buffer of results formulas paid for
 * (PENDING_PREFIX, and the first versions' RESULT_PREFIX), the records of batches being sent (SENDING_PREFIX), the
 * answers lost lately (LOST_PROPERTY) and the results sheet's version (TABLE_VERSION_PROPERTY). Reading, sorting and
 * encoding only; src/adapters/resultStore.ts writes.
 */

import { PENDING_RESULT_RESERVE_BYTES } from '../core/limits';
import {
  PENDING_PREFIX,
  RESULT_BYTES_PROPERTY,
  RESULT_PREFIX,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../core/propertyNames';
import { decodeResult } from '../core/resultCodec';
import { hashOf } from '../core/resultTable';

/** A batch being sent: until when, its URL hashes, and whether its results go to the buffer (a formula's). */
export interface Sending {
  u: number;
  k: string[];
  b?: 1;
}

/** Document properties as read in one call. */
export interface DocumentView {
  all: Record<string, string>;
  version: string;
  /** Bytes of results waiting in the buffer, and of buffered batches under way at a typical size. */
  pendingBytes: number;
  sending: Set<string>;
}

export function parseSending(raw: string): Sending | undefined {
  try {
    const record = JSON.parse(raw) as Sending;
    return typeof record.u === 'number' && Array.isArray(record.k) ? record : undefined;
  } catch {
    return undefined;
  }
}

export function pendingOf(view: DocumentView, hash: string): string | undefined {
  return view.all[PENDING_PREFIX + hash] ?? view.all[RESULT_PREFIX + hash];
}

export function isPendingKey(key: string): boolean {
  return key.startsWith(PENDING_PREFIX) || key.startsWith(RESULT_PREFIX);
}

export function newVersion(): string {
  return Date.now().toString(36) + Math.floor(Math.random() * 1e9).toString(36);
}

/** Reads the document properties once: the buffer's results, its size, the batches under way elsewhere. */
export function readDocumentView(props: GoogleAppsScript.Properties.Properties): DocumentView {
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
  return { all, version: all[TABLE_VERSION_PROPERTY] ?? '', pendingBytes, sending };
}

/**
 * Document properties sorted for keepPending: the buffered results to move into the sheet (by hash), the
 * properties that stay, and how many go (buffered results, finished sending records, the old byte count).
 */
export function sortForKeeping(all: Record<string, string>, now: number) {
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
  return { added, kept, dropped };
}

// ------------------------------------------------------------------------------------------------ Lost answers
/**
 * A URL's lost sends count for 6 hours after the last one (our choice: as long as CacheService, which kept them
 * before, could keep anything), and only while the URL is among the MAX_LOST_MARKS whose marks last longest.
 */
export const LOST_MARK_MS = 6 * 3600 * 1000;
/**
 * The marks live in one property value (9 KB, apps-script/guides/services/quotas), LOST_MARK_CHARS each: at most
 * 400 of them (8,400 characters), four times a large lost batch (the pace rarely passes 100 requests). Past it, the
 * marks that end first are dropped: those URLs may then be sent again before their 6 hours are over, so a third
 * charge is possible only for a URL among more than 400 whose answers were lost within 6 hours.
 */
export const MAX_LOST_MARKS = 400;
/** One mark: the URL's hash (14), its lost sends (1 digit), until when (minutes since the epoch, base 36, 6). */
const LOST_MARK_CHARS = 21;
const HASH_CHARS = 14;

interface LostMark {
  sends: number;
  untilMinute: number;
}

/** The marks in a LOST_PROPERTY value, by URL hash, that still count at `now` (epoch ms). Malformed ones count not. */
function parseLostMarks(raw: string | null | undefined, now: number): Map<string, LostMark> {
  const marks = new Map<string, LostMark>();
  const nowMinute = Math.floor(now / 60_000);
  for (let at = 0; raw && at + LOST_MARK_CHARS <= raw.length; at += LOST_MARK_CHARS) {
    const sends = Number(raw[at + HASH_CHARS]);
    const untilMinute = Number.parseInt(raw.slice(at + HASH_CHARS + 1, at + LOST_MARK_CHARS), 36);
    if (sends > 0 && untilMinute > nowMinute)
      marks.set(raw.slice(at, at + HASH_CHARS), { sends, untilMinute });
  }
  return marks;
}

/** Lost sends by normalised URL, for those of `urlKeys` whose marks (a LOST_PROPERTY value) still count. */
export function lostSendsOf(raw: string | undefined, urlKeys: string[], now: number): Map<string, number> {
  const found = new Map<string, number>();
  const marks = parseLostMarks(raw, now);
  if (marks.size === 0) return found;
  for (const key of urlKeys) {
    const sends = marks.get(hashOf(key))?.sends;
    if (sends) found.set(key, sends);
  }
  return found;
}

/**
 * The LOST_PROPERTY value after one more lost send of each of `urlKeys` at `now`: each of their marks counts again
 * for LOST_MARK_MS; marks that ended are pruned, and past MAX_LOST_MARKS those that end first are dropped.
 */
export function withLostSends(raw: string | null | undefined, urlKeys: string[], now: number): string {
  const marks = parseLostMarks(raw, now);
  const untilMinute = Math.ceil((now + LOST_MARK_MS) / 60_000);
  for (const key of urlKeys) {
    const hash = hashOf(key);
    marks.set(hash, { sends: Math.min(9, (marks.get(hash)?.sends ?? 0) + 1), untilMinute });
  }
  return [...marks]
    .sort((a, b) => b[1].untilMinute - a[1].untilMinute)
    .slice(0, MAX_LOST_MARKS)
    .map(([hash, mark]) => hash + mark.sends + mark.untilMinute.toString(36).padStart(6, '0'))
    .join('');
}
