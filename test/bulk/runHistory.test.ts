import type { Job } from '../../src/bulk/job';
import { saveJob } from '../../src/bulk/jobStore';
import { getRunHistory, recordRun, selectFirstFailedRow, summarize } from '../../src/bulk/runHistory';
import type { Platform } from '../../src/core/ports';
import { RUN_HISTORY_PROPERTY } from '../../src/core/propertyNames';
import type { CellBlock, SpreadsheetPort } from '../../src/core/sheet';
import { testJob } from '../support/job';
import { freeLock, MemoryProperties, MemorySheet, testClock, testPlatform } from '../support/platform';

const url = (n: number) => `https://network.com/in/p${n}`;

/** A platform over one sheet; `selected` is what the person was shown. */
function world(rows: unknown[][] = []) {
  const sheet = new MemorySheet([['Profile', 'Email', 'Email status', 'Catch-all', 'Note'], ...rows]);
  const selected: CellBlock[] = [];
  Object.assign(sheet, { select: (block: CellBlock) => selected.push(block) });
  const properties = new MemoryProperties();
  const clock = testClock();
  let locks = 0;
  const platform: Platform = testPlatform({
    documentProperties: () => properties,
    spreadsheet: () =>
      ({ sheetById: (id: number) => (id === sheet.id ? sheet : undefined) }) as SpreadsheetPort,
    clock: clock as Platform['clock'],
    lock: {
      ...freeLock,
      with: (work) => {
        locks++;
        return work();
      },
    },
  });
  return { sheet, selected, properties, clock, platform, locks: () => locks };
}

const ended = (extra: Partial<Job> = {}) =>
  testJob('done', { sheetId: 1, urlColumn: 1, outputColumn: 2, firstRow: 2, lastRow: 5, ...extra });

describe('summarize', () => {
  it("says a run by its range and a watch's run by its column, without the rows it found done", () => {
    const job = ended({ counts: { ...ended().counts, alreadyDone: 4 } });
    expect(summarize(job)).toMatchObject({
      range: 'A2:A5',
      alreadyDone: 4,
      found: 2,
      noAddress: 1,
      creditsSpent: 3,
    });
    expect(summarize({ ...job, origin: 'watch' })).toMatchObject({
      range: 'A:A',
      alreadyDone: 0,
      origin: 'watch',
    });
  });
});

describe('recordRun', () => {
  it('records a run that has not ended nowhere', () => {
    const { platform, properties } = world();
    expect(recordRun(platform, testJob('running'))).toBeNull();
    expect(properties.values.has(RUN_HISTORY_PROPERTY)).toBe(false);
  });

  it('records an ended run once, newest first', () => {
    const { platform, properties } = world();
    recordRun(platform, ended({ id: 'r1' }));
    recordRun(platform, ended({ id: 'r2', state: 'cancelled' }));
    recordRun(platform, ended({ id: 'r1', counts: { ...ended().counts, found: 50 } }));
    const history = JSON.parse(properties.values.get(RUN_HISTORY_PROPERTY) as string);
    expect(history.map((entry: { id: string }) => entry.id)).toEqual(['r2', 'r1']);
    expect(history[1].found).toBe(2);
  });

  it("leaves out a kept entry that is not a run's summary", () => {
    const { platform, properties } = world();
    properties.setProperty(RUN_HISTORY_PROPERTY, JSON.stringify([{ id: 'odd' }, 'x']));
    recordRun(platform, ended({ id: 'r1' }));
    expect(getRunHistory(platform).history.map((entry) => entry.id)).toEqual(['r1']);
  });
});

describe('getRunHistory', () => {
  it('records the last run the first time it is asked for after it ended, under the lock', () => {
    const { platform, locks } = world();
    saveJob(platform, ended({ id: 'r1' }));
    const first = getRunHistory(platform);
    expect(first.last?.id).toBe('r1');
    expect(first.history.map((entry) => entry.id)).toEqual(['r1']);
    expect(locks()).toBe(1);
    expect(getRunHistory(platform).history).toHaveLength(1);
    expect(locks()).toBe(1);
  });

  it('waits for the counts of a run cancelled while a slice still holds it', () => {
    const { platform, clock } = world();
    saveJob(platform, ended({ id: 'r1', state: 'cancelled', leaseUntil: clock.now() + 60_000 }));
    const asked = getRunHistory(platform);
    expect(asked.last?.id).toBe('r1');
    expect(asked.history).toEqual([]);
  });

  it('has no last run while one is under way', () => {
    const { platform } = world();
    saveJob(platform, testJob('running'));
    expect(getRunHistory(platform)).toEqual({ last: null, history: [] });
  });
});

describe('selectFirstFailedRow', () => {
  it('selects the first row that failed, not one without an address', () => {
    const { platform, selected } = world([
      [url(2), 'a@acme.test', 'VALID', true, ''],
      [url(3), '', 'NOT_FOUND', '', ''],
      [url(4), '', 'UNPROCESSABLE', '', 'private'],
      [url(5), '', 'ERROR', '', ''],
    ]);
    saveJob(platform, ended());
    expect(selectFirstFailedRow(platform)).toBe('Row 4 is selected (UNPROCESSABLE).');
    expect(selected).toEqual([{ row: 4, column: 1, rows: 1, columns: 5 }]);
  });

  it("does not take a user's words for a failure", () => {
    const { platform, selected } = world([[url(2), 'note', 'ERROR?', '', '']]);
    saveJob(platform, ended({ lastRow: 2 }));
    expect(selectFirstFailedRow(platform)).toBe('No row of the last run failed.');
    expect(selected).toEqual([]);
  });

  it('reads output columns further right than the URLs', () => {
    const { platform, selected, sheet } = world();
    sheet.rows.push([url(2), 'company', '', 'INVALID_URL', '', '']);
    saveJob(platform, ended({ outputColumn: 3, lastRow: 2 }));
    expect(selectFirstFailedRow(platform)).toBe('Row 2 is selected (INVALID_URL).');
    expect(selected[0]).toEqual({ row: 2, column: 1, rows: 1, columns: 6 });
  });

  it('says so when there is no run or its sheet is gone', () => {
    const { platform } = world();
    expect(selectFirstFailedRow(platform)).toBe('There is no run to look at in this spreadsheet.');
    saveJob(platform, ended({ sheetId: 99 }));
    expect(selectFirstFailedRow(platform)).toBe('There is no run to look at in this spreadsheet.');
  });
});
