import type { PlacementKind, Settings } from '../../src/api';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import type { PlannedRun } from '../../src/bulk/plan';
import { readColumn } from '../../src/bulk/plan';
import { planRun } from '../../src/bulk/runPlan';
import { createUnderLock } from '../../src/bulk/start';
import type { ScriptConfig } from '../../src/core/config';
import { RUN_HISTORY_PROPERTY } from '../../src/core/propertyNames';
import { parseNetworkHosts } from '../../src/core/url';
import type { Platform } from '../../src/platform/platform';
import { testJob } from '../support/job';
import { MemoryProperties, MemorySheet, testClock, testPlatform } from '../support/platform';

const HOSTS = parseNetworkHosts('network.com');
const SETTINGS: Settings = { writeHeader: true, extraFields: false, startAtOnce: false, startAtOnceUnder: 0 };
const url = (n: number) => `https://network.com/in/p${n}`;

function world(properties = new MemoryProperties()) {
  const clock = testClock();
  const platform: Platform = testPlatform({
    documentProperties: () => properties,
    clock: clock as Platform['clock'],
    config: () => ({ networkHosts: HOSTS }) as ScriptConfig,
    runner: { id: () => 'starter', ensureId: () => 'starter', email: () => 'ann@acme.test' },
  });
  return { platform, properties };
}

/** The plan of column A's rows under a header, its results placed by `chosen`. */
function planned(sheet: MemorySheet, chosen?: PlacementKind, settings = SETTINGS): PlannedRun {
  const read = readColumn(
    { sheet, block: { row: 2, column: 1, rows: sheet.rows.length - 1, columns: 1 } },
    false,
  );
  const options = {
    mode: 'all' as const,
    includeUnprocessable: false,
    recheck: false,
    extraFields: settings.extraFields,
    startAtOnceUnder: null,
    hosts: HOSTS,
    chosen,
  };
  return { plan: planRun(read, options, () => new Map()), read, sheet, settings };
}

/** Column A's URLs, the user's company in B. */
const leads = () =>
  new MemorySheet([
    ['Profile', 'Company'],
    [url(2), 'Acme'],
    [url(3), 'Beta'],
    [url(2), 'Acme'],
  ]);

describe('createUnderLock', () => {
  it("inserts the plan's columns beside the URLs, titles them, and keeps the user's data", () => {
    const sheet = leads();
    const { platform } = world();
    const outcome = createUnderLock(platform, planned(sheet, 'insert'), 'starter');
    expect('created' in outcome).toBe(true);
    expect(sheet.rows[0]).toEqual(['Profile', 'Email', 'Email status', 'Catch-all', 'Note', 'Company']);
    expect(sheet.rows.slice(1).map((row) => row[5])).toEqual(['Acme', 'Beta', 'Acme']);
    // Plain text for every output column but Catch-all (real booleans), on the run's rows only.
    expect(sheet.textBlocks.map((block) => block.column)).toEqual([2, 3, 5]);
    expect(sheet.textBlocks.every((block) => block.row === 2 && block.rows === 3)).toBe(true);
    const job = loadJob(platform);
    expect(job).toMatchObject({
      state: 'running',
      urlColumn: 1,
      outputColumn: 2,
      firstRow: 2,
      lastRow: 4,
      maxColumns: 30,
      hasDuplicates: true,
      ownerId: 'starter',
      ownerName: 'ann@acme.test',
    });
    expect(job?.counts).toMatchObject({ total: 3, alreadyDone: 0, processed: 0 });
  });

  it("writes into the first free columns right of the user's, leaving those between untouched", () => {
    const sheet = leads();
    const { platform } = world();
    createUnderLock(platform, planned(sheet, 'right'), 'starter');
    expect(sheet.rows[0]).toEqual(['Profile', 'Company', 'Email', 'Email status', 'Catch-all', 'Note']);
    expect(sheet.rows.slice(1).map((row) => row[1])).toEqual(['Acme', 'Beta', 'Acme']);
    expect(loadJob(platform)).toMatchObject({ outputColumn: 3, maxColumns: 26 });
  });

  it('does not write the titles when the settings say not to', () => {
    const sheet = leads();
    createUnderLock(
      world().platform,
      planned(sheet, 'right', { ...SETTINGS, writeHeader: false }),
      'starter',
    );
    expect(sheet.rows[0]).toEqual(['Profile', 'Company']);
  });

  it('creates nothing and touches no cell while a run is under way', () => {
    const sheet = leads();
    const { platform } = world();
    saveJob(platform, testJob('paused', { id: 'other' }));
    const outcome = createUnderLock(platform, planned(sheet, 'insert'), 'starter');
    expect('existing' in outcome && outcome.existing.id).toBe('other');
    expect(sheet.writes).toBe(0);
  });

  it('leaves the sheet untouched when the job cannot be saved (the properties quota)', () => {
    const sheet = leads();
    const properties = new MemoryProperties();
    properties.setProperties = () => {
      throw new Error('Service invoked too many times for one day: properties.');
    };
    expect(() => createUnderLock(world(properties).platform, planned(sheet, 'insert'), 'starter')).toThrow(
      /too many times/,
    );
    expect(sheet.writes).toBe(0);
  });

  it('removes the job when the sheet cannot be prepared, so no run points at columns that are not there', () => {
    const sheet = leads();
    sheet.insertColumnsAfter = () => {
      throw new Error('This action would increase the number of cells above the limit.');
    };
    const { platform } = world();
    expect(() => createUnderLock(platform, planned(sheet, 'insert'), 'starter')).toThrow(/limit/);
    expect(loadJob(platform)).toBeNull();
  });

  it('records the finished run it replaces in the history first', () => {
    const { platform, properties } = world();
    saveJob(platform, testJob('done', { id: 'before' }));
    createUnderLock(platform, planned(leads(), 'insert'), 'starter');
    expect(properties.getProperty(RUN_HISTORY_PROPERTY)).toContain('"before"');
    expect(loadJob(platform)?.id).not.toBe('before');
  });
});
