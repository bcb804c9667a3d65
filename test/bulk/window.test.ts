/**
 * A slice's window (src/bulk/window.ts), pure over rows in memory and a sheet port: planned up to the slice's share
 * of lookups in the hold that leases it, written in the next, each row checked again right before, in runs of
 * adjacent rows; the rows without an answer go back to the run.
 */
import type { RunCounts } from '../../src/api';
import { RunScope } from '../../src/bulk/runScope';
import {
  type PlanContext,
  type PlannedWindow,
  planWindow,
  type RowAnswer,
  writeWindow,
} from '../../src/bulk/window';
import { RETRY_PATH } from '../../src/core/product';
import { emptyRunCounts } from '../../src/core/runWords';
import { DEFAULT_NETWORK_HOSTS, parseProfileInput } from '../../src/core/url';
import type { LookupResult } from '../../src/lookup/result';
import { MemorySheet } from '../support/platform';
import { found } from '../support/results';
import { profile } from './world';

const HOSTS = DEFAULT_NETWORK_HOSTS;
const SCOPE = RunScope.ofJob({ recheck: false });
/** The URL column and the four output columns. */
const WIDTH = 5;
const JOB = { outputColumn: 2, extraFields: false, pass: 1 };
/** The window's first row in the sheet (row 1 is the header). */
const FROM = 2;

/** The normalised URL of a profile, as the run keys it. */
function keyOf(name: string): string {
  const input = parseProfileInput(profile(name), HOSTS);
  if (input.kind !== 'url') throw new Error(`not a profile: ${name}`);
  return input.key;
}

const urlRow = (name: string): unknown[] => [profile(name), '', '', '', ''];

/**
 * Plans `rows` from FROM with `share`, `known` answering for the profiles named (and recording what it was asked);
 * `owns`: the sheet rows whose output cells the add-on owns (none unless given).
 */
function plan(
  rows: unknown[][],
  share: number,
  known: Record<string, RowAnswer> = {},
  owns: (row: number) => boolean = () => false,
) {
  const asked: string[][] = [];
  const context: PlanContext = {
    scope: SCOPE,
    pass: 1,
    hosts: HOSTS,
    share,
    owns,
    known: (keys) => {
      asked.push(keys);
      return new Map(
        Object.entries(known)
          .map(([name, answer]) => [keyOf(name), answer] as [string, RowAnswer])
          .filter(([key]) => keys.includes(key)),
      );
    },
  };
  return { window: planWindow(rows, FROM, context), asked };
}

