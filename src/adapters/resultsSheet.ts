/**
 * The hidden results sheet (layout: src/store/table.ts). Any execution reads it (custom functions may read
 * other sheets of their spreadsheet); only executions that may write the spreadsheet write it, holding the
 * document lock (src/store/resultStore.ts).
 */

import { RESULTS_SHEET } from '../core/propertyNames';
import {
  BUCKETS,
  bucketOf,
  FIRST_BUCKET_ROW,
  LOG_COMPACT_AT,
  LOG_FIRST_ROW,
  mergeIntoBuckets,
  parseRows,
  TABLE_ROWS,
  TABLE_TITLE,
} from '../store/table';
import { activeSpreadsheet, activeSpreadsheetOrNull } from './spreadsheet';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/** Above this many buckets, one read of every bucket row costs less than a read per bucket. */
const READ_ALL_BUCKETS_ABOVE = 16;

/** Reads rows of the results sheet (A1 notation); null when there is none (never written, or deleted). */
function read(ss: Spreadsheet | null, a1: string): unknown[][] | null {
  try {
    return ss?.getRange(`'${RESULTS_SHEET}'!${a1}`).getValues() ?? null;
  } catch {
    return null;
  }
}

/**
 * The results (hash -> encoded) of these hashes found in the sheet: the log first (a compaction running
 * meanwhile moves results from the log into the buckets, never the other way), then their bucket rows.
 */
export function readHashes(hashes: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const ss = hashes.length > 0 ? activeSpreadsheetOrNull() : null;
  const log = read(ss, `A${LOG_FIRST_ROW}:B${TABLE_ROWS}`);
  if (!log) return found;
  const all = new Map<string, string>();
  const buckets = [...new Set(hashes.map(bucketOf))];
  if (buckets.length > READ_ALL_BUCKETS_ABOVE)
    parseRows(read(ss, `${FIRST_BUCKET_ROW}:${LOG_FIRST_ROW - 1}`) ?? [], all);
  else
    for (const bucket of buckets)
      parseRows(read(ss, `${FIRST_BUCKET_ROW + bucket}:${FIRST_BUCKET_ROW + bucket}`) ?? [], all);
  parseRows(log, all, true);
  for (const hash of hashes) if (all.has(hash)) found.set(hash, all.get(hash) as string);
  return found;
}

/** Every result in the sheet (hash -> encoded), in one read. */
export function readAll(): Map<string, string> {
  const rows = read(activeSpreadsheetOrNull(), `${FIRST_BUCKET_ROW}:${TABLE_ROWS}`) ?? [];
  return parseRows(rows.slice(BUCKETS), parseRows(rows.slice(0, BUCKETS)), true);
}

/**
 * Creates the hidden sheet: the title, the bucket and log rows, two plain-text columns (a result must never be
 * read as a number or a formula). The user's sheet stays active (Apps Script activates an inserted sheet,
 * apps-script/reference/spreadsheet/spreadsheet#insertsheetsheetname).
 */
function createSheet(ss: Spreadsheet): GoogleAppsScript.Spreadsheet.Sheet {
  const user = ss.getActiveSheet();
  const sheet = ss.insertSheet(RESULTS_SHEET);
  ss.setActiveSheet(user);
  const rows = sheet.getMaxRows();
  if (rows < TABLE_ROWS) sheet.insertRowsAfter(rows, TABLE_ROWS - rows);
  const columns = sheet.getMaxColumns();
  if (columns > 2) sheet.deleteColumns(3, columns - 2);
  sheet.getRange(1, 1, TABLE_ROWS, 2).setNumberFormat('@');
  sheet.getRange(1, 1).setValue(TABLE_TITLE);
  sheet.hideSheet();
  return sheet;
}

/**
 * Adds results (hash -> encoded) to the sheet, creating it when missing. Call holding the document lock.
 * Appends to the log in one write; when the log would pass LOG_COMPACT_AT, merges the log and the new results
 * into the bucket rows (one read, one write) and empties the log.
 */
export function appendResults(added: Map<string, string>): void {
  if (added.size === 0) return;
  const ss = activeSpreadsheet();
  const sheet = ss.getSheetByName(RESULTS_SHEET) ?? createSheet(ss);
  const logLength = Math.max(0, sheet.getLastRow() - (LOG_FIRST_ROW - 1));
  if (logLength + added.size <= LOG_COMPACT_AT) {
    sheet.getRange(LOG_FIRST_ROW + logLength, 1, added.size, 2).setValues([...added]);
    return;
  }
  const width = sheet.getMaxColumns();
  const table = sheet.getRange(FIRST_BUCKET_ROW, 1, TABLE_ROWS - 1, width).getValues();
  const merged = parseRows(table.slice(BUCKETS), new Map(), true);
  for (const [hash, encoded] of added) merged.set(hash, encoded);
  const buckets = mergeIntoBuckets(table.slice(0, BUCKETS), merged);
  const wide = buckets[0].length;
  if (wide > width) {
    sheet.insertColumnsAfter(width, wide - width);
    sheet.getRange(1, width + 1, TABLE_ROWS, wide - width).setNumberFormat('@');
  }
  sheet.getRange(FIRST_BUCKET_ROW, 1, BUCKETS, wide).setValues(buckets);
  if (logLength > 0) sheet.getRange(LOG_FIRST_ROW, 1, logLength, 2).clearContent();
}
