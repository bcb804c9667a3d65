/**
 * What a watch's next run covers, over a sheet in memory: only rows without a result, from the first one needing
 * work, cut to the credits left today; a sheet deleted or a header moved stops the watch rather than writing
 * elsewhere.
 */
import { frameOf } from '../../src/bulk/blocks';
import type { ScriptConfig } from '../../src/core/config';
import type { Platform } from '../../src/core/ports';
import { BLOCKS_PROPERTY } from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import { planWatchedRows, readWatched } from '../../src/watch/plan';
import { testJob } from '../support/job';
import {
  MemoryProperties,
  MemorySheet,
  memoryHiddenSheet,
  testClock,
  testPlatform,
} from '../support/platform';
import { watchRecord } from './helpers';

const HEADER = ['Profile URL', 'Email', 'Email status', 'Catch-all', 'Note'];
const profile = (n: number) => `https://www.linkedin.com/in/person-${n}`;
/** Column B holds the URLs (the watch's column), under its header in row 1. */
const row = (url: unknown, email = '') => ['', url, email, email ? 'valid' : '', '', ''];

/**
 * A platform over `sheet`, the rows with a result (an address in C) recorded as the block the watch's earlier runs
 * wrote (src/bulk/blocks.ts): the cells the add-on owns.
 */
function platformOver(sheet: MemorySheet | undefined): Platform {
  const spreadsheet = { sheetById: (id: number) => (sheet && id === sheet.id ? sheet : undefined) };
  const properties = new MemoryProperties();
  const done = (sheet?.rows ?? []).flatMap((line, index) => (index > 0 && line[2] ? [index + 1] : []));
  if (sheet && done.length > 0) {
    const block = testJob('done', {
      id: 'watch-run',
      sheetId: sheet.id,
      urlColumn: 2,
      outputColumn: 3,
      firstRow: Math.min(...done),
      lastRow: Math.max(...done),
      maxRows: sheet.maxRows(),
      maxColumns: sheet.maxColumns(),
    });
    properties.setProperty(BLOCKS_PROPERTY, JSON.stringify([frameOf(block)]));
  }
  return testPlatform({
    spreadsheet: () => spreadsheet as SpreadsheetPort,
    documentProperties: () => properties,
    settings: { read: () => ({ extraFields: false, writeHeader: true }) } as unknown as Platform['settings'],
    config: () => ({ stepBudgetMs: 5_000, networkHosts: DEFAULT_NETWORK_HOSTS }) as ScriptConfig,
    resultsSheet: memoryHiddenSheet(),
    clock: testClock(),
  });
}

function leads(rows: unknown[][]): MemorySheet {
  return new MemorySheet([['', ...HEADER], ...rows], { id: 7, name: 'Leads' });
}

describe('readWatched', () => {
  test('reads from the top row to the last row, with the header found above the URLs', () => {
    const sheet = leads([row(profile(1)), row(profile(2))]);
    const read = readWatched(watchRecord(), sheet, false, []);
    expect(read).toMatchObject({ headerRow: 1, firstRow: 2, lastRow: 3, urlColumn: 2 });
    expect(read?.rows.map((line) => line[0])).toEqual([profile(1), profile(2)]);
  });

  test('nothing under the header, an empty sheet, or a column past the sheet: null', () => {
    expect(readWatched(watchRecord(), leads([]), false, [])).toBeNull();
    expect(readWatched(watchRecord(), new MemorySheet([], { id: 7 }), false, [])).toBeNull();
    expect(readWatched(watchRecord({ urlColumn: 40 }), leads([row(profile(1))]), false, [])).toBeNull();
    expect(readWatched(watchRecord({ topRow: 9 }), leads([row(profile(1))]), false, [])).toBeNull();
  });
});

describe('planWatchedRows', () => {
  test('the sheet was deleted: the watch stops, naming it', () => {
    expect(planWatchedRows(platformOver(undefined), watchRecord(), 10)).toEqual({
      kind: 'stop',
      reason: 'the sheet "Leads" no longer exists',
    });
  });

  test('nothing under the header, or every row already has its result: nothing to do', () => {
    expect(planWatchedRows(platformOver(leads([])), watchRecord(), 10)).toEqual({ kind: 'nothing' });
    const done = leads([row(profile(1), 'a@example.com'), row(profile(2), 'b@example.com')]);
    expect(planWatchedRows(platformOver(done), watchRecord(), 10)).toEqual({ kind: 'nothing' });
  });

  test('the header is no longer the one watched: stops rather than read another column', () => {
    const sheet = leads([row(profile(1))]);
    sheet.rows[0][1] = 'Phone';
    const plan = planWatchedRows(platformOver(sheet), watchRecord(), 10);
    expect(plan).toEqual({
      kind: 'stop',
      reason: expect.stringContaining('"Profile URL" is no longer there'),
    });
  });

  test('new rows under rows already done: the run starts at the first row needing work', () => {
    const sheet = leads([
      row(profile(1), 'a@example.com'),
      row(profile(2), 'b@example.com'),
      row(profile(3)),
      row(profile(4)),
    ]);
    const plan = planWatchedRows(platformOver(sheet), watchRecord(), 10);
    if (plan.kind !== 'run') throw new Error(`expected a run, got ${plan.kind}`);
    expect(plan.planned.read.firstRow).toBe(4);
    expect(plan.planned.read.rows.map((line) => line[0])).toEqual([profile(3), profile(4)]);
    expect(plan.planned.plan.newProfiles).toBe(2);
  });

  test('no credit left today: the rows wait, named by the first and their count', () => {
    const sheet = leads([row(profile(1), 'a@example.com'), row(profile(2)), row(profile(3))]);
    expect(planWatchedRows(platformOver(sheet), watchRecord(), 0)).toEqual({
      kind: 'limit',
      waiting: { first: 'B3', rows: 2 },
    });
  });

  test('fewer credits left than new profiles: the run is cut to what is left, never more', () => {
    const sheet = leads([1, 2, 3, 4, 5].map((n) => row(profile(n))));
    const plan = planWatchedRows(platformOver(sheet), watchRecord(), 2);
    if (plan.kind !== 'run') throw new Error(`expected a run, got ${plan.kind}`);
    expect(plan.planned.plan.newProfiles).toBeLessThanOrEqual(2);
    expect(plan.planned.plan.newProfiles).toBeGreaterThan(0);
    expect(plan.planned.read.rows[0][0]).toBe(profile(1));
  });

  test('results would now go to another column than the one the watch wrote: it stops', () => {
    const sheet = leads([row(profile(1))]);
    const plan = planWatchedRows(platformOver(sheet), watchRecord({ outputColumn: 12 }), 10);
    expect(plan).toEqual({ kind: 'stop', reason: expect.stringContaining('would write elsewhere') });
  });
});
