/** The credits log's hidden sheet, and the visible sheets an export writes. */
import { EXPORT_COLUMNS, EXPORT_CREDITS_COLUMN, EXPORT_HEADER, EXPORT_LAYOUT } from '../credits/exportRows';
import { insertWithLayout } from './hiddenSheet';

/** Named `name`, or `name (2)`… when taken; the person's sheet stays active. */
export function createExportSheet(name: string): string {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const taken = new Set(ss.getSheets().map((sheet) => sheet.getName().toLowerCase()));
  let chosen = name;
  for (let n = 2; taken.has(chosen.toLowerCase()); n++) chosen = `${name} (${n})`;
  const sheet = insertWithLayout(ss, chosen, EXPORT_LAYOUT);
  sheet.setFrozenRows(1);
  sheet.getRange(2, EXPORT_CREDITS_COLUMN, sheet.getMaxRows() - 1, 1).setNumberFormat('0');
  return chosen;
}

export function writeExportRows(sheetName: string, first: number, rows: unknown[][]): boolean {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(sheetName);
  if (!sheet) return false;
  // A name from the sidebar never overwrites other cells.
  const header = sheet.getRange(1, 1, 1, EXPORT_COLUMNS).getValues()[0];
  if (header.join('\t') !== EXPORT_HEADER.join('\t')) return false;
  if (rows.length === 0) return true;
  const maxRows = sheet.getMaxRows();
  const last = first + rows.length - 1;
  if (last > maxRows) {
    sheet.insertRowsAfter(maxRows, last - maxRows);
    sheet.getRange(maxRows + 1, 1, last - maxRows, EXPORT_COLUMNS).setNumberFormat('@');
    sheet.getRange(maxRows + 1, EXPORT_CREDITS_COLUMN, last - maxRows, 1).setNumberFormat('0');
  }
  sheet.getRange(first, 1, rows.length, EXPORT_COLUMNS).setValues(rows);
  return true;
}
