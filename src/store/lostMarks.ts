/**
 * How the answers lost lately to connection failures sit in document properties (LOST_PROPERTY): one value, a
 * fixed-width mark per normalised URL. Encoding only (no Apps Script global); ./resultStore.ts reads
 * them in beginSend's read and writes them in putMany, under the document lock.
 */
import { HASH_CHARS } from '../core/hash';
import { lostMarkEnd, MAX_LOST_MARKS } from '../core/limits';
import { hashOf } from './table';

/** One mark: the URL's hash (14), its lost sends (1 digit), until when (minutes since the epoch, base 36, 6). */
const LOST_MARK_CHARS = HASH_CHARS + 1 + 6;

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
  return new Map([...lostMarksOf(raw, urlKeys, now)].map(([key, mark]) => [key, mark.sends]));
}

/** The marks of `urlKeys` that still count: lost sends, and until when (epoch ms) they count. */
export function lostMarksOf(
  raw: string | null | undefined,
  urlKeys: readonly string[],
  now: number,
): Map<string, { sends: number; until: number }> {
  const found = new Map<string, { sends: number; until: number }>();
  const marks = parseLostMarks(raw, now);
  if (marks.size === 0) return found;
  for (const key of urlKeys) {
    const mark = marks.get(hashOf(key));
    if (mark) found.set(key, { sends: mark.sends, until: mark.untilMinute * 60_000 });
  }
  return found;
}

/**
 * The LOST_PROPERTY value after one more lost send of each of `urlKeys` at `now`: each of their marks counts again
 * for LOST_MARK_MS; marks that ended are pruned, and past MAX_LOST_MARKS those that end first are dropped.
 */
export function withLostSends(raw: string | null | undefined, urlKeys: string[], now: number): string {
  const marks = parseLostMarks(raw, now);
  const untilMinute = lostMarkEnd(now) / 60_000;
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
