/**
 * The hidden results sheet over a sheet in memory: results appended to the log, found by their bucket rows and the
 * log, the log merged into the buckets when full with nothing lost, and no sheet made by a read.
 */
import { LOG_COMPACT_AT, READ_ALL_BUCKETS_ABOVE } from '../../src/core/limits';
import type { HiddenSheet, HiddenSheetRows } from '../../src/core/ports';
import { resultsSheetOn } from '../../src/store/resultsSheet';
import { bucketOf, FIRST_BUCKET_ROW, hashOf, LOG_FIRST_ROW, TABLE_ROWS } from '../../src/store/table';
import { MemorySheet } from '../support/platform';

function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** A hidden sheet over a MemorySheet, made on the first findOrCreate; `reads` lists the A1 ranges read. */
function hidden() {
  let sheet: MemorySheet | null = null;
  const reads: string[] = [];
  const rowsOf = (s: MemorySheet): HiddenSheetRows =>
    Object.assign(s, {
      addRows: () => undefined,
      addColumns: () => undefined,
    });
  const port: HiddenSheet = {
    reader: () => (a1) => {
      reads.push(a1);
      if (!sheet) return null;
      const whole = /^(\d+):(\d+)$/.exec(a1);
      const cells = /^([A-Z]+)(\d+):([A-Z]+)(\d+)$/.exec(a1);
      const [row, last, column, right] = whole
        ? [Number(whole[1]), Number(whole[2]), 1, sheet.maxColumns()]
        : cells
          ? [Number(cells[2]), Number(cells[4]), columnNumber(cells[1]), columnNumber(cells[3])]
          : [0, -1, 0, -1];
      if (last < row) throw new Error(`The test's reader cannot read ${a1}.`);
      return sheet.values({ row, column, rows: last - row + 1, columns: right - column + 1 });
    },
    find: () => (sheet ? rowsOf(sheet) : null),
    findOrCreate: () => {
      sheet ??= new MemorySheet([], { columns: 2 });
      return rowsOf(sheet);
    },
  };
  return { port, reads, sheet: () => sheet };
}

const results = (from: number, count: number) =>
  new Map(Array.from({ length: count }, (_, i) => [hashOf(`p/${from + i}`), `encoded-${from + i}`]));

test('a read of a spreadsheet without the sheet finds nothing and makes no sheet', () => {
  const h = hidden();
  const store = resultsSheetOn(h.port);
  expect(store.readHashes([hashOf('p/1')]).size).toBe(0);
  expect(store.readAll().results.size).toBe(0);
  expect(h.sheet()).toBeNull();
});

test('no hashes asked: nothing read', () => {
  const h = hidden();
  expect(resultsSheetOn(h.port).readHashes([]).size).toBe(0);
  expect(h.reads).toEqual([]);
});

test('results appended go to the log in one write, and are found by hash and in the whole sheet', () => {
  const h = hidden();
  const store = resultsSheetOn(h.port);
  const added = results(0, 3);
  store.appendResults(added);
  expect(h.sheet()?.writes).toBe(1);
  expect(h.sheet()?.lastRow()).toBe(LOG_FIRST_ROW + 2);
  const [first, , third] = [...added.keys()];
  expect([...store.readHashes([first, third, hashOf('p/none')])]).toEqual([
    [first, 'encoded-0'],
    [third, 'encoded-2'],
  ]);
  expect(store.readAll().results).toEqual(added);
});

test('appending nothing writes nothing and makes no sheet', () => {
  const h = hidden();
  resultsSheetOn(h.port).appendResults(new Map());
  expect(h.sheet()).toBeNull();
});

test('a hash written again: the later result wins', () => {
  const h = hidden();
  const store = resultsSheetOn(h.port);
  const hash = hashOf('p/1');
  store.appendResults(new Map([[hash, 'old']]));
  store.appendResults(new Map([[hash, 'new']]));
  expect(store.readHashes([hash]).get(hash)).toBe('new');
  expect(store.readAll().results.get(hash)).toBe('new');
});

test('a few hashes read their own bucket rows and the log; many read every bucket row at once', () => {
  const h = hidden();
  const store = resultsSheetOn(h.port);
  store.appendResults(results(0, 1));
  h.reads.length = 0;
  const one = hashOf('p/0');
  store.readHashes([one]);
  const row = FIRST_BUCKET_ROW + bucketOf(one);
  expect(h.reads).toEqual([`A${LOG_FIRST_ROW}:B${TABLE_ROWS}`, `${row}:${row}`]);
  h.reads.length = 0;
  store.readHashes([...results(100, READ_ALL_BUCKETS_ABOVE * 4).keys()]);
  expect(h.reads).toEqual([`A${LOG_FIRST_ROW}:B${TABLE_ROWS}`, `${FIRST_BUCKET_ROW}:${LOG_FIRST_ROW - 1}`]);
});

test('when the log would pass its size, it is merged into the buckets and emptied: every result still found', () => {
  const h = hidden();
  const store = resultsSheetOn(h.port);
  const first = results(0, LOG_COMPACT_AT);
  store.appendResults(first);
  expect(h.sheet()?.lastRow()).toBe(LOG_FIRST_ROW + LOG_COMPACT_AT - 1);
  const more = results(LOG_COMPACT_AT, 5);
  store.appendResults(more);
  // The log is empty: the last row with data is a bucket row.
  expect(h.sheet()?.lastRow()).toBeLessThan(LOG_FIRST_ROW);
  const all = new Map([...first, ...more]);
  expect(store.readAll().results).toEqual(all);
  const asked = [...all.keys()].filter((_, i) => i % 97 === 0);
  expect([...store.readHashes(asked).keys()].sort()).toEqual(asked.sort());
  // The next results go to the log again.
  store.appendResults(results(9000, 1));
  expect(h.sheet()?.lastRow()).toBe(LOG_FIRST_ROW);
  expect(store.readAll().results.size).toBe(all.size + 1);
});

test("the log's rows from a row on are read alone, with the log's length; a merge says so and empties the log", () => {
  const h = hidden();
  const store = resultsSheetOn(h.port);
  expect(store.appendResults(results(0, 3))).toBe(false);
  expect(store.readAll().logRows).toBe(3);
  const more = results(3, 2);
  store.appendResults(more);
  h.reads.length = 0;
  expect(store.readLogFrom(3)).toEqual({ results: more, logRows: 5 });
  expect(h.reads).toEqual([`A${LOG_FIRST_ROW + 3}:B${TABLE_ROWS}`]);
  // The log full: the next write merges it into the bucket rows.
  store.appendResults(results(5, LOG_COMPACT_AT - 5));
  expect(store.readAll().logRows).toBe(LOG_COMPACT_AT);
  expect(store.readLogFrom(LOG_COMPACT_AT)).toEqual({ results: new Map(), logRows: LOG_COMPACT_AT });
  expect(store.appendResults(results(5000, 1))).toBe(true);
  expect(store.readAll().logRows).toBe(0);
});
