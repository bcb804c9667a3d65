/**
 * A column of single =FINDEMAIL cells (`=FINDEMAIL(A2)` typed once and dragged down): each cell is its own
 * execution, and Apps Script runs at most 30 at once for one person (apps-script/guides/services/quotas); the rest
 * show Sheets' #ERROR! "too many scripts running simultaneously", so a column of 1,000 needs 33 Refreshes. The
 * custom functions guide's answer is one formula over the range (apps-script/guides/sheets/functions, "Optimizing
 * custom functions": a custom function taking a range and returning a two-dimensional array is one call). Refresh
 * offers it, asked first: the single cells become one range formula in the column's first cell; the inputs are
 * untouched, and results already paid for come back from the store for free.
 */
import type { SheetPort } from '../core/sheet';

/** `=FINDEMAIL(A2)`, `=FINDEMAIL($A$2)`: one cell of the same sheet, no fields. */
const SINGLE_CELL = /^=\s*FINDEMAIL\s*\(\s*\$?([A-Z]{1,3})\$?(\d+)\s*\)\s*$/i;

/** A run of single =FINDEMAIL cells down one column, each reading the same input column `offset` rows away. */
export interface SingleCellColumn {
  column: number;
  first: number;
  last: number;
  input: string;
  offset: number;
}

function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The one range formula that does what the run's cells do. */
export function rangeFormula(run: SingleCellColumn): string {
  return `=FINDEMAIL(${run.input}${run.first + run.offset}:${run.input}${run.last + run.offset})`;
}

/** The run's cells in A1 notation (B2:B1001). */
export function runA1(run: SingleCellColumn): string {
  const letters = columnLetters(run.column);
  return `${letters}${run.first}:${letters}${run.last}`;
}

/**
 * The longest run of single-cell formulas in the sheet's formulas (from A1), or undefined when none is longer
 * than `atLeast`.
 */
export function longestSingleCellColumn(formulas: string[][], atLeast: number): SingleCellColumn | undefined {
  let best: SingleCellColumn | undefined;
  let columns = 0;
  for (const line of formulas) if (line.length > columns) columns = line.length;
  for (let c = 0; c < columns; c++) {
    let run: SingleCellColumn | undefined;
    for (let r = 0; r <= formulas.length; r++) {
      const call = SINGLE_CELL.exec((formulas[r]?.[c] ?? '').trim());
      const row = r + 1;
      const input = call?.[1].toUpperCase();
      const offset = call ? Number(call[2]) - row : 0;
      if (call && run && run.input === input && run.offset === offset && run.last === row - 1) {
        run.last = row;
        continue;
      }
      if (run && run.last - run.first + 1 > (best ? best.last - best.first + 1 : atLeast)) best = run;
      run = call && input ? { column: c + 1, first: row, last: row, input, offset } : undefined;
    }
  }
  return best;
}

/** The cell of `row` holds the run's single-cell formula: same input column, same offset. */
function holdsRunCell(run: SingleCellColumn, row: number, formula: string): boolean {
  const call = SINGLE_CELL.exec(formula.trim());
  return call !== null && call[1].toUpperCase() === run.input && Number(call[2]) - row === run.offset;
}

/**
 * The run's cells read again: true when each still holds its single-cell formula (no one typed over one, sorted
 * or inserted rows since the run was found).
 */
export function runStillThere(sheet: SheetPort, run: SingleCellColumn): boolean {
  const rows = run.last - run.first + 1;
  const formulas = sheet.formulas({ row: run.first, column: run.column, rows, columns: 1 });
  if (formulas.length !== rows) return false;
  for (let r = 0; r < rows; r++) if (!holdsRunCell(run, run.first + r, formulas[r]?.[0] ?? '')) return false;
  return true;
}

/**
 * Replaces the run's single cells with one range formula in its first cell (the cells below are left empty for its
 * results). The input column is not touched.
 */
export function replaceWithRange(sheet: SheetPort, run: SingleCellColumn): string {
  const formula = rangeFormula(run);
  sheet.clear({ row: run.first, column: run.column, rows: run.last - run.first + 1, columns: 1 });
  sheet.setFormula(run.first, run.column, formula);
  return formula;
}
