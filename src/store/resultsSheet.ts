/**
 * The hidden results sheet (layout: ./table.ts) over its port. Any execution reads it (custom functions may read
 * other sheets of their spreadsheet); only executions that may write the spreadsheet write it, holding the
 * document lock (./resultStore.ts).
 */
import { LOG_COMPACT_AT, LOG_ROWS, READ_ALL_BUCKETS_ABOVE } from '../core/limits';
import type { HiddenSheet, ResultsRead, ResultsSheet } from './ports';
import {
  BUCKETS,
  bucketOf,
  FIRST_BUCKET_ROW,
  LOG_FIRST_ROW,
  mergeIntoBuckets,
  parseRows,
  TABLE_ROWS,
} from './table';

export function resultsSheetOn(sheet: HiddenSheet): ResultsSheet {
  return {
    readHashes: (hashes) => readHashes(sheet, hashes),
    readAll: () => readAll(sheet),
    readLogFrom: (logRow) => readLogFrom(sheet, logRow),
    appendResults: (added) => appendResults(sheet, added),
  };
}

/**
 * The results (hash -> encoded) of these hashes found in the sheet: the log first (a compaction running
 * meanwhile moves results from the log into the buckets, never the other way), then their bucket rows.
 */
function readHashes(sheet: HiddenSheet, hashes: string[]): Map<string, string> {
  const found = new Map<string, string>();
  if (hashes.length === 0) return found;
  const read = sheet.reader();
  const log = read(`A${LOG_FIRST_ROW}:B${TABLE_ROWS}`);
  if (!log) return found;
  const all = new Map<string, string>();
  const buckets = [...new Set(hashes.map(bucketOf))];
  if (buckets.length > READ_ALL_BUCKETS_ABOVE)
    parseRows(read(`${FIRST_BUCKET_ROW}:${LOG_FIRST_ROW - 1}`) ?? [], all);
  else
    for (const bucket of buckets)
      parseRows(read(`${FIRST_BUCKET_ROW + bucket}:${FIRST_BUCKET_ROW + bucket}`) ?? [], all);
  parseRows(log, all, true);
  for (const hash of hashes) {
    const value = all.get(hash);
    if (value !== undefined) found.set(hash, value);
  }
  return found;
}

/** Every result in the sheet (hash -> encoded), in one read. */
function readAll(sheet: HiddenSheet): ResultsRead {
  const rows = sheet.reader()(`${FIRST_BUCKET_ROW}:${TABLE_ROWS}`) ?? [];
  const log = rows.slice(BUCKETS);
  return { results: parseRows(log, parseRows(rows.slice(0, BUCKETS)), true), logRows: rowsIn(log) };
}

/** The results of the log's rows from `logRow` on, in one read. */
function readLogFrom(sheet: HiddenSheet, logRow: number): ResultsRead {
  if (logRow >= LOG_ROWS) return { results: new Map(), logRows: logRow };
  const rows = sheet.reader()(`A${LOG_FIRST_ROW + logRow}:B${TABLE_ROWS}`) ?? [];
  return { results: parseRows(rows, new Map(), true), logRows: logRow + rowsIn(rows) };
}

/** Log rows up to the last that holds a result (the log is written without gaps: ./table.ts). */
function rowsIn(log: unknown[][]): number {
  for (let index = log.length - 1; index >= 0; index--)
    if (String(log[index][0] ?? '') !== '') return index + 1;
  return 0;
}

/**
 * Adds results (hash -> encoded) to the sheet, creating it when missing. Call holding the document lock.
 * Appends to the log in one write; when the log would pass LOG_COMPACT_AT, merges the log and the new results
 * into the bucket rows (one read, one write) and empties the log.
 */
function appendResults(hidden: HiddenSheet, added: Map<string, string>): boolean {
  if (added.size === 0) return false;
  const sheet = hidden.findOrCreate();
  const logLength = Math.max(0, sheet.lastRow() - (LOG_FIRST_ROW - 1));
  if (logLength + added.size <= LOG_COMPACT_AT) {
    sheet.write(LOG_FIRST_ROW + logLength, 1, [...added]);
    return false;
  }
  const width = sheet.maxColumns();
  const table = sheet.values({ row: FIRST_BUCKET_ROW, column: 1, rows: TABLE_ROWS - 1, columns: width });
  const merged = parseRows(table.slice(BUCKETS), new Map(), true);
  for (const [hash, encoded] of added) merged.set(hash, encoded);
  const buckets = mergeIntoBuckets(table.slice(0, BUCKETS), merged);
  const wide = buckets[0].length;
  if (wide > width) sheet.addColumns(width, wide - width);
  sheet.write(FIRST_BUCKET_ROW, 1, buckets);
  if (logLength > 0) sheet.clear({ row: LOG_FIRST_ROW, column: 1, rows: logLength, columns: 2 });
  return true;
}
