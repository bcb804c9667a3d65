/**
 * An execution's view of a spreadsheet while its writes are pending (services/pending.ts) is a copy-on-write copy
 * (SpreadsheetModel.clone): every kind of write changes the copy as it would change the spreadsheet, and never the
 * spreadsheet it was copied from.
 */
import { clearCell, writeResult, writeValues } from '../../emulator/model/cells';
import { SpreadsheetModel } from '../../emulator/model/spreadsheet';

/** A spreadsheet with values, formulas (one pointing at the other sheet), a note, a format and a spill. */
function build(): SpreadsheetModel {
  const ss = new SpreadsheetModel('ss', 'Book', 'owner@example.com', 'Etc/UTC');
  const data = ss.addSheet('Data', 40, 8);
  const other = ss.addSheet('Other', 20, 4);
  const rows = Array.from({ length: 30 }, (_, i) => [`name-${(i * 7) % 30}`, i, `=B${i + 1}*2`]);
  writeValues(data, { row: 1, col: 1, numRows: 30, numCols: 3 }, rows, 'setValues');
  data.ensure(3, 4).note = 'a note';
  data.ensure(4, 4).format = '@';
  writeValues(data, { row: 5, col: 5, numRows: 1, numCols: 1 }, [['=SPILL(A1)']], 'setValues');
  writeResult(data, 5, 5, [
    [1, 2],
    [3, 4],
  ]);
  writeValues(other, { row: 1, col: 1, numRows: 1, numCols: 1 }, [['=Data!B7']], 'setValues');
  return ss;
}

/** Everything a write can change, in a comparable form. */
function snapshot(ss: SpreadsheetModel): unknown {
  return ss.sheets.map((sheet) => ({
    name: sheet.name,
    maxRows: sheet.maxRows,
    maxCols: sheet.maxCols,
    frozenRows: sheet.frozenRows,
    cells: sheet
      .allCells()
      .map(({ row, col, cell }) => [row, col, JSON.parse(JSON.stringify(cell))])
      .filter(
        ([, , cell]) => Object.keys(cell as object).length > 1 || (cell as { value: unknown }).value !== '',
      ),
  }));
}

const WRITES: Record<string, (ss: SpreadsheetModel) => void> = {
  values: (ss) =>
    writeValues(
      ss.sheets[0],
      { row: 2, col: 1, numRows: 2, numCols: 2 },
      [
        ['x', 1],
        ['y', 2],
      ],
      'setValues',
    ),
  notes: (ss) => {
    ss.sheets[0].ensure(3, 4).note = 'changed';
  },
  clear: (ss) => clearCell(ss.sheets[0], 4, 4, true),
  'result over a spill': (ss) => writeResult(ss.sheets[0], 5, 5, 'single'),
  'insert rows': (ss) => ss.sheets[0].insertRows(3, 2, ss.sheets),
  'delete rows': (ss) => ss.sheets[0].deleteRows(2, 4, ss.sheets),
  'insert columns': (ss) => ss.sheets[0].insertColumns(2, 1),
  'delete columns': (ss) => ss.sheets[0].deleteColumns(1, 1),
  sort: (ss) => ss.sheets[0].sort(1, true, 2),
  'frozen rows and a new sheet': (ss) => {
    ss.sheets[0].frozenRows = 1;
    ss.addSheet('Added');
  },
};

describe('a copy-on-write copy of a spreadsheet', () => {
  it.each(Object.keys(WRITES))('changes as the spreadsheet would (%s), the spreadsheet unchanged', (name) => {
    const source = build();
    const before = snapshot(source);
    const copy = source.clone();
    WRITES[name](copy);
    const expected = build();
    WRITES[name](expected);
    expect(snapshot(copy)).toEqual(snapshot(expected));
    expect(snapshot(copy)).not.toEqual(before);
    expect(snapshot(source)).toEqual(before);
  });

  it('holds every write of a sequence, each copy independent of the next', () => {
    const source = build();
    const before = snapshot(source);
    const expected = build();
    for (const name of Object.keys(WRITES)) {
      // As an execution's view is rebuilt at each call: a fresh copy, every write so far replayed.
      const copy = source.clone();
      WRITES[name](expected);
      for (const earlier of Object.keys(WRITES).slice(0, Object.keys(WRITES).indexOf(name) + 1))
        WRITES[earlier](copy);
      expect(snapshot(copy)).toEqual(snapshot(expected));
    }
    expect(snapshot(source)).toEqual(before);
  });
});
