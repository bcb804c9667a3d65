/** A sheet by name, as the store's hidden sheets read and write it. */
import type { HiddenSheet, HiddenSheetRows, SheetLayout } from '../core/ports';
import { activeSpreadsheet, sheetPort } from './sheets';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** insertSheet activates the sheet (apps-script/reference/spreadsheet/spreadsheet#insertsheetsheetname). */
export function insertWithLayout(ss: Spreadsheet, name: string, layout: SheetLayout): Sheet {
  const user = ss.getActiveSheet();
  const sheet = ss.insertSheet(name);
  ss.setActiveSheet(user);
  const rows = sheet.getMaxRows();
  if (rows < layout.rows) sheet.insertRowsAfter(rows, layout.rows - rows);
  const columns = sheet.getMaxColumns();
  if (columns > layout.columns) sheet.deleteColumns(layout.columns + 1, columns - layout.columns);
  sheet.getRange(1, 1, Math.max(rows, layout.rows), layout.columns).setNumberFormat('@');
  if (layout.title !== undefined) sheet.getRange(1, 1).setValue(layout.title);
  if (layout.header) sheet.getRange(1, 1, 1, layout.header.length).setValues([layout.header]);
  return sheet;
}

function rowsOf(sheet: Sheet, layout: SheetLayout): HiddenSheetRows {
  const { lastRow, maxRows, maxColumns, values, write, clear } = sheetPort(sheet);
  return {
    lastRow,
    maxRows,
    maxColumns,
    values,
    write,
    clear,
    addRows: (after, count) => {
      sheet.insertRowsAfter(after, count);
      sheet.getRange(after + 1, 1, count, layout.columns).setNumberFormat('@');
    },
    addColumns: (after, count) => {
      sheet.insertColumnsAfter(after, count);
      sheet.getRange(1, after + 1, layout.rows, count).setNumberFormat('@');
    },
  };
}

/** Warning only: every editor's execution still writes it (apps-script/reference/spreadsheet/protection). */
function guard(sheet: Sheet, description: string): void {
  try {
    sheet.protect().setDescription(description).setWarningOnly(true);
  } catch {
    // The warning is a courtesy to people: a refusal must not stop keeping what was paid for.
  }
}

export function hiddenSheet(layout: SheetLayout): HiddenSheet {
  return {
    reader: () => {
      const ss = SpreadsheetApp.getActiveSpreadsheet();
      return (a1) => {
        try {
          return ss?.getRange(`'${layout.name}'!${a1}`).getValues() ?? null;
        } catch {
          return null;
        }
      };
    },
    find: () => {
      const sheet = activeSpreadsheet().getSheetByName(layout.name);
      return sheet && rowsOf(sheet, layout);
    },
    findOrCreate: () => {
      const ss = activeSpreadsheet();
      let sheet = ss.getSheetByName(layout.name);
      if (!sheet) {
        sheet = insertWithLayout(ss, layout.name, layout);
        sheet.hideSheet();
        if (layout.guard !== undefined) guard(sheet, layout.guard);
      }
      return rowsOf(sheet, layout);
    },
  };
}
