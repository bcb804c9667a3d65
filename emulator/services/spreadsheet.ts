/** SpreadsheetApp and Spreadsheet: the active document, its sheets and selection, openById. */
import { fail } from '../errors';
import { requireScope } from '../host/manifest';
import type { SpreadsheetModel } from '../model/spreadsheet';
import type { RangeD, SheetD } from '../protocol';
import { checkWrite, type Exec, requireAuth, type ServiceHost, SPREADSHEET_WRITES } from './context';

export function spreadsheetApp(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  if (method === 'getUi') {
    if (!exec.ui) fail('Cannot call SpreadsheetApp.getUi() from this context.');
    return null;
  }
  requireAuth(exec, `SpreadsheetApp.${method}`);
  if (method === 'flush') return null;
  if (method === 'openById') {
    // Custom functions: "Cannot open other spreadsheets (SpreadsheetApp.openById() or openByUrl())".
    if (exec.kind === 'custom') fail('You do not have permission to call SpreadsheetApp.openById.');
    requireAuth(exec, 'SpreadsheetApp.openById');
    // Another spreadsheet than the current one: spreadsheets.currentonly does not cover it
    // (https://developers.google.com/apps-script/reference/spreadsheet/spreadsheet-app#openbyidid).
    requireScope(host.manifest, 'SpreadsheetApp.openById', ['spreadsheets']);
    const id = String(args[0]);
    if (!host.hasSpreadsheet(id))
      fail(`Unexpected error while getting the method or property openById on object SpreadsheetApp.`);
    return { ss: id };
  }
  if (!exec.spreadsheetId) return null;
  const ss = host.spreadsheet(exec.spreadsheetId);
  switch (method) {
    case 'getActiveSpreadsheet':
      return { ss: ss.id };
    case 'getActiveSheet':
      return { ss: ss.id, sheet: ss.activeSheet().id };
    case 'getActiveRange':
      return activeRangeD(ss);
    case 'getCurrentCell': {
      const d = activeRangeD(ss);
      return d ? { ...d, numRows: 1, numCols: 1 } : null;
    }
    case 'getActiveRangeList':
      return activeRangeListD(ss);
    default:
      return fail(`Unknown method SpreadsheetApp.${method}`);
  }
}

export function activeRangeD(ss: SpreadsheetModel): RangeD | null {
  // Custom functions see no selection in Sheets either; a null active range is what a script must handle.
  const active = ss.activeRange;
  if (!active) return { ss: ss.id, sheet: ss.activeSheet().id, row: 1, col: 1, numRows: 1, numCols: 1 };
  return {
    ss: ss.id,
    sheet: active.sheetId,
    row: active.row,
    col: active.col,
    numRows: active.numRows,
    numCols: active.numCols,
  };
}

/** Every selected range (several after a Ctrl-click), the active one last. */
export function activeRangeListD(ss: SpreadsheetModel): RangeD[] {
  if (!ss.activeRanges) {
    const active = activeRangeD(ss);
    return active ? [active] : [];
  }
  return ss.activeRanges.map((range) => ({
    ss: ss.id,
    sheet: range.sheetId,
    row: range.row,
    col: range.col,
    numRows: range.numRows,
    numCols: range.numCols,
  }));
}

export function spreadsheet(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  requireAuth(exec, `Spreadsheet.${method}`);
  const d = args[0] as { ss: string };
  const ss = host.spreadsheet(d.ss);
  if (SPREADSHEET_WRITES.has(method)) checkWrite(exec, `Spreadsheet.${method}`);
  switch (method) {
    case 'getName':
      return ss.name;
    case 'getSheets':
      return ss.sheets.map((sheet) => ({ ss: ss.id, sheet: sheet.id }));
    case 'getNumSheets':
      return ss.sheets.length;
    case 'getSheetByName': {
      const sheet = ss.sheetByName(String(args[1]));
      return sheet ? { ss: ss.id, sheet: sheet.id } : null;
    }
    case 'getActiveSheet':
      return { ss: ss.id, sheet: ss.activeSheet().id };
    case 'setActiveSheet':
      ss.activeSheetId = (args[1] as SheetD).sheet;
      return null;
    case 'getActiveRange':
      return activeRangeD(ss);
    case 'getActiveRangeList':
      return activeRangeListD(ss);
    case 'getActiveCell': {
      const active = activeRangeD(ss);
      return active ? { ...active, numRows: 1, numCols: 1 } : null;
    }
    case 'getRange': {
      const { sheet, box } = ss.resolve(String(args[1]));
      return { ss: ss.id, sheet: sheet.id, ...box };
    }
    case 'getRangeList':
      return (args[1] as string[]).map((a1) => {
        const { sheet, box } = ss.resolve(String(a1));
        return { ss: ss.id, sheet: sheet.id, ...box };
      });
    case 'insertSheet': {
      const sheet = ss.addSheet(String(args[1] ?? `Sheet${ss.sheets.length + 1}`));
      // "The new sheet becomes the active sheet" (apps-script/reference/spreadsheet/spreadsheet#insertsheetsheetname).
      ss.activeSheetId = sheet.id;
      return { ss: ss.id, sheet: sheet.id };
    }
    case 'deleteSheet': {
      const sheet = ss.sheetById((args[1] as SheetD).sheet);
      // Sheets keeps at least one sheet in a spreadsheet; the reference
      // (apps-script/reference/spreadsheet/spreadsheet#deletesheetsheet) gives no message for it: the emulator's names the rule.
      if (ss.sheets.length === 1) fail("You can't remove all the sheets in a document.");
      ss.removeSheet(sheet.id);
      return null;
    }
    case 'toast':
      if (exec.kind === 'custom') fail('You do not have permission to call toast');
      host.ui.toasts.push({ message: String(args[1]), title: String(args[2] ?? ''), spreadsheetId: ss.id });
      return null;
    case 'getSpreadsheetTimeZone':
      return ss.timeZone;
    case 'getOwner':
      return ss.owner;
    default:
      return fail(`Unknown method Spreadsheet.${method}`);
  }
}
