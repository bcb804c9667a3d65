/**
 * What an execution remembers of the results sheet: a copy is used only at the table version it was read at, so a
 * result another execution wrote is never missed (and paid again); this execution's own writes keep it current.
 */

import {
  followOwnWrite,
  fromSheet,
  resultsCopy,
  tableVersion,
  wholeSheet,
} from '../../src/store/resultsCopy';
import type { ResultsSheet } from '../../src/store/resultsSheet';

function sheetOf(rows: Record<string, string>) {
  const table = new Map(Object.entries(rows));
  const reads: string[][] = [];
  const log: Array<[string, string]> = [];
  const logReads: number[] = [];
  let wholeReads = 0;
  const sheet: ResultsSheet = {
    readHashes(hashes) {
      reads.push(hashes);
      return new Map(hashes.filter((h) => table.has(h)).map((h) => [h, table.get(h) as string]));
    },
    readAll() {
      wholeReads++;
      return { results: new Map(table), logRows: log.length };
    },
    readLogFrom(logRow) {
      logReads.push(logRow);
      return { results: new Map(log.slice(logRow)), logRows: log.length };
    },
    appendResults(added) {
      for (const [h, v] of added) table.set(h, v);
      log.push(...added);
      return false;
    },
  };
  return { sheet, table, log, reads, logReads, wholeReads: () => wholeReads };
}

describe('fromSheet', () => {
  test('reads the hashes asked and remembers the absent ones at this version', () => {
    const s = sheetOf({ a: 'A' });
    const copy = resultsCopy(s.sheet);
    expect([...fromSheet(copy, ['a', 'b'], 'v1')]).toEqual([['a', 'A']]);
    expect(fromSheet(copy, ['a', 'b'], 'v1').get('a')).toBe('A');
    // The second time, only 'a' is read: 'b' is known absent at v1.
    expect(s.reads).toEqual([['a', 'b'], ['a']]);
  });

  test('another version (another execution wrote): absent hashes are read again and found', () => {
    const s = sheetOf({});
    const copy = resultsCopy(s.sheet);
    expect(fromSheet(copy, ['b'], 'v1').size).toBe(0);
    s.table.set('b', 'B');
    expect(fromSheet(copy, ['b'], 'v1').size).toBe(0);
    expect(fromSheet(copy, ['b'], 'v2').get('b')).toBe('B');
  });

  test('a whole copy at the current version answers without reading the sheet', () => {
    const s = sheetOf({ a: 'A', c: 'C' });
    const copy = resultsCopy(s.sheet);
    wholeSheet(copy, 'v1');
    expect([...fromSheet(copy, ['a', 'b', 'c'], 'v1')]).toEqual([
      ['a', 'A'],
      ['c', 'C'],
    ]);
    expect(s.reads).toEqual([]);
  });

  test('a whole copy of an older version is not used', () => {
    const s = sheetOf({ a: 'A' });
    const copy = resultsCopy(s.sheet);
    wholeSheet(copy, 'v1');
    s.table.set('b', 'B');
    expect(fromSheet(copy, ['b'], 'v2').get('b')).toBe('B');
    expect(s.reads).toEqual([['b']]);
  });
});

describe('wholeSheet', () => {
  test('read once per version', () => {
    const s = sheetOf({ a: 'A' });
    const copy = resultsCopy(s.sheet);
    wholeSheet(copy, 'v1');
    wholeSheet(copy, 'v1');
    expect(s.wholeReads()).toBe(1);
    s.table.set('b', 'B');
    expect(wholeSheet(copy, 'v2').get('b')).toBe('B');
    expect(s.wholeReads()).toBe(2);
  });
});

