/** Range and RangeList: each holds its descriptor; reads and writes are answered by the host (services/range.ts). */
import { columnName } from '../model/a1';
import type { RangeD } from '../protocol';
import { call, count, delegate, describeArgs, type Exportable, fail } from './core';
import { Sheet } from './spreadsheet';

export class Range implements Exportable {
  constructor(readonly _d: RangeD) {}
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  _call(method: string, ...args: unknown[]): any {
    return call(`Range.${method}`, [this._d, ...args]);
  }
  _export(): unknown {
    return { type: 'Range', a1: this.getA1Notation() };
  }
  setValues(values: unknown): this {
    if (!Array.isArray(values) || !values.every((row) => Array.isArray(row))) {
      fail(
        `The parameters (${describeArgs([values])}) don't match the method signature for SpreadsheetApp.Range.setValues.`,
      );
    }
    this._call('setValues', values);
    return this;
  }
  offset(rowOffset: number, columnOffset: number, numRows?: number, numColumns?: number): Range {
    return new Range(this._call('offset', rowOffset, columnOffset, numRows, numColumns));
  }
  getCell(row: number, column: number): Range {
    count('Range.getCell');
    const d = this._d;
    if (row < 1 || column < 1 || row > d.numRows || column > d.numCols) fail('Cell reference out of range');
    return new Range({ ...d, row: d.row + row - 1, col: d.col + column - 1, numRows: 1, numCols: 1 });
  }
  getRow(): number {
    count('Range.getRow');
    return this._d.row;
  }
  getRowIndex(): number {
    count('Range.getRowIndex');
    return this._d.row;
  }
  getColumn(): number {
    count('Range.getColumn');
    return this._d.col;
  }
  getColumnIndex(): number {
    count('Range.getColumnIndex');
    return this._d.col;
  }
  getNumRows(): number {
    count('Range.getNumRows');
    return this._d.numRows;
  }
  getNumColumns(): number {
    count('Range.getNumColumns');
    return this._d.numCols;
  }
  getLastRow(): number {
    count('Range.getLastRow');
    return this._d.row + this._d.numRows - 1;
  }
  getLastColumn(): number {
    count('Range.getLastColumn');
    return this._d.col + this._d.numCols - 1;
  }
  getHeight(): number {
    return this.getNumRows();
  }
  getWidth(): number {
    return this.getNumColumns();
  }
  getA1Notation(): string {
    count('Range.getA1Notation');
    const d = this._d;
    const start = `${columnName(d.col)}${d.row}`;
    if (d.numRows === 1 && d.numCols === 1) return start;
    return `${start}:${columnName(d.col + d.numCols - 1)}${d.row + d.numRows - 1}`;
  }
  getSheet(): Sheet {
    count('Range.getSheet');
    return new Sheet({ ss: this._d.ss, sheet: this._d.sheet });
  }
  getGridId(): number {
    count('Range.getGridId');
    return this._d.sheet;
  }
  toString(): string {
    return 'Range';
  }
}

delegate(
  Range,
  [
    'getValues',
    'getValue',
    'getDisplayValues',
    'getDisplayValue',
    'getFormulas',
    'getFormula',
    'getNumberFormats',
    'getNumberFormat',
    'getNotes',
    'getNote',
    'isBlank',
  ],
  [
    'clearContent',
    'clear',
    'clearFormat',
    'activate',
    'setValue',
    'setFormulas',
    'setFormula',
    'setNumberFormat',
    'setNumberFormats',
    'setNotes',
    'setNote',
    // Formatting: no visible effect in the emulator, but still writes (refused in custom functions).
    'setBackground',
    'setFontWeight',
    'setFontColor',
    'setFontStyle',
    'setFontSize',
    'setFontFamily',
    'setHorizontalAlignment',
    'setVerticalAlignment',
    'setWrap',
    'setWrapStrategy',
    'setBorder',
    'setDataValidation',
    'setTextStyle',
  ],
);

export class RangeList {
  constructor(readonly _ranges: RangeD[]) {}
  _call(method: string, ...args: unknown[]): unknown {
    return call(`RangeList.${method}`, [this._ranges, ...args]);
  }
  getRanges(): Range[] {
    count('RangeList.getRanges');
    return this._ranges.map((d) => new Range(d));
  }
}

delegate(
  RangeList,
  [],
  ['clearContent', 'clear', 'activate', 'setNumberFormat', 'setValue', 'setFontWeight', 'setBackground'],
);
