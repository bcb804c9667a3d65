/**
 * The hidden results sheet (layout: src/core/resultTable.ts). Any execution reads it (custom functions may read
 * other sheets of their spreadsheet); only executions that may write the spreadsheet write it, holding the
 * document lock (src/adapters/resultStore.ts).
 */
import { RESULTS_SHEET } from '../core/propertyNames';
import {
  BUCKETS,
  bucketOf,
  bucketRow,
  FIRST_BUCKET_ROW,
  LOG_COMPACT_AT,
  LOG_FIRST_ROW,
  LOG_ROWS,
  mergeIntoBuckets,
  parseBucketRow,
  parseLogRows,
  TABLE_ROWS,
  TABLE_TITLE,
} from '../core/resultTable';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;
type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/** Above this many buckets, one read of every bucket row costs less than a read per bucket. */
const READ_ALL_BUCKETS_ABOVE = 16;

function activeSpreadsheet(): Spreadsheet | null {
  try {
    return SpreadsheetApp.getActiveSpreadsheet();
  } catch {
    return null;
  }
}

function quotedName(): string {
  return `'${RESULTS_SHEET}'`;
}

/** Reads `a1` of the results sheet; null when there is no such sheet (never written, or deleted by a user). */
function readA1(ss: Spreadsheet, a1: string): unknown[][] | null {
  let range: GoogleAppsScript.Spreadsheet.Range;
  try {
    range = ss.getRange(`${quotedName()}!${a1}`);
  } catch {
    return null;
  }
  return range.getValues();
}

/** The results (hash -> encoded) of these hashes found in the sheet. Reads their bucket rows and the log. */
export function readHashes(hashes: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const ss = activeSpreadsheet();
  if (!ss || hashes.length === 0) return found;
  const buckets = [...new Set(hashes.map(bucketOf))];
  const all = new Map<string, string>();
  const log = readA1(ss, `A${LOG_FIRST_ROW}:B${LOG_FIRST_ROW + LOG_ROWS - 1}`);
  if (!log) return found;
  if (buckets.length > READ_ALL_BUCKETS_ABOVE) {
    for (const row of readA1(ss, `${FIRST_BUCKET_ROW}:${FIRST_BUCKET_ROW + BUCKETS - 1}`) ?? [])
      parseBucketRow(row, all);
  } else {
    for (const bucket of buckets) {
      const row = bucketRow(bucket);
      for (const cells of readA1(ss, `${row}:${row}`) ?? []) parseBucketRow(cells, all);
    }
  }
  parseLogRows(log, all);
  for (const hash of hashes) {
    const encoded = all.get(hash);
    if (encoded !== undefined) found.set(hash, encoded);
  }
  return found;
}

/** Every result in the sheet (hash -> encoded), in one read. */
export function readAll(): Map<string, string> {
  const all = new Map<string, string>();
  const ss = activeSpreadsheet();
  const rows = ss ? readA1(ss, `${FIRST_BUCKET_ROW}:${TABLE_ROWS}`) : null;
  if (!rows) return all;
  rows.slice(0, BUCKETS).forEach((row) => {
    parseBucketRow(row, all);
  });
  parseLogRows(rows.slice(BUCKETS), all);
  return all;
}

/**
 * Creates the hidden sheet: a title row, the bucket rows and the log's rows, two plain-text columns (a result
 * must never be read as a number or a formula). Insert keeps the user's active sheet active (Apps Script makes
 * an inserted sheet the active one, apps-script/reference/spreadsheet/spreadsheet#insertsheetsheetname).
 */
function createSheet(ss: Spreadsheet): Sheet {
  const active = ss.getActiveSheet();
  const sheet = ss.insertSheet(RESULTS_SHEET);
  if (active) ss.setActiveSheet(active);
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
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const sheet = ss.getSheetByName(RESULTS_SHEET) ?? createSheet(ss);
  const logLength = Math.max(0, sheet.getLastRow() - (LOG_FIRST_ROW - 1));
  if (logLength + added.size <= LOG_COMPACT_AT) {
    const rows = [...added].map(([hash, encoded]) => [hash, encoded]);
    sheet.getRange(LOG_FIRST_ROW + logLength, 1, rows.length, 2).setValues(rows);
    return;
  }
  const width = sheet.getMaxColumns();
  const table = sheet.getRange(FIRST_BUCKET_ROW, 1, TABLE_ROWS - 1, width).getValues();
  const merged = parseLogRows(table.slice(BUCKETS));
  for (const [hash, encoded] of added) merged.set(hash, encoded);
  const buckets = mergeIntoBuckets(table.slice(0, BUCKETS), merged);
  const newWidth = buckets[0].length;
  if (newWidth > width) {
    sheet.insertColumnsAfter(width, newWidth - width);
    sheet.getRange(1, width + 1, TABLE_ROWS, newWidth - width).setNumberFormat('@');
  }
  sheet.getRange(FIRST_BUCKET_ROW, 1, BUCKETS, newWidth).setValues(buckets);
  if (logLength > 0) sheet.getRange(LOG_FIRST_ROW, 1, logLength, 2).clearContent();
}
