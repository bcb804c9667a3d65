/** Entering =FINDEMAIL formulas again, so that Sheets evaluates them again. */

/**
 * Sheets runs a custom function again only when its formula or an input changes (apps-script/guides/sheets/functions;
 * there is no "recalculate" for custom functions), so each formula is cleared, the change flushed, and the same
 * text entered again: the person's formula stays as they wrote it.
 */
export function enterFormulasAgain(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  cells: Array<{ row: number; col: number; formula: string }>,
): void {
  if (cells.length === 0) return;
  for (const { row, col } of cells) sheet.getRange(row, col).clearContent();
  SpreadsheetApp.flush();
  for (const { row, col, formula } of cells) sheet.getRange(row, col).setFormula(formula);
  SpreadsheetApp.flush();
}
