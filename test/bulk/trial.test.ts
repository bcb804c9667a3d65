import type { RunPlan } from '../../src/api';
import type { ColumnRead } from '../../src/bulk/placement';
import { firstRowsOf, rememberingStore, trialRead } from '../../src/bulk/plan';
import type { LookupResult } from '../../src/lookup/result';

const notFound: LookupResult = { kind: 'not_found', profile: {} };

/** Rows 2.. of column A holding these profiles (a letter each; '' a blank row). */
function read(profiles: string[]): ColumnRead {
  return {
    sheetName: 'Leads',
    urlColumn: 1,
    maxColumns: 26,
    headerRow: 1,
    firstRow: 2,
    lastRow: 1 + profiles.length,
    header: ['Profile'],
    rows: profiles.map((slug) => [slug ? `https://network.com/in/${slug}` : '']),
    owned: new Map(),
  };
}

/** A plan counting the distinct profiles of a read not in `known`; `asked` counts the plans made. */
function planner(known: string[] = []) {
  const planned = { count: 0 };
  const planOf = (part: ColumnRead): RunPlan => {
    planned.count++;
    const urls = new Set(part.rows.map((row) => String(row[0])).filter((cell) => cell !== ''));
    const fresh = [...urls].filter((cell) => !known.some((slug) => cell.endsWith(`/${slug}`)));
    return { newProfiles: fresh.length } as RunPlan;
  };
  return { planOf, planned };
}

describe('firstRowsOf', () => {
  it("ends the read at its count's last row", () => {
    const part = firstRowsOf(read(['a', 'b', 'c']), 2);
    expect(part).toMatchObject({ firstRow: 2, lastRow: 3 });
    expect(part.rows).toHaveLength(2);
  });
});

describe('trialRead', () => {
  it('finds the shortest first rows holding that many new profiles, duplicates and known ones not counted', () => {
    const whole = read(['a', 'a', 'b', '', 'k', 'c', 'd', 'e', 'f']);
    const { planOf } = planner(['k']);
    const trial = trialRead(whole, planOf, 3, planOf(whole));
    // a, b and c are the first three new profiles: c is the sixth row.
    expect(trial?.rows).toHaveLength(6);
    expect(trial?.lastRow).toBe(7);
  });

  it('is no trial when the range holds no more new profiles than it would try', () => {
    const whole = read(['a', 'b', 'b', 'k']);
    const { planOf } = planner(['k']);
    expect(trialRead(whole, planOf, 2, planOf(whole))).toBeUndefined();
  });

  it('plans a number of parts that grows with the logarithm of the rows, not with the rows', () => {
    const whole = read(Array.from({ length: 1024 }, (_, index) => `p${index}`));
    const { planOf, planned } = planner();
    const trial = trialRead(whole, planOf, 10, planOf(whole));
    expect(trial?.rows).toHaveLength(10);
    expect(planned.count).toBeLessThanOrEqual(1 + 11);
  });
});

describe('rememberingStore', () => {
  it('asks the store once for each key, the missing ones included', () => {
    const asked: string[][] = [];
    const stored = rememberingStore((keys) => {
      asked.push(keys);
      return new Map(keys.filter((key) => key === 'a').map((key) => [key, notFound]));
    });
    expect([...stored(['a', 'b']).keys()]).toEqual(['a']);
    expect([...stored(['b', 'a', 'c']).keys()]).toEqual(['a']);
    expect(stored(['a', 'b', 'c']).size).toBe(1);
    expect(asked).toEqual([['a', 'b'], ['c']]);
  });
});