describe('planWindow', () => {
  it('ends before the row whose profile would be one more than the share to look up', () => {
    const { window } = plan(['a', 'b', 'c', 'd', 'e'].map(urlRow), 3);
    expect([window.from, window.to]).toEqual([FROM, FROM + 2]);
    expect(window.plans).toHaveLength(3);
    expect([...window.wanted.keys()]).toEqual(['a', 'b', 'c'].map(keyOf));
    // What the service gets: the URL as written, keyed by its normalised form.
    expect(window.wanted.get(keyOf('a'))).toMatch(/linkedin\.com\/in\/a/);
  });

  it('known profiles and duplicates do not use the share: the window goes on past them', () => {
    const known: RowAnswer = { outcome: found('b@x.test') };
    const rows = ['a', 'a', 'b', 'c', 'd', 'e'].map(urlRow);
    const { window, asked } = plan(rows, 2, { b: known });
    expect([...window.wanted.keys()]).toEqual(['a', 'c'].map(keyOf));
    expect(window.to).toBe(FROM + 3);
    expect(window.known.get(keyOf('b'))).toBe(known);
    // Asked once, for every profile of the rows read.
    expect(asked).toEqual([['a', 'b', 'c', 'd', 'e'].map(keyOf)]);
  });

  it("a row whose output cells hold the person's data is unwritable: nothing looked up or asked for it", () => {
    const rows = [urlRow('a'), [profile('b'), 'my own note', '', '', ''], urlRow('c')];
    const { window, asked } = plan(rows, 10);
    expect([...window.unwritable]).toEqual([1]);
    expect([...window.wanted.keys()]).toEqual(['a', 'c'].map(keyOf));
    expect(asked).toEqual([['a', 'c'].map(keyOf)]);
    expect(window.to).toBe(FROM + 2);
  });

  it("an ERROR row is written over only where the add-on owns it and its cells read as the add-on's", () => {
    const ours = [
      profile('b'),
      '',
      'ERROR',
      '',
      `The service failed (HTTP 500). To try again: ${RETRY_PATH}.`,
    ];
    const typed = [profile('c'), '', 'ERROR', '', 'call him on Monday'];
    const rows = [urlRow('a'), ours, typed];
    const owned = plan(rows, 10, {}, () => true);
    expect([...owned.window.unwritable]).toEqual([2]);
    expect([...owned.window.wanted.keys()]).toEqual(['a', 'b'].map(keyOf));
    // Outside the add-on's blocks, only empty output cells are written.
    const notOwned = plan(rows, 10);
    expect([...notOwned.window.unwritable]).toEqual([1, 2]);
    expect([...notOwned.window.wanted.keys()]).toEqual(['a'].map(keyOf));
    // Asked by sheet row, of each row the window would write.
    const asked: number[] = [];
    plan(rows, 10, {}, (row) => {
      asked.push(row);
      return true;
    });
    expect(asked).toEqual([FROM, FROM + 1, FROM + 2]);
  });

  it('rows with a result, blank rows and cells that are not profiles look nothing up, and ask nothing', () => {
    const rows = [
      [profile('a'), 'a@x.test', 'VALID', false, ''],
      ['', '', '', '', ''],
      ['not a profile', '', '', '', ''],
    ];
    const { window, asked } = plan(rows, 1);
    expect(window.plans.map((row) => row.action)).toEqual(['keep', 'blank', 'invalid']);
    expect(window.wanted.size).toBe(0);
    expect(asked).toEqual([]);
    expect(window.to).toBe(FROM + 2);
  });

  it('a share of one: one profile, the window ending before the next', () => {
    const { window } = plan(['a', 'b'].map(urlRow), 1);
    expect([window.from, window.to]).toEqual([FROM, FROM]);
    expect(window.wanted.size).toBe(1);
  });
});

