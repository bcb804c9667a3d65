/**
 * "Freeze results": =FINDEMAIL formulas in the selection become the values they show, and nothing else changes —
 * a formula showing an error or still computing stays a formula, the user's other formulas stay, text Sheets would
 * read as something else stays text.
 */
import type { CellBlock, Selection, SpreadsheetPort } from '../../src/core/sheet';
import { freezeResults, resultArea, USES_FINDEMAIL } from '../../src/formula/freeze';
import { MemorySheet, testPlatform } from '../support/platform';

/** A sheet whose formula cells show a result (`shown`, by "row,column"), as getValues reads them in Sheets. */
class ComputedSheet extends MemorySheet {
  readonly shown = new Map<string, unknown>();
  override values(block: CellBlock): unknown[][] {
    return super
      .values(block)
      .map((line, r) =>
        line.map((value, c) => this.shown.get(`${block.row + r},${block.column + c}`) ?? value),
      );
  }
  show(row: number, column: number, values: unknown[][]): void {
    values.forEach((line, r) => {
      line.forEach((value, c) => {
        this.shown.set(`${row + r},${column + c}`, value);
      });
    });
  }
  /** What a cell holds now: a formula's text, or a value written over it. */
  cellAt(row: number, column: number): unknown {
    return this.rows[row - 1]?.[column - 1] ?? '';
  }
}

function world(sheet: ComputedSheet, block: CellBlock | null) {
  const selection: Selection | null = block && {
    sheet,
    block,
    a1: () => 'selection',
    rangeCount: () => 1,
  };
  const spreadsheet = { selection: () => selection } as SpreadsheetPort;
  return testPlatform({ spreadsheet: () => spreadsheet });
}

describe('resultArea', () => {
  test('a call on one cell fills its own cell', () => {
    expect(resultArea('=FINDEMAIL(A2)', 2, 3)).toEqual({ row: 2, column: 3, rows: 1, columns: 1 });
    expect(resultArea('= findemail ( $A$2 )', 7, 3)).toEqual({ row: 7, column: 3, rows: 1, columns: 1 });
  });

  test('a column range spills down one row per cell, in either order', () => {
    expect(resultArea('=FINDEMAIL(A2:A11)', 2, 2)).toEqual({ row: 2, column: 2, rows: 10, columns: 1 });
    expect(resultArea('=FINDEMAIL(A11:A2)', 2, 2)).toMatchObject({ rows: 10 });
  });

  test('fields set the width; without them a row range keeps its own width', () => {
    expect(resultArea('=FINDEMAIL(A2, "email,status,catch_all")', 2, 2)).toMatchObject({
      rows: 1,
      columns: 3,
    });
    expect(resultArea('=FINDEMAIL(A2:A3,"email, ,name")', 2, 2)).toMatchObject({ rows: 2, columns: 2 });
    expect(resultArea('=FINDEMAIL(B2:D2)', 2, 5)).toMatchObject({ rows: 1, columns: 3 });
    expect(resultArea('=FINDEMAIL(A2:AA2)', 2, 30)).toMatchObject({ columns: 27 });
  });

  test('a reference to another sheet, quoted or not, reads the same', () => {
    expect(resultArea("=FINDEMAIL('Leads ''24'!A2:A4)", 1, 1)).toMatchObject({ rows: 3, columns: 1 });
    expect(resultArea('=FINDEMAIL(Leads!$A$2:$A$5)', 1, 1)).toMatchObject({ rows: 4 });
  });

  test('FINDEMAIL inside another function: its own cell when no range is named, unknown when one is', () => {
    expect(resultArea('=IFERROR(FINDEMAIL(A2), "")', 2, 2)).toEqual({
      row: 2,
      column: 2,
      rows: 1,
      columns: 1,
    });
    expect(resultArea('=ARRAYFORMULA(FINDEMAIL(A2:A10))', 2, 2)).toBeUndefined();
  });

  test('USES_FINDEMAIL finds the call in any case, not a longer name', () => {
    expect(USES_FINDEMAIL.test('=iferror(findemail(A2),"")')).toBe(true);
    expect(USES_FINDEMAIL.test('=MYFINDEMAIL(A2)')).toBe(false);
    expect(USES_FINDEMAIL.test('=SUM(A1:A3)')).toBe(false);
  });
});

