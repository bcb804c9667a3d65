/**
 * The credits log over a plain hidden-sheet port: made once with its layout, grown in steps, its rows read back.
 * The log in Apps Script: ../credits/log.test.ts.
 */

import type { HiddenSheet, HiddenSheetRows } from '../../src/core/ports';
import { type LookupResult, lostAnswer } from '../../src/lookup/result';
import {
  CREDITS_COLUMNS,
  CREDITS_HEADER,
  CREDITS_LOG_LAYOUT,
  chargeRows,
  FORMULAS_CONTEXT,
} from '../../src/store/credits';
import { creditsLogOn } from '../../src/store/creditsLog';

/** A sheet as an array of rows, with its size; `calls` counts what the log asks of it. */
function fakeSheet(rows: number) {
  const cells: unknown[][] = [];
  const sheet = { maxRows: rows, inserted: [] as number[], calls: 0 };
  const rowsPort: HiddenSheetRows = {
    lastRow: () => {
      sheet.calls++;
      return cells.length;
    },
    maxRows: () => {
      sheet.calls++;
      return sheet.maxRows;
    },
    maxColumns: () => CREDITS_COLUMNS,
    values: ({ row, column, rows: count, columns }) =>
      cells.slice(row - 1, row - 1 + count).map((values) => values.slice(column - 1, column - 1 + columns)),
    write: (row, _column, values) => {
      sheet.calls++;
      if (row - 1 + values.length > sheet.maxRows) throw new Error('past the sheet');
      values.forEach((values, index) => {
        cells[row - 1 + index] = values;
      });
    },
    clear: () => undefined,
    addRows: (after, count) => {
      sheet.calls++;
      sheet.inserted.push(count);
      sheet.maxRows = after + count;
    },
    addColumns: () => undefined,
  };
  return { cells, sheet, rowsPort };
}

function hidden(rows = 1000) {
  const made = fakeSheet(rows);
  let exists = false;
  let creations = 0;
  const port: HiddenSheet = {
    reader: () => () => null,
    find: () => (exists ? made.rowsPort : null),
    findOrCreate: () => {
      if (!exists) {
        creations++;
        made.cells.push([...(CREDITS_LOG_LAYOUT.header ?? [])]);
        exists = true;
      }
      return made.rowsPort;
    },
  };
  return { port, made, creations: () => creations };
}

const rowsOf = (keys: string[]) =>
  chargeRows(
    FORMULAS_CONTEXT,
    keys.map((key): [string, LookupResult] => [key, lostAnswer('a connection failed')]),
    Date.UTC(2026, 10, 27),
  );

test('the log is made once with its header; each append costs its last row and one write', () => {
  const { port, made, creations } = hidden();
  const log = creditsLogOn(port);
  expect(log.readRows()).toBeNull();
  log.append(rowsOf(['a', 'b']));
  const before = made.sheet.calls;
  log.append(rowsOf(['c']));
  expect(made.sheet.calls - before).toBe(2);
  expect(creations()).toBe(1);
  expect(made.cells[0]).toEqual(CREDITS_HEADER);
  expect(log.readRows()?.map((row) => row[4])).toEqual(['a', 'b', 'c']);
  expect(log.readOutcomes()).toHaveLength(3);
  expect(log.lastRow()).toBe(4);
});

test('a full sheet grows by a step past what the append needs, not a row at a time', () => {
  const { port, made } = hidden(3);
  const log = creditsLogOn(port);
  log.append(rowsOf(['a', 'b', 'c']));
  expect(made.sheet.inserted).toHaveLength(1);
  expect(made.sheet.maxRows).toBeGreaterThan(100);
  log.append(rowsOf(['d']));
  expect(made.sheet.inserted).toHaveLength(1);
  expect(log.readRows()).toHaveLength(4);
});

test('an append that fails on the sheet it knew looks the sheet up again, once', () => {
  const { port, made } = hidden(1000);
  const log = creditsLogOn(port);
  log.append(rowsOf(['a']));
  // The sheet this execution knew was deleted or changed meanwhile: the first write fails.
  const write = made.rowsPort.write;
  let failures = 0;
  made.rowsPort.write = (row, column, values) => {
    if (failures++ === 0) throw new Error('the sheet changed');
    write(row, column, values);
  };
  log.append(rowsOf(['b']));
  expect(failures).toBe(2);
  expect(log.readRows()?.map((row) => row[4])).toEqual(['a', 'b']);
});
