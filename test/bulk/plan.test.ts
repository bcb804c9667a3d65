import type { RunPlan } from '../../src/api';
import { frameOf } from '../../src/bulk/blocks';
import type { ColumnRead } from '../../src/bulk/placement';
import { firstRowsOf, parseRunRequest, readColumn, rememberingStore, trialRead } from '../../src/bulk/plan';
import { TRIAL_PROFILES } from '../../src/core/limits';
import type { LookupResult } from '../../src/lookup/result';
import { testJob } from '../support/job';
import { MemorySheet } from '../support/platform';

const url = (n: number) => `https://network.com/in/p${n}`;
const column = (sheet: MemorySheet, row: number, rows: number, col = 1) => ({
  sheet,
  block: { row, column: col, rows, columns: 1 },
});

describe('readColumn', () => {
  it('finds the header above the selected URLs and reads every column right of them', () => {
    const sheet = new MemorySheet([
      ['Profile', 'Company'],
      [url(2), 'Acme', '', '', '', '', '', 'far'],
      [url(3), 'Beta'],
    ]);
    const read = readColumn(column(sheet, 2, 2), false, []);
    expect(read).toMatchObject({
      headerRow: 1,
      firstRow: 2,
      lastRow: 3,
      urlColumn: 1,
      header: expect.arrayContaining(['Profile']),
    });
    expect(read.rows[0]).toHaveLength(8);
    expect(read.rows[0][7]).toBe('far');
  });

  it('takes a selected header as the header, and the URLs under it as the rows', () => {
    const sheet = new MemorySheet([['Profile'], [url(2)], [url(3)]]);
    expect(readColumn(column(sheet, 1, 3), false, [])).toMatchObject({
      headerRow: 1,
      firstRow: 2,
      lastRow: 3,
    });
  });

  it('ends a whole-column selection at the last row with data, and its rows at the first and last URL', () => {
    const sheet = new MemorySheet([['Profile'], [''], [url(3)], [''], [url(5)], [''], ['', 'x']]);
    const read = readColumn(column(sheet, 1, 1_000_000), false, []);
    expect(read).toMatchObject({ firstRow: 3, lastRow: 5 });
    expect(read.rows.map((row) => row[0])).toEqual([url(3), '', url(5)]);
  });

  it('reads at least the output columns, never past the sheet', () => {
    const wide = readColumn(column(new MemorySheet([[url(1)]], { columns: 26 }), 1, 1), true, []);
    expect(wide.rows[0]).toHaveLength(7);
    const narrow = readColumn(column(new MemorySheet([[url(1)]], { columns: 3 }), 1, 1), true, []);
    expect(narrow.rows[0]).toHaveLength(3);
    expect(narrow.maxColumns).toBe(3);
  });

  it("reads a formula beside the URLs as the user's, even one showing nothing", () => {
    const sheet = new MemorySheet([[url(1), '=IF(TRUE,"","")']]);
    expect(readColumn(column(sheet, 1, 1), false, []).rows[0][1]).toBe('=IF(TRUE,"","")');
  });

  it("names the rows the add-on's blocks own beside the URL column, by their first output column", () => {
    const sheet = new MemorySheet([['Profile'], [url(2)], [url(3)]]);
    const earlier = frameOf(testJob('done', { id: 'a', outputColumn: 2, firstRow: 2, lastRow: 3 }));
    const further = frameOf(testJob('done', { id: 'b', outputColumn: 6, firstRow: 2, lastRow: 2 }));
    const elsewhere = frameOf(testJob('done', { id: 'c', urlColumn: 3, outputColumn: 4 }));
    const read = readColumn(column(sheet, 2, 2), false, [earlier, further, elsewhere]);
    expect(read.owned).toEqual(
      new Map([
        [2, [[2, 3, 4]]],
        [6, [[2, 2, 4]]],
      ]),
    );
    expect(readColumn(column(sheet, 2, 2), false, []).owned.size).toBe(0);
  });

  it('refuses empty cells and a header without URLs under it, saying what to select', () => {
    const sheet = new MemorySheet([['Profile'], [''], ['', 'x']]);
    expect(() => readColumn(column(sheet, 1, 3), false, [])).toThrow(/no profile URLs under the header/);
    expect(() => readColumn(column(new MemorySheet([[''], ['']]), 1, 2), false, [])).toThrow(
      /selected cells are empty/,
    );
  });
});

describe('parseRunRequest', () => {
  it('reads a request from plain values, defaulting to a run over the selection', () => {
    expect(parseRunRequest(undefined)).toEqual({
      source: 'selection',
      mode: 'all',
      includeUnprocessable: false,
      recheck: false,
    });
    expect(
      parseRunRequest({
        source: 'lastRun',
        mode: 'retry',
        includeUnprocessable: true,
        recheck: true,
        placement: 'right',
        trial: true,
        target: { sheetId: 0, column: 2, row: 1, rows: 10 },
        confirmedCredits: 12,
      }),
    ).toEqual({
      source: 'lastRun',
      mode: 'retry',
      includeUnprocessable: true,
      recheck: true,
      placement: 'right',
      trial: TRIAL_PROFILES,
      target: { sheetId: 0, column: 2, row: 1, rows: 10 },
      confirmedCredits: 12,
    });
  });

  it('drops what it cannot trust: an unknown placement, a trial of another size, a broken target, negative credits', () => {
    const request = parseRunRequest({
      placement: 'everywhere',
      trial: TRIAL_PROFILES + 1,
      target: { sheetId: 1, column: 0, row: 1, rows: 1 },
      confirmedCredits: -1,
      includeUnprocessable: 'yes',
    });
    expect(request).toEqual({
      source: 'selection',
      mode: 'all',
      includeUnprocessable: false,
      recheck: false,
    });
    expect(parseRunRequest({ target: { sheetId: 1, column: 1.5, row: 1, rows: 1 } }).target).toBeUndefined();
  });
});

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