describe('writeWindow', () => {
  /** A sheet whose rows FROM.. hold `rows` (a header in row 1), and the window planned over them. */
  function over(rows: unknown[][], share = 100) {
    const sheet = new MemorySheet([['Profile', 'Email', 'Email status', 'Catch-all', 'Note'], ...rows]);
    const writes: Array<[number, number]> = [];
    const write = sheet.write.bind(sheet);
    sheet.write = (row, column, values) => {
      writes.push([row, values.length]);
      write(row, column, values);
    };
    return { sheet, writes, window: plan(rows, share).window };
  }

  /**
   * Writes `window` with the rows as they are now; answers from `answers` by profile name; `job` the run's (its
   * `owns`: the rows it may write over).
   */
  function writeNow(
    sheet: MemorySheet,
    window: PlannedWindow,
    answers: Record<string, RowAnswer>,
    counts: RunCounts = emptyRunCounts(),
    job: Parameters<typeof writeWindow>[1] = JOB,
  ) {
    const now = sheet.rows.slice(FROM - 1, FROM - 1 + window.plans.length).map((row) => row.slice(0, WIDTH));
    const byKey = new Map(Object.entries(answers).map(([name, answer]) => [keyOf(name), answer]));
    const asked: string[] = [];
    const written = writeWindow(sheet, job, window, now, {
      scope: SCOPE,
      hosts: HOSTS,
      width: WIDTH,
      counts,
      answerOf: (key) => {
        asked.push(key);
        return byKey.get(key) ?? window.known.get(key);
      },
    });
    return { written, counts, asked };
  }

  const answer = (email: string): RowAnswer => ({ outcome: found(email) });

  it('writes runs of adjacent rows, one write each, never over a row in between', () => {
    const rows = [urlRow('a'), urlRow('b'), [profile('c'), '=NOW()', '', '', ''], urlRow('d'), urlRow('e')];
    const { sheet, writes, window } = over(rows);
    const { counts, written } = writeNow(sheet, window, {
      a: answer('a@x.test'),
      b: answer('b@x.test'),
      d: answer('d@x.test'),
      e: answer('e@x.test'),
    });
    expect(writes).toEqual([
      [FROM, 2],
      [FROM + 3, 2],
    ]);
    expect(sheet.rows[FROM - 1].slice(1, 3)).toEqual(['a@x.test', 'VALID']);
    expect(sheet.rows[FROM + 1][1]).toBe('=NOW()');
    expect(counts).toMatchObject({ found: 4, processed: 4 });
    expect(written.left).toEqual([]);
  });

  it('rows without an answer yet go back as runs', () => {
    const rows = ['a', 'b', 'c', 'd', 'e', 'f'].map(urlRow);
    const { sheet, window } = over(rows);
    const { written, counts } = writeNow(sheet, window, { a: answer('a@x.test'), d: answer('d@x.test') });
    expect(written.left).toEqual([
      { from: FROM + 1, to: FROM + 2 },
      { from: FROM + 4, to: FROM + 5 },
    ]);
    expect(counts.processed).toBe(2);
    expect(sheet.rows[FROM].slice(1)).toEqual(['', '', '', '']);
  });

  it('each row is checked right before: moved (another URL now) or filled by the person meanwhile, it is not written', () => {
    const rows = ['a', 'b', 'c'].map(urlRow);
    const { sheet, window } = over(rows);
    // A sort put c's URL where a was; the person typed into b's note.
    sheet.rows[FROM - 1][0] = profile('c');
    sheet.rows[FROM][4] = 'called on Monday';
    const { written, counts } = writeNow(sheet, window, {
      a: answer('a@x.test'),
      b: answer('b@x.test'),
      c: answer('c@x.test'),
    });
    expect(sheet.rows[FROM - 1].slice(1, 3)).toEqual(['', '']);
    expect(sheet.rows[FROM].slice(1)).toEqual(['', '', '', 'called on Monday']);
    expect(sheet.rows[FROM + 1][1]).toBe('c@x.test');
    expect(counts.processed).toBe(1);
    // Not given back either: the pass over the range finds those rows where they are now.
    expect(written.left).toEqual([]);
  });

  it("a cell that is not a profile is written INVALID_URL without an answer; a copy writes the other row's output", () => {
    const copy = ['a@x.test', 'VALID', true, ''];
    const rows = [['not a profile', '', '', '', ''], urlRow('a')];
    const { sheet, window } = over(rows);
    const { asked, counts } = writeNow(sheet, window, { a: { copy } });
    expect(sheet.rows[FROM - 1][2]).toBe('INVALID_URL');
    expect(sheet.rows[FROM].slice(1)).toEqual(copy);
    expect(asked).toEqual([keyOf('a')]);
    expect(counts).toMatchObject({ notProfile: 1, found: 1, processed: 2 });
  });

  it('a known answer from the plan is written without asking the service; a result Sheets would read as a formula gets plain text first', () => {
    const plus: LookupResult = { ...found('+tricky@x.test') };
    const rows = [urlRow('a'), urlRow('b')];
    const { sheet, window } = over(rows);
    window.known.set(keyOf('b'), { outcome: plus });
    writeNow(sheet, window, { a: answer('a@x.test') });
    expect(sheet.rows[FROM][1]).toBe('+tricky@x.test');
    expect(sheet.textBlocks.map((block) => [block.row, block.rows])).toContainEqual([FROM, 2]);
  });

  it("writes over an ERROR row of the add-on's only inside the rows the run owns", () => {
    const error = ['', 'ERROR', '', `The service failed (HTTP 500). To try again: ${RETRY_PATH}.`];
    const rows = [
      [profile('a'), ...error],
      [profile('b'), ...error],
    ];
    const sheet = new MemorySheet([['Profile', 'Email', 'Email status', 'Catch-all', 'Note'], ...rows]);
    // Planned while both rows were the run's; by the write, the run owns row FROM only.
    const { window } = plan(rows, 10, {}, () => true);
    const { counts } = writeNow(
      sheet,
      window,
      { a: answer('a@x.test'), b: answer('b@x.test') },
      emptyRunCounts(),
      { ...JOB, owns: [[FROM, FROM]] },
    );
    expect(sheet.rows[FROM - 1].slice(1, 3)).toEqual(['a@x.test', 'VALID']);
    expect(sheet.rows[FROM].slice(1)).toEqual(error);
    expect(counts.processed).toBe(1);
  });
});
