import type { Settings } from '../../src/api';
import { frameOf } from '../../src/bulk/blocks';
import { cancelRun, createWatchRun, watchPlanner } from '../../src/bulk/forWatch';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import { readColumn } from '../../src/bulk/plan';
import type { ScriptConfig } from '../../src/core/config';
import type { Platform } from '../../src/core/ports';
import { parseNetworkHosts } from '../../src/core/url';
import { testJob } from '../support/job';
import {
  freeLock,
  MemoryProperties,
  MemorySheet,
  memoryHiddenSheet,
  testClock,
  testPlatform,
} from '../support/platform';

const HOSTS = parseNetworkHosts('network.com');
const SETTINGS: Settings = { writeHeader: true, extraFields: false, startAtOnce: false, startAtOnceUnder: 0 };
const url = (n: number) => `https://network.com/in/p${n}`;

function world() {
  const properties = new MemoryProperties();
  const platform: Platform = testPlatform({
    documentProperties: () => properties,
    clock: testClock() as Platform['clock'],
    lock: freeLock,
    userProperties: () => new MemoryProperties(),
    config: () => ({ networkHosts: HOSTS, maxConcurrency: 100 }) as ScriptConfig,
    runner: { id: () => null, ensureId: () => 'trigger', email: () => '' },
    settings: { apiKey: () => null } as Platform['settings'],
    resultsSheet: memoryHiddenSheet(),
  });
  return { platform, properties };
}

/** The block the watch's earlier run wrote: B:E of rows 2 and 3. */
const WRITTEN = frameOf(testJob('done', { id: 'earlier', origin: 'watch', firstRow: 2, lastRow: 3 }));

/** The watch's plan of column A (header in row 1). */
function watched(platform: Platform, sheet: MemorySheet) {
  const read = readColumn(
    { sheet, block: { row: 2, column: 1, rows: sheet.rows.length - 1, columns: 1 } },
    false,
    [WRITTEN],
  );
  return { plan: watchPlanner(platform, SETTINGS, undefined)(read), read, sheet, settings: SETTINGS };
}

const sheetOf = () =>
  new MemorySheet([
    ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'],
    [url(2)],
    [url(3), 'a@acme.test', 'VALID', true, ''],
  ]);

describe('watchPlanner', () => {
  it('plans as a run does over rows without a result, never waiting for a confirmation (no one is there)', () => {
    const { platform } = world();
    const { plan } = watched(platform, sheetOf());
    expect(plan).toMatchObject({ mode: 'new', credits: 1, alreadyDone: 1, needsConfirm: false });
  });

  it('touches only rows without any status: an ERROR row waits for a person to retry it', () => {
    const { platform } = world();
    const sheet = new MemorySheet([
      ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'],
      [url(2)],
      [url(3), '', 'ERROR', '', 'The service failed (HTTP 500).'],
    ]);
    const { plan } = watched(platform, sheet);
    expect(plan).toMatchObject({ mode: 'new', credits: 1, lookupRows: 1, alreadyDone: 1 });
  });
});

describe('createWatchRun', () => {
  it("creates the watch's run, owned by the watch's creator", () => {
    const { platform } = world();
    const job = createWatchRun(platform, watched(platform, sheetOf()), 'creator', 'ann@acme.test');
    expect(job).toMatchObject({
      origin: 'watch',
      ownerId: 'creator',
      ownerName: 'ann@acme.test',
      state: 'running',
    });
    expect(loadJob(platform)?.id).toBe(job?.id);
  });

  it('creates nothing while another run is under way, and touches no cell', () => {
    const { platform } = world();
    saveJob(platform, testJob('running', { id: 'person' }));
    const sheet = sheetOf();
    expect(createWatchRun(platform, watched(platform, sheet), 'creator', 'ann@acme.test')).toBeNull();
    expect(sheet.writes).toBe(0);
    expect(loadJob(platform)?.id).toBe('person');
  });
});

describe('cancelRun', () => {
  it('cancels the run it names while active, and no other', () => {
    const { platform } = world();
    saveJob(platform, testJob('running', { id: 'person' }));
    cancelRun(platform, 'watch-run');
    expect(loadJob(platform)?.state).toBe('running');
    cancelRun(platform, 'person');
    expect(loadJob(platform)?.state).toBe('cancelled');
  });

  it('leaves an ended run as it ended', () => {
    const { platform } = world();
    saveJob(platform, testJob('done', { id: 'w' }));
    cancelRun(platform, 'w');
    expect(loadJob(platform)?.state).toBe('done');
  });
});
