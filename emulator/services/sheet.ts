/** Sheet: size, structure (rows and columns inserted, deleted, sorted), appendRow. */
import { fail } from '../errors';
import { clearCell, stripSheet, writeValues } from '../model/cells';
import type { SheetD } from '../protocol';
import { checkWrite, type Exec, requireAuth, type ServiceHost, SPREADSHEET_WRITES, sheetOf } from './context';

export function sheet(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  requireAuth(exec, `Sheet.${method}`);
  const { ss, sheet } = sheetOf(host, args[0] as SheetD);
  if (SPREADSHEET_WRITES.has(method)) checkWrite(exec, `Sheet.${method}`);
  const base = { ss: ss.id, sheet: sheet.id };
  const n = (index: number, fallback?: number) => {
    const value = args[index] === undefined || args[index] === null ? fallback : Number(args[index]);
    if (value === undefined || !Number.isInteger(value)) fail(`Invalid argument: ${String(args[index])}`);
    return value;
  };
  switch (method) {
    case 'getName':
      return sheet.name;
    case 'setName':
      sheet.name = String(args[1]);
      return null;
    case 'getIndex':
      return ss.sheets.indexOf(sheet) + 1;
    case 'getRange': {
      if (typeof args[1] === 'string') {
        const { box } = ss.resolve(args[1], sheet);
        return { ...base, ...box };
      }
      const box = { row: n(1), col: n(2), numRows: n(3, 1), numCols: n(4, 1) };
      sheet.check(box);
      return { ...base, ...box };
    }
    case 'getRangeList':
      return (args[1] as string[]).map((a1) => ({ ...base, ...ss.resolve(a1, sheet).box }));
    case 'getDataRange':
      return {
        ...base,
        row: 1,
        col: 1,
        numRows: Math.max(1, sheet.lastRow()),
        numCols: Math.max(1, sheet.lastColumn()),
      };
    case 'getLastRow':
      return sheet.lastRow();
    case 'getLastColumn':
      return sheet.lastColumn();
    case 'getMaxRows':
      return sheet.maxRows;
    case 'getMaxColumns':
      return sheet.maxCols;
    case 'getFrozenRows':
      return sheet.frozenRows;
    case 'setFrozenRows':
      sheet.frozenRows = n(1);
      return null;
    case 'getActiveRange': {
      const active = ss.activeRange;
      return active && active.sheetId === sheet.id ? { ...base, ...stripSheet(active) } : null;
    }
    case 'activate':
      ss.activeSheetId = sheet.id;
      return null;
    case 'sort':
      sheet.sort(n(1), args[2] !== false);
      return null;
    case 'protect':
      // Already protected: the existing protection (apps-script/reference/spreadsheet/sheet#protect()).
      sheet.protection ??= { warningOnly: false, description: '' };
      return base;
    case 'appendRow': {
      const values = args[1] as unknown[];
      const row = sheet.lastRow() + 1;
      if (row > sheet.maxRows) sheet.maxRows = row;
      writeValues(sheet, { row, col: 1, numRows: 1, numCols: values.length }, [values], 'appendRow');
      return null;
    }
    case 'clear':
    case 'clearContents':
      for (let r = 1; r <= sheet.lastRow(); r++)
        for (let c = 1; c <= sheet.maxCols; c++) clearCell(sheet, r, c, method === 'clear');
      return null;
    case 'insertColumnsAfter':
      sheet.insertColumns(n(1) + 1, n(2));
      return null;
    case 'insertColumnAfter':
      sheet.insertColumns(n(1) + 1, 1);
      return null;
    case 'insertColumnsBefore':
    case 'insertColumns':
      sheet.insertColumns(n(1), n(2, 1));
      return null;
    case 'insertColumnBefore':
      sheet.insertColumns(n(1), 1);
      return null;
    case 'insertRowsAfter':
      sheet.insertRows(n(1) + 1, n(2), ss.sheets);
      return null;
    case 'insertRowAfter':
      sheet.insertRows(n(1) + 1, 1, ss.sheets);
      return null;
    case 'insertRowsBefore':
    case 'insertRows':
      sheet.insertRows(n(1), n(2, 1), ss.sheets);
      return null;
    case 'insertRowBefore':
      sheet.insertRows(n(1), 1, ss.sheets);
      return null;
    case 'deleteRows':
      sheet.deleteRows(n(1), n(2), ss.sheets);
      return null;
    case 'deleteRow':
      sheet.deleteRows(n(1), 1, ss.sheets);
      return null;
    case 'deleteColumns':
      sheet.deleteColumns(n(1), n(2));
      return null;
    case 'deleteColumn':
      sheet.deleteColumns(n(1), 1);
      return null;
    case 'isSheetHidden':
      return sheet.hidden;
    case 'hideSheet':
    case 'showSheet':
      if (exec.kind === 'custom') fail(`You do not have permission to call ${method}`);
      sheet.hidden = method === 'hideSheet';
      return null;
    default:
      // Layout only (column widths): no effect on values.
      if (exec.kind === 'custom') fail(`You do not have permission to call ${method}`);
      return null;
  }
}

/** Protection of a sheet (Sheet.protect()): its description and whether it only warns. */
export function protection(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  const { sheet } = sheetOf(host, args[0] as SheetD);
  if (method !== 'isWarningOnly' && method !== 'getDescription') checkWrite(exec, `Protection.${method}`);
  const current = sheet.protection;
  if (!current) return fail('This protection was removed.');
  switch (method) {
    case 'isWarningOnly':
      return current.warningOnly;
    case 'getDescription':
      return current.description;
    case 'setWarningOnly':
      if (typeof args[1] !== 'boolean') fail(`Invalid argument: ${String(args[1])}`);
      current.warningOnly = args[1];
      return null;
    case 'setDescription':
      current.description = String(args[1]);
      return null;
    case 'remove':
      sheet.protection = undefined;
      return null;
    default:
      return fail(`Unknown method Protection.${method}`);
  }
}
