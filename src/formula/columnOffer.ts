/**
 * A column of single =FINDEMAIL cells: Apps Script runs 30 at once for one person (apps-script/guides/services/quotas),
 * so one range formula replaces them (apps-script/guides/sheets/functions, "Optimizing custom functions").
 */
import { columnLetters } from '../core/a1';
import type { CellBlock, SheetPort } from '../core/sheet';

/** `=FINDEMAIL(A2)`, `=FINDEMAIL($A$2)` */
const SINGLE_CELL = /^=\s*FINDEMAIL\s*\(\s*\$?([A-Z]{1,3})\$?(\d+)\s*\)\s*$/i;

/** Single =FINDEMAIL cells down one column, each reading the input column `offset` rows away. */
export interface SingleCellColumn {
  column: number;
  first: number;
  last: number;
  input: string;
  offset: number;
}

export function rangeFormula(run: SingleCellColumn): string {
  return `=FINDEMAIL(${run.input}${run.first + run.offset}:${run.input}${run.last + run.offset})`;
}

export function runA1(run: SingleCellColumn): string {
  const letters = columnLetters(run.column);
  return `${letters}${run.first}:${letters}${run.last}`;
}

export function runBlock(run: SingleCellColumn): CellBlock {
  return { row: run.first, column: run.column, rows: run.last - run.first + 1, columns: 1 };
}

function singleCall(formula: string, row: number): { input: string; offset: number } | undefined {
  const call = SINGLE_CELL.exec(formula.trim());
  return call ? { input: call[1].toUpperCase(), offset: Number(call[2]) - row } : undefined;
}

/** `formulas` from A1. */
export function longestSingleCellColumn(formulas: string[][], atLeast: number): SingleCellColumn | undefined {
  let best: SingleCellColumn | undefined;
  let columns = 0;
  for (const line of formulas) if (line.length > columns) columns = line.length;
  for (let c = 0; c < columns; c++) {
    let run: SingleCellColumn | undefined;
    for (let r = 0; r <= formulas.length; r++) {
      const row = r + 1;
      const call = singleCall(formulas[r]?.[c] ?? '', row);
      if (call && run && run.input === call.input && run.offset === call.offset && run.last === row - 1) {
        run.last = row;
        continue;
      }
      if (run && run.last - run.first + 1 > (best ? best.last - best.first + 1 : atLeast)) best = run;
      run = call && { column: c + 1, first: row, last: row, ...call };
    }
  }
  return best;
}

export function runStillThere(sheet: SheetPort, run: SingleCellColumn): boolean {
  const block = runBlock(run);
  const formulas = sheet.formulas(block);
  if (formulas.length !== block.rows) return false;
  for (let r = 0; r < block.rows; r++) {
    const call = singleCall(formulas[r]?.[0] ?? '', run.first + r);
    if (call?.input !== run.input || call.offset !== run.offset) return false;
  }
  return true;
}

export function replaceWithRange(sheet: SheetPort, run: SingleCellColumn): string {
  const formula = rangeFormula(run);
  sheet.clear(runBlock(run));
  sheet.setFormula(run.first, run.column, formula);
  return formula;
}