describe('freezeResults', () => {
  test('no selection: says what to select, changes nothing', () => {
    const sheet = new ComputedSheet([['=FINDEMAIL(A1)']]);
    expect(() => freezeResults(world(sheet, null))).toThrow('Select the cells with =FINDEMAIL formulas');
    expect(sheet.writes).toBe(0);
  });

  test('a selection without =FINDEMAIL: says so, writes nothing', () => {
    const sheet = new ComputedSheet([['https://x', '=SUM(1,2)']]);
    expect(freezeResults(world(sheet, { row: 1, column: 1, rows: 1, columns: 2 }))).toBe(
      'No =FINDEMAIL formulas in the selection.',
    );
    expect(sheet.writes).toBe(0);
  });

  test('a spilled result becomes values, past the selection too; other formulas stay', () => {
    const sheet = new ComputedSheet([
      ['url-1', '=FINDEMAIL(A1:A2, "email,status")', '', '=LEN(A1)'],
      ['url-2', '', '', ''],
    ]);
    sheet.show(1, 2, [
      ['ana@example.com', 'valid'],
      ['', 'NOT_FOUND'],
    ]);
    sheet.show(1, 4, [[5]]);
    const message = freezeResults(world(sheet, { row: 1, column: 2, rows: 1, columns: 1 }));
    expect(message).toBe(
      'Froze 1 =FINDEMAIL formula: the results are now plain values and will not run again.',
    );
    expect(sheet.cellAt(1, 2)).toBe('ana@example.com');
    expect(sheet.cellAt(1, 3)).toBe('valid');
    expect(sheet.cellAt(2, 2)).toBe('');
    expect(sheet.cellAt(2, 3)).toBe('NOT_FOUND');
    expect(sheet.cellAt(1, 4)).toBe('=LEN(A1)');
    expect(sheet.cellAt(1, 1)).toBe('url-1');
  });

  test('a formula showing an error or still computing stays a formula, and the message says why', () => {
    const sheet = new ComputedSheet([
      ['=FINDEMAIL(A9)'],
      ['=FINDEMAIL(A10)'],
      ['=FINDEMAIL(A11)'],
      ['=FINDEMAIL(A12)'],
    ]);
    sheet.show(1, 1, [
      ['#ERROR!'],
      ['ERROR: The service did not answer.'],
      ['Loading...'],
      ['bo@example.com'],
    ]);
    const message = freezeResults(world(sheet, { row: 1, column: 1, rows: 4, columns: 1 }));
    expect(sheet.cellAt(1, 1)).toBe('=FINDEMAIL(A9)');
    expect(sheet.cellAt(2, 1)).toBe('=FINDEMAIL(A10)');
    expect(sheet.cellAt(3, 1)).toBe('=FINDEMAIL(A11)');
    expect(sheet.cellAt(4, 1)).toBe('bo@example.com');
    expect(message).toContain('Froze 1 =FINDEMAIL formula:');
    expect(message).toContain('2 formulas showing an error were left to run again.');
    expect(message).toContain('1 formula still computing (Loading...) was left as a formula');
  });

  test('a range result still computing in any of its cells is kept whole', () => {
    const sheet = new ComputedSheet([['=FINDEMAIL(B1:B2)'], ['']]);
    sheet.show(1, 1, [['ana@example.com'], ['Loading...']]);
    freezeResults(world(sheet, { row: 1, column: 1, rows: 1, columns: 1 }));
    expect(sheet.cellAt(1, 1)).toBe('=FINDEMAIL(B1:B2)');
    expect(sheet.writes).toBe(0);
  });

  test('a value Sheets would read as a formula, a number or a date is formatted as text first, only that cell', () => {
    const sheet = new ComputedSheet([['=FINDEMAIL(B1, "email,note")', '']]);
    sheet.show(1, 1, [['ana@example.com', '=cmd|calc']]);
    freezeResults(world(sheet, { row: 1, column: 1, rows: 1, columns: 1 }));
    expect(sheet.textBlocks).toEqual([{ row: 1, column: 2, rows: 1, columns: 1 }]);
    expect(sheet.cellAt(1, 2)).toBe('=cmd|calc');
  });

  test('adjacent results of the same columns are written with one write', () => {
    const rows = Array.from({ length: 5 }, (_, i) => [`=FINDEMAIL(A${i + 10})`]);
    const sheet = new ComputedSheet(rows);
    sheet.show(
      1,
      1,
      rows.map((_, i) => [`p${i}@example.com`]),
    );
    expect(freezeResults(world(sheet, { row: 1, column: 1, rows: 5, columns: 1 }))).toMatch(/^Froze 5 /);
    expect(sheet.writes).toBe(1);
    expect(rows.map((line) => line[0])).toEqual(rows.map((_, i) => `p${i}@example.com`));
  });

  test('FINDEMAIL over a range inside another function is left, with what to do instead', () => {
    const sheet = new ComputedSheet([['=ARRAYFORMULA(FINDEMAIL(B1:B3))']]);
    const message = freezeResults(world(sheet, { row: 1, column: 1, rows: 1, columns: 1 }));
    expect(message).toBe(
      'No =FINDEMAIL formula was frozen. 1 formula using FINDEMAIL inside other functions over a range was left; copy its results and use Paste special › Values only.',
    );
    expect(sheet.writes).toBe(0);
    expect(sheet.reads).toBe(1);
  });
});
