/**
 * A sheet of the spreadsheet by name, as the store's hidden sheets (src/store/resultsSheet.ts, creditsLog.ts) read
 * and write it: no layout here but what SheetLayout says.
 */
import type { HiddenSheet, HiddenSheetRows, SheetLayout } from '../store/ports';
import { sheetPort } from './sheets';
import { activeSpreadsheet, activeSpreadsheetOrNull } from './spreadsheet';

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * Inserts a sheet named `name` with `layout`: rows, plain-text columns, its title or header. The person's sheet stays
 * active (Apps Script activates an inserted sheet, apps-script/reference/spreadsheet/spreadsheet#insertsheetsheetname).
 */
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

/**
 * Protects `sheet` with a warning only: a person's edit asks them to confirm, scripts are not stopped, so every
 * editor's execution still writes it (apps-script/reference/spreadsheet/protection#setWarningOnly(Boolean)).
 */
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
      const ss = activeSpreadsheetOrNull();
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
