import type { PlacementKind, Settings } from '../../src/api';
import { type Block, frameOf, parseBlocks } from '../../src/bulk/blocks';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import type { PlannedRun } from '../../src/bulk/plan';
import { readColumn } from '../../src/bulk/plan';
import { planRun } from '../../src/bulk/runPlan';
import { checkKeyForRun, createUnderLock, enrichSelection, startRun } from '../../src/bulk/start';
import { resolveEndpoint, type ScriptConfig } from '../../src/core/config';
import type { Platform } from '../../src/core/ports';
import { BLOCKS_PROPERTY, RUN_HISTORY_PROPERTY } from '../../src/core/propertyNames';
import type { Selection, SpreadsheetPort } from '../../src/core/sheet';
import { parseNetworkHosts } from '../../src/core/url';
import { serviceError } from '../../src/lookup/result';
import { testJob } from '../support/job';
import {
  freeLock,
  MemoryProperties,
  MemorySheet,
  memoryHiddenSheet,
  memoryTransport,
  testClock,
  testPlatform,
} from '../support/platform';

const HOSTS = parseNetworkHosts('network.com');
const SETTINGS: Settings = { writeHeader: true, extraFields: false, startAtOnce: false, startAtOnceUnder: 0 };
const url = (n: number) => `https://network.com/in/p${n}`;

/** What the service answers a good key's check (a request without `network_url`). */
const KEY_GOOD = { status: 400, body: '{"message":"network_url is required"}' };

/** FETCH_MAX_CONCURRENCY 100 and three slices: the run's pace is capped at 300 requests at once. */
const CONFIG = {
  networkHosts: HOSTS,
  maxConcurrency: 100,
  slices: 3,
  endpoint: resolveEndpoint('https://api.example.test/v1'),
} as ScriptConfig;

/** The starter's platform: their key `key` (none: null), their user properties `user`. */
function world(
  properties = new MemoryProperties(),
  key: string | null = null,
  user = new MemoryProperties(),
) {
  const clock = testClock();
  const platform: Platform = testPlatform({
    documentProperties: () => properties,
    userProperties: () => user,
    clock: clock as Platform['clock'],
    config: () => CONFIG,
    runner: { id: () => 'starter', ensureId: () => 'starter', email: () => 'ann@acme.test' },
    settings: { apiKey: () => key } as Platform['settings'],
    resultsSheet: memoryHiddenSheet(),
  });
  return { platform, properties, clock };
}

/** The plan of column A's rows under a header, its results placed by `chosen`; `blocks`: the add-on's, recorded. */
function planned(
  sheet: MemorySheet,
  chosen?: PlacementKind,
  settings = SETTINGS,
  blocks: Block[] = [],
): PlannedRun {
  const read = readColumn(
    { sheet, block: { row: 2, column: 1, rows: sheet.rows.length - 1, columns: 1 } },
    false,
    blocks,
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

  it("records the cells of the finished run it replaces among the add-on's blocks", () => {
    const { platform, properties } = world();
    saveJob(platform, testJob('done', { id: 'before' }));
    createUnderLock(platform, planned(leads(), 'insert'), 'starter');
    expect(parseBlocks(properties.getProperty(BLOCKS_PROPERTY)).map((block) => block.id)).toEqual(['before']);
  });

  it("the run owns the rows of the add-on's blocks where it writes; in inserted columns, none", () => {
    const earlier = frameOf(testJob('done', { id: 'earlier', outputColumn: 3, firstRow: 2, lastRow: 3 }));
    const right = world();
    createUnderLock(right.platform, planned(leads(), 'right', SETTINGS, [earlier]), 'starter');
    expect(loadJob(right.platform)).toMatchObject({ outputColumn: 3, owns: [[2, 3]] });
    const insert = world();
    createUnderLock(insert.platform, planned(leads(), 'insert', SETTINGS, [earlier]), 'starter');
    expect(loadJob(insert.platform)?.owns).toEqual([]);
  });
});

/**
 * A platform where `sheet`'s rows 2.. of column A are selected, the starter's key is `key` and the service answers a
 * key check with `answer`; `asked` counts the key checks, `shown` what the person saw.
 */
function starting(
  sheet: MemorySheet,
  key: string | null,
  answer: { status: number; body: string } = KEY_GOOD,
) {
  const properties = new MemoryProperties();
  const clock = testClock();
  const asked: string[] = [];
  const shown: string[] = [];
  const selection: Selection = {
    sheet,
    block: { row: 2, column: 1, rows: sheet.rows.length - 1, columns: 1 },
    a1: () => `A2:A${sheet.rows.length}`,
    rangeCount: () => 1,
  };
  const platform: Platform = testPlatform({
    documentProperties: () => properties,
    userProperties: () => new MemoryProperties(),
    clock: clock as Platform['clock'],
    lock: freeLock,
    config: () => CONFIG,
    runner: { id: () => 'starter', ensureId: () => 'starter', email: () => 'ann@acme.test' },
    settings: {
      apiKey: () => key,
      read: () => SETTINGS,
      saveApiKey: () => {},
      deleteApiKey: () => {},
      save: () => {},
    },
    spreadsheet: () => ({ selection: () => selection }) as unknown as SpreadsheetPort,
    resultsSheet: memoryHiddenSheet(),
    transport: {
      ...memoryTransport(),
      checkKey: ({ apiKey }) => {
        asked.push(apiKey);
        return answer;
      },
    },
    ui: {
      showAlert: (text: string) => shown.push(`alert: ${text}`),
      showSidebar: (view: string) => shown.push(`sidebar: ${view}`),
    } as never,
  });
  return { platform, properties, asked, shown };
}

