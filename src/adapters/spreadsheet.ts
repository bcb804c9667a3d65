/** SpreadsheetApp: the spreadsheet of this execution, its active sheet and selection. */

type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

export function activeSpreadsheet(): Spreadsheet {
  return SpreadsheetApp.getActiveSpreadsheet();
}

/** The spreadsheet of this execution, or null when it has none or cannot open it. */
export function activeSpreadsheetOrNull(): Spreadsheet | null {
  try {
    return SpreadsheetApp.getActiveSpreadsheet();
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
