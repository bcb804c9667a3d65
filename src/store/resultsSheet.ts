/** The hidden results sheet over its port; written holding the document lock. */
import { LOG_COMPACT_AT, LOG_ROWS, READ_ALL_BUCKETS_ABOVE } from '../core/limits';
import type { HiddenSheet } from '../core/ports';
import {
  BUCKETS,
  bucketOf,
  entriesOf,
  FIRST_BUCKET_ROW,
  LOG_FIRST_ROW,
  mergeIntoBuckets,
  parseRows,
  TABLE_ROWS,
} from './table';

export interface ResultsRead {
  results: Map<string, string>;
  logRows: number;
}

export interface ResultsSheet {
  readHashes(hashes: string[]): Map<string, string>;
  readAll(): ResultsRead;
  /** From `logRow` on (0: its first row), in one read. */
  readLogFrom(logRow: number): ResultsRead;
  /** Creates the sheet when missing; true when it merged the log into the buckets. Holding the lock. */
  appendResults(added: Map<string, string>): boolean;
}

export function resultsSheetOn(hidden: HiddenSheet): ResultsSheet {
  return {
    /** The log is read first: a compaction meanwhile moves results from the log into the buckets, never back. */
    readHashes(hashes) {
      if (hashes.length === 0) return new Map();
      const read = hidden.reader();
      const log = read(`A${LOG_FIRST_ROW}:B${TABLE_ROWS}`);
      if (!log) return new Map();
      const all = new Map<string, string>();
      const buckets = [...new Set(hashes.map(bucketOf))];
      if (buckets.length > READ_ALL_BUCKETS_ABOVE)
        parseRows(read(`${FIRST_BUCKET_ROW}:${LOG_FIRST_ROW - 1}`) ?? [], all);
      else
        for (const bucket of buckets)
          parseRows(read(`${FIRST_BUCKET_ROW + bucket}:${FIRST_BUCKET_ROW + bucket}`) ?? [], all);
      return entriesOf(parseRows(log, all, true), hashes);
    },
    readAll() {
      const rows = hidden.reader()(`${FIRST_BUCKET_ROW}:${TABLE_ROWS}`) ?? [];
      const log = rows.slice(BUCKETS);
      return { results: parseRows(log, parseRows(rows.slice(0, BUCKETS)), true), logRows: rowsIn(log) };
    },
    readLogFrom(logRow) {
      if (logRow >= LOG_ROWS) return { results: new Map(), logRows: logRow };
      const rows = hidden.reader()(`A${LOG_FIRST_ROW + logRow}:B${TABLE_ROWS}`) ?? [];
      return { results: parseRows(rows, new Map(), true), logRows: logRow + rowsIn(rows) };
    },
    /** Past LOG_COMPACT_AT, merges log and results into the buckets. */
    appendResults(added) {
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
    },
  };
}

/** The log is written without gaps. */
function rowsIn(log: unknown[][]): number {
  for (let index = log.length - 1; index >= 0; index--)
    if (String(log[index][0] ?? '') !== '') return index + 1;
  return 0;
}
