/**
 * The layout of the hidden results sheet (src/adapters/resultSheet.ts reads and writes it). Pure.
 *
 *   row 1                      a title (the sheet is the add-on's; editing it loses results)
 *   rows 2 .. BUCKETS+1        one row per hash bucket: its results, one line each (`<hash><encoded result>`),
 *                              in column A, spilling into B, C… when a cell would pass CELL_CHARS
 *   rows LOG_FIRST_ROW ..      the log: results appended since the last compaction, one per row (A hash, B result)
 *
 * A lookup reads the few bucket rows of its keys plus the log (at most LOG_ROWS short rows), never the whole
 * table; a write appends to the log in one call, and when the log is full one compaction merges it into the
 * buckets (one read and one write of the bucket rows).
 */
import { stableHash } from './hash';

/** Hash buckets: at 100,000 results about 25 per bucket (~3 KB a cell). */
export const BUCKETS = 4096;
export const FIRST_BUCKET_ROW = 2;
export const LOG_FIRST_ROW = FIRST_BUCKET_ROW + BUCKETS;
/** A write that would make the log longer than this merges the log into the buckets instead. */
export const LOG_COMPACT_AT = 500;
/** Rows kept for the log: LOG_COMPACT_AT plus the largest single append (a bulk batch, MAX_BATCH_SIZE). */
export const LOG_ROWS = 1000;
export const TABLE_ROWS = LOG_FIRST_ROW + LOG_ROWS - 1;
/** Sheets holds at most 50,000 characters in a cell; a bucket cell stays well below. */
export const CELL_CHARS = 45_000;
export const TABLE_TITLE =
  'Profile Email Finder: results already paid for (kept so no profile is paid twice). Do not edit or delete.';

const HASH_CHARS = stableHash('').length;

/** The 14-character key of a normalised URL in the table (the legacy property store used the same hash). */
export function hashOf(urlKey: string): string {
  return stableHash(urlKey);
}

export function bucketOf(hash: string): number {
  return Number.parseInt(hash.slice(0, 6), 36) % BUCKETS;
}

export function bucketRow(bucket: number): number {
  return FIRST_BUCKET_ROW + bucket;
}

/** The results of one bucket row's cells: hash -> encoded result. */
export function parseBucketRow(cells: unknown[], into = new Map<string, string>()): Map<string, string> {
  for (const cell of cells) {
    if (typeof cell !== 'string' || cell === '') continue;
    for (const line of cell.split('\n')) {
      if (line.length > HASH_CHARS) into.set(line.slice(0, HASH_CHARS), line.slice(HASH_CHARS));
    }
  }
  return into;
}

/** The log's rows ([hash, encoded]) into a map; later rows win. */
export function parseLogRows(rows: unknown[][], into = new Map<string, string>()): Map<string, string> {
  for (const row of rows) {
    const [hash, encoded] = row;
    if (typeof hash === 'string' && hash.length === HASH_CHARS && typeof encoded === 'string' && encoded)
      into.set(hash, encoded);
  }
  return into;
}

/** One bucket's results as cells of at most CELL_CHARS characters (at least one cell, maybe empty). */
export function bucketCells(entries: Map<string, string>): string[] {
  const cells: string[] = [];
  let current = '';
  for (const [hash, encoded] of entries) {
    const line = hash + encoded;
    if (current && current.length + 1 + line.length > CELL_CHARS) {
      cells.push(current);
      current = line;
    } else current = current ? `${current}\n${line}` : line;
  }
  cells.push(current);
  return cells;
}

/**
 * The bucket rows after merging `added` (hash -> encoded) into `rows` (the bucket rows as read, BUCKETS of them):
 * rows of `width` cells, `width` grown when a bucket needs more cells.
 */
export function mergeIntoBuckets(rows: unknown[][], added: Map<string, string>): unknown[][] {
  const byBucket = new Map<number, Map<string, string>>();
  for (const [hash, encoded] of added) {
    const bucket = bucketOf(hash);
    let entries = byBucket.get(bucket);
    if (!entries) {
      entries = parseBucketRow(rows[bucket] ?? []);
      byBucket.set(bucket, entries);
    }
    entries.set(hash, encoded);
  }
  const cellsOf = new Map<number, string[]>();
  let width = Math.max(1, ...rows.map((row) => row.length));
  for (const [bucket, entries] of byBucket) {
    const cells = bucketCells(entries);
    cellsOf.set(bucket, cells);
    width = Math.max(width, cells.length);
  }
  const merged: unknown[][] = [];
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    const row = (cellsOf.get(bucket) ?? (rows[bucket] as string[] | undefined) ?? []).slice();
    while (row.length < width) row.push('');
    merged.push(row);
  }
  return merged;
}