describe('wholeSheet after another writer (the count of merges in the version: tableVersion)', () => {
  /** Another execution's write, as the store makes it: to the sheet (and its log), then a new table version. */
  let writes = 0;
  const otherWrites = (s: ReturnType<typeof sheetOf>, before: string, added: Record<string, string>) => {
    s.sheet.appendResults(new Map(Object.entries(added)));
    writes++;
    return tableVersion(before, false, `other${writes}`);
  };

  test('it appended to the log: the copy reads the log from its end alone, and has every result', () => {
    const s = sheetOf({});
    const copy = resultsCopy(s.sheet);
    const v1 = otherWrites(s, '', { a: 'A' });
    wholeSheet(copy, v1);
    const v2 = otherWrites(s, v1, { b: 'B', c: 'C' });
    expect([...wholeSheet(copy, v2)].sort()).toEqual([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ]);
    expect(s.wholeReads()).toBe(1);
    expect(s.logReads).toEqual([1]);
  });

  test('it merged the log into the buckets, or wrote a version without the count: the copy is read whole', () => {
    const s = sheetOf({});
    const copy = resultsCopy(s.sheet);
    const v1 = otherWrites(s, '', { a: 'A' });
    wholeSheet(copy, v1);
    s.table.set('m', 'M');
    expect(wholeSheet(copy, tableVersion(v1, true, 'other')).get('m')).toBe('M');
    s.table.set('n', 'N');
    expect(wholeSheet(copy, 'v-older').get('n')).toBe('N');
    expect(s.wholeReads()).toBe(3);
    expect(s.logReads).toEqual([]);
  });

  test('own appends move the end of the log read; an own merge empties it', () => {
    const s = sheetOf({});
    const copy = resultsCopy(s.sheet);
    const v1 = otherWrites(s, '', { a: 'A' });
    wholeSheet(copy, v1);
    s.sheet.appendResults(new Map([['b', 'B']]));
    const v2 = tableVersion(v1, false, 'own');
    followOwnWrite(copy, v1, v2, new Map([['b', 'B']]));
    expect(copy.logRows).toBe(2);
    const v3 = otherWrites(s, v2, { c: 'C' });
    expect(wholeSheet(copy, v3).get('c')).toBe('C');
    expect(s.logReads).toEqual([2]);
    followOwnWrite(copy, v3, tableVersion(v3, true, 'own'), new Map([['d', 'D']]), true);
    expect(copy.logRows).toBe(0);
  });

  test('versions count the merges', () => {
    expect(tableVersion('', false, 'x')).toBe('0~x');
    expect(tableVersion('0~x', true, 'y')).toBe('1~y');
    expect(tableVersion('1~y', false, 'z')).toBe('1~z');
    expect(tableVersion('lz3k9a', true, 'z')).toBe('1~z');
  });
});

describe('followOwnWrite', () => {
  test('own write at the version the copies were read: they gain the results and move to the new version', () => {
    const s = sheetOf({ a: 'A' });
    const copy = resultsCopy(s.sheet);
    wholeSheet(copy, 'v1');
    expect(fromSheet(copy, ['b'], 'v1').size).toBe(0);
    followOwnWrite(copy, 'v1', 'v2', new Map([['b', 'B']]));
    expect(copy.wholeVersion).toBe('v2');
    expect(copy.whole?.get('b')).toBe('B');
  });

  test('absent hashes it wrote are no longer absent', () => {
    const s = sheetOf({});
    const copy = resultsCopy(s.sheet);
    fromSheet(copy, ['b', 'c'], 'v1');
    s.table.set('b', 'B');
    followOwnWrite(copy, 'v1', 'v2', new Map([['b', 'B']]));
    expect(copy.absent.has('b')).toBe(false);
    expect(copy.absent.has('c')).toBe(true);
    expect(fromSheet(copy, ['b'], 'v2').get('b')).toBe('B');
  });

  test('copies of another version than the one written over are left stale (read again later)', () => {
    const s = sheetOf({ a: 'A' });
    const copy = resultsCopy(s.sheet);
    fromSheet(copy, ['b'], 'v0');
    wholeSheet(copy, 'v0');
    followOwnWrite(copy, 'v1', 'v2', new Map([['b', 'B']]));
    expect(copy.wholeVersion).toBe('v0');
    expect(copy.whole?.has('b')).toBe(false);
    expect(copy.absentVersion).toBe('v0');
  });
});
