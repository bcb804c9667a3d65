/**
 * A column of single =FINDEMAIL cells, over test/support/platform.ts: found on a sheet of 200,000 rows without
 * exceeding the call stack; the sidebar's look bounded on a big sheet; and the replacement, asked first, leaves the
 * cells alone when someone changed them while the question was open.
 */
import type { SpreadsheetPort } from '../../src/core/sheet';
import { longestSingleCellColumn } from '../../src/formula/columnOffer';
import { replaceSingleCells, singleCellColumnState } from '../../src/formula/refresh';
import { MemorySheet, testPlatform } from '../support/platform';

/** Column A the profiles (rows 2..rows), column B `=FINDEMAIL(A<row>)` beside each. */
function draggedColumn(rows: number): MemorySheet {
  const lines: unknown[][] = [['Profile', 'Email']];
  for (let row = 2; row <= rows; row++)
    lines.push([`https://www.linkedin.com/in/p-${row}`, `=FINDEMAIL(A${row})`]);
  return new MemorySheet(lines, { columns: 2 });
}

function onSheet(sheet: MemorySheet, confirm: (message: string) => boolean = () => true) {
  const spreadsheet: SpreadsheetPort = {
    id: () => 'spreadsheet-1',
    sheetById: (id) => (id === sheet.id ? sheet : undefined),
    sheetByName: (name) => (name === sheet.name() ? sheet : undefined),
    selection: () => null,
    activeSheet: () => sheet,
    flush: () => {},
  };
  return testPlatform({
    spreadsheet: () => spreadsheet,
    ui: { showSidebar: () => undefined, showAlert: () => undefined, confirm },
  });
}

describe('a column of single =FINDEMAIL cells', () => {
  it('is found among 200,000 rows of formulas (no argument per row)', () => {
    const sheet = draggedColumn(200_001);
    const formulas = sheet.formulas({ row: 1, column: 1, rows: 200_001, columns: 2 });
    expect(longestSingleCellColumn(formulas, 30)).toEqual({
      column: 2,
      first: 2,
      last: 200_001,
      input: 'A',
      offset: 0,
    });
  });

  it("the sidebar's state of a sheet of 200,000 rows reads no formulas; a small sheet's is offered", () => {
    const big = draggedColumn(200_001);
    expect(singleCellColumnState(onSheet(big))).toBeUndefined();
    expect(big.reads).toBe(0);

    // Sheets shows nothing for a formula not yet evaluated here: each cell of the run counts as unfinished.
    class Unfinished extends MemorySheet {
      override values(block: Parameters<MemorySheet['values']>[0]): unknown[][] {
        return super.values(block).map((line) => line.map((value) => (value === '' ? '#ERROR!' : value)));
      }
    }
    const small = new Unfinished(draggedColumn(101).rows, { columns: 2 });
    expect(singleCellColumnState(onSheet(small))).toMatchObject({
      range: 'B2:B101',
      cells: 100,
      unfinished: 100,
    });
  });

  it('is replaced when it is unchanged after the question', () => {
    const sheet = draggedColumn(101);
    const message = replaceSingleCells(onSheet(sheet));
    expect(message).toMatch(/^Replaced the 100 single =FINDEMAIL cells of B2:B101/);
    expect(sheet.rows[1][1]).toBe('=FINDEMAIL(A2:A101)');
    expect(sheet.rows.slice(2).map((line) => line[1])).toEqual(Array(99).fill(''));
  });

  it.each([
    [
      'a collaborator typed in a cell of the run',
      (sheet: MemorySheet) => {
        sheet.rows[49][1] = 'typed by hand';
      },
    ],
    [
      'a collaborator inserted a row',
      (sheet: MemorySheet) => {
        sheet.rows.splice(30, 0, ['https://www.linkedin.com/in/inserted', 'kept']);
      },
    ],
    [
      'a collaborator sorted the rows',
      (sheet: MemorySheet) => {
        const body = sheet.rows.splice(1);
        sheet.rows.push(...body.reverse());
      },
    ],
  ])('is left alone when %s while the question was open', (_what, edit) => {
    const sheet = draggedColumn(101);
    let after: unknown[][] = [];
    const message = replaceSingleCells(
      onSheet(sheet, () => {
        edit(sheet);
        after = sheet.rows.map((line) => [...line]);
        return true;
      }),
    );
    expect(message).toBe(
      'Nothing changed: B2:B101 changed while the question was open (someone edited, sorted or inserted rows). Use Replace with one range formula in the Settings tab again to be asked about the column as it is now.',
    );
    expect(sheet.rows).toEqual(after);
  });
});
