/** Range and RangeList: values, formulas, formats and notes of cells. */
import { cellName } from '../model/a1';
import { checkDims, clearCell, fill, forBox, mapBox, writeValues } from '../model/cells';
import type { RangeBox, SheetModel, SpreadsheetModel } from '../model/spreadsheet';
import { displayValue } from '../model/values';
import type { RangeD } from '../protocol';
import { checkWrite, type Exec, requireAuth, type ServiceHost, SPREADSHEET_WRITES, sheetOf } from './context';

export function range(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  requireAuth(exec, `Range.${method}`);
  const d = args[0] as RangeD;
  const { ss, sheet } = sheetOf(host, d);
  const box: RangeBox = { row: d.row, col: d.col, numRows: d.numRows, numCols: d.numCols };
  if (SPREADSHEET_WRITES.has(method) || method.startsWith('set')) checkWrite(exec, `Range.${method}`);
  const result = rangeMethod(method, args, box, ss, sheet);
  // Sheets evaluates a formula when it is entered, the same text again too (apps-script/guides/sheets/functions:
  // a custom function runs again when its formula changes): the host evaluates these cells' custom functions.
  if (WRITES_FORMULAS.has(method)) {
    const entered = exec.formulasEntered ?? [];
    forBox(box, (r, c) => {
      if (sheet.get(r, c)?.formula) entered.push({ ss: ss.id, sheet: sheet.name, a1: cellName(r, c) });
    });
    exec.formulasEntered = entered;
  }
  return result;
}

const WRITES_FORMULAS = new Set(['setValues', 'setValue', 'setFormulas', 'setFormula']);

function rangeMethod(
  method: string,
  args: unknown[],
  box: RangeBox,
  ss: SpreadsheetModel,
  sheet: SheetModel,
): unknown {
  const first = () => sheet.get(box.row, box.col);
  switch (method) {
    case 'getValues':
      return mapBox(box, (r, c) => sheet.get(r, c)?.value ?? '');
    case 'getValue':
      return first()?.value ?? '';
    case 'getDisplayValues':
      return mapBox(box, (r, c) => displayValue(sheet.get(r, c), ss.timeZone));
    case 'getDisplayValue':
      return displayValue(first(), ss.timeZone);
    case 'getFormulas':
      return mapBox(box, (r, c) => sheet.get(r, c)?.formula ?? '');
    case 'getFormula':
      return first()?.formula ?? '';
    case 'getNumberFormats':
      return mapBox(box, (r, c) => sheet.get(r, c)?.format ?? '0.###############');
    case 'getNumberFormat':
      return first()?.format ?? '0.###############';
    case 'getNotes':
      return mapBox(box, (r, c) => sheet.get(r, c)?.note ?? '');
    case 'getNote':
      return first()?.note ?? '';
    case 'isBlank':
      return mapBox(box, (r, c) => sheet.hasContent(r, c)).every((row) => row.every((has) => !has));
    case 'setValues':
      writeValues(sheet, box, args[1] as unknown[][], 'setValues');
      return null;
    case 'setValue':
      writeValues(sheet, box, fill(box, args[1]), 'setValue');
      return null;
    case 'setFormulas':
      writeValues(sheet, box, args[1] as unknown[][], 'setFormulas');
      return null;
    case 'setFormula':
      writeValues(sheet, box, fill(box, args[1]), 'setFormula');
      return null;
    case 'setNumberFormat':
      forBox(box, (r, c) => {
        sheet.ensure(r, c).format = String(args[1]);
      });
      return null;
    case 'setNumberFormats':
      checkDims(box, args[1] as unknown[][]);
      forBox(box, (r, c) => {
        sheet.ensure(r, c).format = String((args[1] as unknown[][])[r - box.row][c - box.col]);
      });
      return null;
    case 'setNotes':
      checkDims(box, args[1] as unknown[][]);
      forBox(box, (r, c) => {
        sheet.ensure(r, c).note = String((args[1] as unknown[][])[r - box.row][c - box.col] ?? '');
      });
      return null;
    case 'setNote':
      forBox(box, (r, c) => {
        sheet.ensure(r, c).note = String(args[1] ?? '');
      });
      return null;
    case 'clearContent':
      forBox(box, (r, c) => clearCell(sheet, r, c, false));
      return null;
    case 'clear':
      forBox(box, (r, c) => clearCell(sheet, r, c, true));
      return null;
    case 'clearFormat':
      forBox(box, (r, c) => {
        const cell = sheet.getToChange(r, c);
        if (cell) cell.format = undefined;
      });
      return null;
    case 'activate':
      ss.activeSheetId = sheet.id;
      ss.activeRange = { sheetId: sheet.id, ...box };
      ss.activeRanges = undefined;
      return null;
    case 'offset': {
      const [, rowOffset, colOffset, numRows, numCols] = args as [unknown, number, number, number?, number?];
      const next = {
        row: box.row + rowOffset,
        col: box.col + colOffset,
        numRows: numRows ?? box.numRows,
        numCols: numCols ?? box.numCols,
      };
      sheet.check(next);
      return { ...(args[0] as RangeD), ...next };
    }
    default:
      // Formatting (backgrounds, fonts): no effect on values in the emulator.
      return null;
  }
}

export function rangeList(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  requireAuth(exec, `RangeList.${method}`);
  const ranges = args[0] as RangeD[];
  for (const d of ranges) range(host, exec, method, [d, ...args.slice(1)]);
  return null;
}
