/** Writing cells as Apps Script does: values parsed as typed, formulas, custom-function results and their spills. */
import { fail } from '../errors';
import { columnName } from './a1';
import { type CellValue, MAX_CELL_CHARS, PLAIN_TEXT, type RangeBox, type SheetModel } from './spreadsheet';
import { parseEntered } from './values';

export function stripSheet(active: { sheetId: number } & RangeBox): RangeBox {
  return { row: active.row, col: active.col, numRows: active.numRows, numCols: active.numCols };
}

export function mapBox<T>(box: RangeBox, read: (row: number, col: number) => T): T[][] {
  const rows: T[][] = [];
  for (let r = 0; r < box.numRows; r++) {
    const line: T[] = [];
    for (let c = 0; c < box.numCols; c++) line.push(read(box.row + r, box.col + c));
    rows.push(line);
  }
  return rows;
}

export function forBox(box: RangeBox, visit: (row: number, col: number) => void): void {
  for (let r = 0; r < box.numRows; r++) for (let c = 0; c < box.numCols; c++) visit(box.row + r, box.col + c);
}

export function fill(box: RangeBox, value: unknown): unknown[][] {
  return mapBox(box, () => value);
}

export function checkDims(box: RangeBox, values: unknown[][]): void {
  if (!Array.isArray(values) || values.length !== box.numRows) {
    fail(
      `The number of rows in the data does not match the number of rows in the range. The data has ${Array.isArray(values) ? values.length : 0} but the range has ${box.numRows}.`,
    );
  }
  for (const row of values) {
    if (!Array.isArray(row) || row.length !== box.numCols) {
      fail(
        `The number of columns in the data does not match the number of columns in the range. The data has ${Array.isArray(row) ? row.length : 0} but the range has ${box.numCols}.`,
      );
    }
  }
}

export function clearCell(sheet: SheetModel, row: number, col: number, formats: boolean): void {
  const cell = sheet.getToChange(row, col);
  if (!cell) return;
  cell.value = '';
  cell.formula = undefined;
  cell.error = undefined;
  cell.spill = undefined;
  cell.spilledFrom = undefined;
  if (formats) {
    cell.format = undefined;
    cell.note = undefined;
  }
}

/**
 * setValues semantics: values are parsed as if typed (Range.setValues behaves like USER_ENTERED), so a string
 * starting with "=" becomes a formula, unless the cell's number format is plain text ("@"), where it stays text.
 * (https://developers.google.com/apps-script/reference/spreadsheet/range#setvaluesvalues; the plain-text rule is
 * Sheets' own: Format › Number › Plain text keeps entries as typed.)
 */