describe('startRun', () => {
  const request = {
    source: 'selection' as const,
    mode: 'all' as const,
    includeUnprocessable: false,
    recheck: false,
  };

  it('refuses without a key before anything in the sheet changes, asking the service nothing', () => {
    const sheet = leads();
    const { platform, asked } = starting(sheet, null);
    const start = startRun(platform, { ...request, placement: 'insert', confirmedCredits: 2 });
    expect(start.started).toBe(false);
    expect(start.keyRefusal).toMatch(/No API key is saved/);
    expect(asked).toEqual([]);
    expect(sheet.writes).toBe(0);
    expect(loadJob(platform)).toBeNull();
  });

  it('refuses a key the service rejects, leaving the sheet as it was and no job', () => {
    const sheet = leads();
    const { platform, asked } = starting(sheet, 'sk_test_key_9876', {
      status: 401,
      body: '{"message":"revoked"}',
    });
    const start = startRun(platform, { ...request, placement: 'insert', confirmedCredits: 2 });
    expect(start.keyRefusal).toMatch(/rejected your API key/);
    expect(start.keyRefusal).not.toContain('sk_test_key_9876');
    expect(asked).toHaveLength(1);
    expect(sheet.writes).toBe(0);
    expect(loadJob(platform)).toBeNull();
  });

  it('comes back with the plan, spending nothing, when its price differs from the one the person confirmed', () => {
    const sheet = leads();
    const { platform, asked } = starting(sheet, 'sk_test_key_9876');
    const start = startRun(platform, { ...request, placement: 'insert', confirmedCredits: 1 });
    expect(start.started).toBe(false);
    expect(start.plan?.credits).toBe(2);
    expect(asked).toEqual([]);
    expect(sheet.writes).toBe(0);
  });

  it('waits for a choice of columns when the user has data beside the URLs', () => {
    const sheet = leads();
    const { platform } = starting(sheet, 'sk_test_key_9876');
    const start = startRun(platform, { ...request, confirmedCredits: 2 });
    expect(start.started).toBe(false);
    expect(start.plan?.needsChoice).toBe(true);
    expect(sheet.writes).toBe(0);
  });

  it('shows the run under way rather than start a second one, and tells someone else whose it is', () => {
    const sheet = leads();
    const { platform } = starting(sheet, 'sk_test_key_9876');
    saveJob(platform, testJob('running', { ownerId: 'someone else', ownerName: 'bob@acme.test' }));
    const start = startRun(platform, { ...request, placement: 'insert', confirmedCredits: 2 });
    expect(start.started).toBe(false);
    expect(start.progress.message).toMatch(/already under way/);
    expect(start.progress.message).toContain('bob@acme.test');
    expect(sheet.writes).toBe(0);
  });
});

describe('enrichSelection (the menu)', () => {
  it('opens the plan in the sidebar and changes nothing in the sheet', () => {
    const sheet = leads();
    const { platform, shown, asked } = starting(sheet, 'sk_test_key_9876');
    enrichSelection(platform);
    expect(shown).toEqual(['sidebar: plan']);
    expect(asked).toEqual([]);
    expect(sheet.writes).toBe(0);
  });
});

const KEY = 'sk_live_abcdefgh1234';
const THEN = 'click Start again';

describe('checkKeyForRun', () => {
  it('refuses without a key, asking the service nothing', () => {
    const ask = jest.fn();
    const check = checkKeyForRun(THEN, null, ask);
    expect(check.refusal).toMatch(/No API key is saved for you/);
    expect(check.refusal).toContain(THEN);
    expect(ask).not.toHaveBeenCalled();
  });

  it('lets the run start with an accepted key', () => {
    const ask = jest.fn(() => ({ valid: true as const }));
    expect(checkKeyForRun(THEN, KEY, ask)).toEqual({});
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('refuses a rejected key without ever showing the key itself', () => {
    const check = checkKeyForRun(THEN, KEY, () => ({
      valid: false,
      message: `key ${KEY} is revoked`,
    }));
    expect(check.refusal).toMatch(/The service rejected your API key/);
    expect(check.refusal).toContain('revoked');
    expect(check.refusal).not.toContain(KEY);
    expect(check.refusal).toContain('1234');
  });

  it('lets the run start on any other answer (the run handles it as it does mid-run)', () => {
    expect(checkKeyForRun(THEN, KEY, () => serviceError('server_error', 'down'))).toEqual({});
    expect(checkKeyForRun(THEN, KEY, () => ({ config: 'no endpoint' }))).toEqual({});
  });
});
