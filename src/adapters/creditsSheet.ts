/**
 * The hidden credits sheet (layout: src/store/credits.ts): appended to holding the document lock, read in one
 * getValues.
 */
import { CREDITS_SHEET } from '../core/propertyNames';
import { CREDITS_COLUMNS, CREDITS_FIRST_ROW, CREDITS_HEADER } from '../store/credits';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Rows added at once when the sheet is full: fewer insertRowsAfter calls over a long log. */
const GROW_ROWS = 2000;

/**
 * Creates the hidden sheet: the header, plain-text columns (a profile or a time must never be read as a number or
 * a formula). The user's sheet stays active (Apps Script activates an inserted sheet,
 * apps-script/reference/spreadsheet/spreadsheet#insertsheetsheetname).
 */
function createSheet(ss: Spreadsheet): Sheet {
  const sheet = insertLogLayout(ss, CREDITS_SHEET);
  sheet.hideSheet();
  return sheet;
}

/** A new sheet of the log's columns, plain text, with the header; the person's sheet stays active. */
function insertLogLayout(ss: Spreadsheet, name: string): Sheet {
  const user = ss.getActiveSheet();
  const sheet = ss.insertSheet(name);
  ss.setActiveSheet(user);
  const columns = sheet.getMaxColumns();
  if (columns > CREDITS_COLUMNS) sheet.deleteColumns(CREDITS_COLUMNS + 1, columns - CREDITS_COLUMNS);
  sheet.getRange(1, 1, sheet.getMaxRows(), CREDITS_COLUMNS).setNumberFormat('@');
  sheet.getRange(1, 1, 1, CREDITS_COLUMNS).setValues([CREDITS_HEADER]);
  return sheet;
}

/**
 * The log sheet and its row count as this execution last saw them: a batch's append then costs its last row and
 * one write. The row count only grows (the add-on inserts rows, never deletes them): a stale one is read again
 * before rows are inserted.
 */
let known: { sheet: Sheet; maxRows: number } | null = null;

function append(rows: string[][]): void {
  if (!known) {
    const ss = SpreadsheetApp.getActiveSpreadsheet();
    const sheet = ss.getSheetByName(CREDITS_SHEET) ?? createSheet(ss);
    known = { sheet, maxRows: sheet.getMaxRows() };
  }
  const { sheet } = known;
  const first = Math.max(CREDITS_FIRST_ROW, sheet.getLastRow() + 1);
  const last = first + rows.length - 1;
  // Rows go in at the sheet's end only: read its size again first (another execution may have grown it).
  if (last > known.maxRows) known.maxRows = sheet.getMaxRows();
  const { maxRows } = known;
  if (last > maxRows) {
    const added = last - maxRows + GROW_ROWS;
    sheet.insertRowsAfter(maxRows, added);
    sheet.getRange(maxRows + 1, 1, added, CREDITS_COLUMNS).setNumberFormat('@');
    known.maxRows = maxRows + added;
  }
  sheet.getRange(first, 1, rows.length, CREDITS_COLUMNS).setValues(rows);
}

/** Appends rows to the log, creating the sheet when missing. Call holding the document lock. */
export function appendCharges(rows: string[][]): void {
  if (rows.length === 0) return;
  try {
    append(rows);
  } catch (error) {
    if (!known) throw error;
    // The sheet this execution knew was deleted or changed meanwhile: look it up (or create it) again, once.
    known = null;
    append(rows);
  }
}

/** Every row of the log below the header, in one read; null when there is no log. */
export function readChargeRows(): unknown[][] | null {
  try {
    const sheet = SpreadsheetApp.getActiveSpreadsheet()?.getSheetByName(CREDITS_SHEET);
    if (!sheet) return null;
    const last = sheet.getLastRow();
    if (last < CREDITS_FIRST_ROW) return [];
    return sheet.getRange(CREDITS_FIRST_ROW, 1, last - CREDITS_FIRST_ROW + 1, CREDITS_COLUMNS).getValues();
  } catch {
    return null;
  }
}

/** The log's last row (its header's row when empty); 0 when there is no log. */
export function chargeLogLastRow(): number {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(CREDITS_SHEET);
  return sheet ? Math.max(1, sheet.getLastRow()) : 0;
}

/** Rows `first`..`last` of the log, in one read. */
export function readChargeRowsBetween(first: number, last: number): unknown[][] {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(CREDITS_SHEET);
  if (!sheet || last < first) return [];
  return sheet.getRange(first, 1, last - first + 1, CREDITS_COLUMNS).getValues();
}

/**
 * A new visible sheet for an export, named `name`, or `name (2)`, `name (3)`… when taken: plain-text columns and the
 * header. The person's sheet stays active. Returns its name.
 */
export function createExportSheet(name: string): string {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const taken = new Set(ss.getSheets().map((sheet) => sheet.getName().toLowerCase()));
  let chosen = name;
  for (let n = 2; taken.has(chosen.toLowerCase()); n++) chosen = `${name} (${n})`;
  insertLogLayout(ss, chosen).setFrozenRows(1);
  return chosen;
}

/** Writes rows into the export sheet from row `first`, growing it when needed; false when it is gone or not one. */
export function writeExportRows(sheetName: string, first: number, rows: unknown[][]): boolean {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(sheetName);
  if (!sheet) return false;
  // Only a sheet this export made (its header) is written: a name from the sidebar never overwrites other cells.
  const header = sheet.getRange(1, 1, 1, CREDITS_COLUMNS).getValues()[0];
  if (header.join('\t') !== CREDITS_HEADER.join('\t')) return false;
  if (rows.length === 0) return true;
  const maxRows = sheet.getMaxRows();
  const last = first + rows.length - 1;
  if (last > maxRows) {
    sheet.insertRowsAfter(maxRows, last - maxRows);
    sheet.getRange(maxRows + 1, 1, last - maxRows, CREDITS_COLUMNS).setNumberFormat('@');
  }
  sheet.getRange(first, 1, rows.length, CREDITS_COLUMNS).setValues(rows);
  return true;
}

/** Column of the outcome in the log (src/store/credits.ts). */
const OUTCOME_COLUMN = 6;

/**
 * The outcomes of the log, in one read of their column; null when there is no log (then nothing is read but the
 * sheet's name).
 */
export function readChargeOutcomes(): unknown[] | null {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(CREDITS_SHEET);
  if (!sheet) return null;
  const last = sheet.getLastRow();
  if (last < CREDITS_FIRST_ROW) return [];
  return sheet
    .getRange(CREDITS_FIRST_ROW, OUTCOME_COLUMN, last - CREDITS_FIRST_ROW + 1, 1)
    .getValues()
    .map((row) => row[0]);
}
