/**
 * What an execution remembers of the results sheet: a copy is used only at the table version it was read at, so a
 * result another execution wrote is never missed (and paid again); this execution's own writes keep it current.
 */

import type { ResultsSheet } from '../../src/store/ports';
import { followOwnWrite, fromSheet, resultsCopy, wholeSheet } from '../../src/store/resultsCopy';

function sheetOf(rows: Record<string, string>) {
  const table = new Map(Object.entries(rows));
  const reads: string[][] = [];
  let wholeReads = 0;
  const sheet: ResultsSheet = {
    readHashes(hashes) {
      reads.push(hashes);
      return new Map(hashes.filter((h) => table.has(h)).map((h) => [h, table.get(h) as string]));
    },
    readAll() {
      wholeReads++;
      return new Map(table);
    },
    appendResults(added) {
      for (const [h, v] of added) table.set(h, v);
    },
  };
  return { sheet, table, reads, wholeReads: () => wholeReads };
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
