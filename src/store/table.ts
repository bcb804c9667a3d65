/**
 * The layout of the hidden results sheet. Pure.
 *   row 1                  a title
 *   rows 2 .. BUCKETS+1    one row per hash bucket: a line per result (`<hash><encoded>`), A then B, C… past CELL_CHARS
 *   rows LOG_FIRST_ROW ..  the log: results appended since the last compaction (A hash, B result)
 */
import { HASH_CHARS, profileHash } from '../core/hash';
import { CELL_CHARS, LOG_ROWS } from '../core/limits';
import type { SheetLayout } from '../core/ports';
import { RESULTS_SHEET } from '../core/propertyNames';

/** Hash buckets: at 100,000 results about 25 per bucket (~3 KB a cell). */
export const BUCKETS = 4096;
export const FIRST_BUCKET_ROW = 2;
export const LOG_FIRST_ROW = FIRST_BUCKET_ROW + BUCKETS;
export const TABLE_ROWS = LOG_FIRST_ROW + LOG_ROWS - 1;
export const TABLE_TITLE = 'Profile Email Finder: paid results. Do not edit or delete.';

export const RESULTS_LAYOUT: SheetLayout = {
  name: RESULTS_SHEET,
  rows: TABLE_ROWS,
  columns: 2,
  title: TABLE_TITLE,
  guard:
    'Profile Email Finder keeps the paid results here: editing, sorting or deleting this sheet forgets them, and those profiles are paid again.',
};

export const hashOf = profileHash;

export function bucketOf(hash: string): number {
  return Number.parseInt(hash.slice(0, 6), 36) % BUCKETS;
}

/** With `log`, of log rows (later rows win). */
export function parseRows(
  rows: unknown[][],
  into = new Map<string, string>(),
  log = false,
): Map<string, string> {
  for (const row of rows) {
    const lines = log ? [`${row[0] ?? ''}${row[1] ?? ''}`] : row.flatMap((cell) => String(cell).split('\n'));
    for (const line of lines)
      if (line.length > HASH_CHARS) into.set(line.slice(0, HASH_CHARS), line.slice(HASH_CHARS));
  }
  return into;
}

/** The entries of `hashes` that `from` holds. */
export function entriesOf(from: ReadonlyMap<string, string>, hashes: readonly string[]): Map<string, string> {
  return new Map(hashes.filter((hash) => from.has(hash)).map((hash) => [hash, from.get(hash) as string]));
}

/** Cells of at most CELL_CHARS characters, every row as wide as the widest. */
export function mergeIntoBuckets(rows: unknown[][], added: Map<string, string>): unknown[][] {
  const touched = new Map<number, Map<string, string>>();
  for (const [hash, encoded] of added) {
    const bucket = bucketOf(hash);
    const entries = touched.get(bucket) ?? parseRows([rows[bucket] ?? []]);
    touched.set(bucket, entries.set(hash, encoded));
  }
  const merged = rows.map((row) => row.slice());
  for (const [bucket, entries] of touched) {
    const cells = [''];
    for (const [hash, encoded] of entries) {
      const line = hash + encoded;
      const last = cells.length - 1;
      if (cells[last] && cells[last].length + 1 + line.length > CELL_CHARS) cells.push(line);
      else cells[last] = cells[last] ? `${cells[last]}\n${line}` : line;
    }
    merged[bucket] = cells;
  }
  const width = Math.max(...merged.map((row) => row.length));
  for (const row of merged) while (row.length < width) row.push('');
  return merged;
}