export function writeValues(sheet: SheetModel, box: RangeBox, values: unknown[][], method: string): void {
  checkDims(box, values);
  sheet.check(box);
  forBox(box, (r, c) => {
    const raw = values[r - box.row][c - box.col];
    const cell = sheet.ensure(r, c);
    clearCell(sheet, r, c, false);
    if (raw === null || raw === undefined || raw === '') return;
    if (typeof raw === 'string') {
      if (raw.length > MAX_CELL_CHARS) {
        fail(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`);
      }
      const formula =
        method === 'setFormulas' ||
        method === 'setFormula' ||
        (raw.startsWith('=') && cell.format !== PLAIN_TEXT);
      if (formula && raw.startsWith('=') && raw.length > 1) {
        cell.formula = raw;
        cell.value = '';
        evaluateBuiltIn(cell, raw);
        return;
      }
      const entered = parseEntered(raw, cell.format);
      cell.value = entered.value;
      if (entered.format && !cell.format) cell.format = entered.format;
      return;
    }
    if (typeof raw === 'number' || typeof raw === 'boolean') {
      cell.value = raw;
      return;
    }
    if (raw instanceof Date || Object.prototype.toString.call(raw) === '[object Date]') {
      cell.value = new Date((raw as Date).getTime());
      if (!cell.format) cell.format = 'M/d/yyyy';
      return;
    }
    cell.value = String(raw);
  });
}

/** What a formula cell reads while its custom function computes (Sheets shows the same text). */
export const LOADING = 'Loading...';

export function setLoading(sheet: SheetModel, row: number, col: number): void {
  const cell = sheet.ensure(row, col);
  cell.value = LOADING;
  cell.error = undefined;
}

/**
 * The formulas the emulator evaluates itself when they are entered, besides custom functions: `=NA()`, which
 * gives the `#N/A` error ("NA: Returns the 'value not available' error, #N/A",
 * https://support.google.com/docs/answer/3093359). Others keep an empty value.
 */
function evaluateBuiltIn(cell: { value: CellValue; error?: string }, formula: string): void {
  if (/^=\s*NA\(\s*\)\s*$/i.test(formula)) {
    cell.value = '#N/A';
    cell.error = 'Value not available.';
  }
}

export function setCellError(
  sheet: SheetModel,
  row: number,
  col: number,
  value: '#ERROR!' | '#REF!',
  message: string,
): void {
  clearSpill(sheet, row, col);
  const cell = sheet.ensure(row, col);
  cell.value = value;
  cell.error = message;
}

function clearSpill(sheet: SheetModel, row: number, col: number): void {
  const spill = sheet.get(row, col)?.spill;
  if (!spill) return;
  const cell = sheet.getToChange(row, col);
  for (let r = row; r < row + spill.rows; r++) {
    for (let c = col; c < col + spill.cols; c++) {
      const child = sheet.get(r, c)?.spilledFrom ? sheet.getToChange(r, c) : undefined;
      if (child?.spilledFrom?.row === row && child.spilledFrom.col === col) {
        child.value = '';
        child.spilledFrom = undefined;
      }
    }
  }
  if (cell) cell.spill = undefined;
}

function sheetValue(value: unknown): CellValue {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? value : '#NUM!';
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]')
    return new Date((value as Date).getTime());
  return String(value);
}

/**
 * A custom function's result: a value, or a 2-D array that spills right and down from the formula's cell.
 * A spill that would cover a cell holding data fails with #REF! (Sheets: "Array result was not expanded because it
 * would overwrite data in B3."). Strings are shown as they are: a returned "=…" is text, never a formula.
 */
export function writeResult(sheet: SheetModel, row: number, col: number, value: unknown): void {
  clearSpill(sheet, row, col);
  const cell = sheet.ensure(row, col);
  cell.error = undefined;
  if (!Array.isArray(value)) {
    cell.value = sheetValue(value);
    return;
  }
  const rows = (value as unknown[]).map((line) => (Array.isArray(line) ? line : [line]));
  if (rows.length === 0) {
    cell.value = '';
    return;
  }
  const cols = Math.max(...rows.map((line) => line.length));
  if (row + rows.length - 1 > sheet.maxRows || col + cols - 1 > sheet.maxCols) {
    setCellError(
      sheet,
      row,
      col,
      '#REF!',
      'Array result was not expanded because it would go past the sheet.',
    );
    return;
  }
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < cols; c++) {
      if (r === 0 && c === 0) continue;
      const other = sheet.get(row + r, col + c);
      const ours = other?.spilledFrom?.row === row && other.spilledFrom.col === col;
      if (other && !ours && (other.value !== '' || other.formula !== undefined)) {
        setCellError(
          sheet,
          row,
          col,
          '#REF!',
          `Array result was not expanded because it would overwrite data in ${columnName(col + c)}${row + r}.`,
        );
        return;
      }
    }
  }
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < cols; c++) {
      const target = sheet.ensure(row + r, col + c);
      target.value = sheetValue(rows[r][c]);
      if (r !== 0 || c !== 0) target.spilledFrom = { row, col };
    }
  }
  cell.spill = { rows: rows.length, cols };
}
