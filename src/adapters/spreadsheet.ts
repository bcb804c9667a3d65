/** SpreadsheetApp: the spreadsheet of this execution, its active sheet and selection. */

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

/**
 * The execution's spreadsheet as first asked for: it does not change during an execution, and each execution starts
 * with fresh globals (apps-script/guides/sheets/functions), so a hold of the lock asks Apps Script once, not for
 * each sheet it reads or writes.
 */
let thisExecutions: Spreadsheet | undefined;

export function activeSpreadsheet(): Spreadsheet {
  thisExecutions ??= SpreadsheetApp.getActiveSpreadsheet() ?? undefined;
  return thisExecutions ?? SpreadsheetApp.getActiveSpreadsheet();
}

/** The spreadsheet of this execution, or null when it has none or cannot open it. */
export function activeSpreadsheetOrNull(): Spreadsheet | null {
  try {
    return activeSpreadsheet();
  } catch {
    return null;
  }
}

/** The selection (with several ranges selected, the last one selected), or null. */
export function activeRange(): GoogleAppsScript.Spreadsheet.Range | null {
  return SpreadsheetApp.getActiveRange();
}

export function activeSheet(): GoogleAppsScript.Spreadsheet.Sheet {
  return SpreadsheetApp.getActiveSheet();
}
