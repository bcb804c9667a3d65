/**
 * The bulk run (src/bulk/start.ts, slice.ts, window.ts) over a platform of plain objects (test/support/platform.ts):
 * rows read and written through the sheet port, without the emulator. What it pins: every profile paid once, the
 * person's cells never written, writes in runs of adjacent rows, and a slice cut by its time budget going on where it
 * stopped.
 */
import type { Settings } from '../../src/api';
import { continueEnrichment } from '../../src/bulk/controls';
import { loadJob } from '../../src/bulk/jobStore';
import { planFor } from '../../src/bulk/plan';
import { startRun } from '../../src/bulk/start';
import { outputHeaders } from '../../src/core/cells';
import { resolveEndpoint, type ScriptConfig } from '../../src/core/config';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_SETTINGS } from '../../src/core/limits';
import type { CellBlock } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import { BULK_CLAIM, claimKey, putClaims } from '../../src/lookup/claims';
import type { DocumentCache, LookupPorts } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';
import type { Platform } from '../../src/platform/platform';
import {
  freeLock,
  MemoryProperties,
  MemorySheet,
  memoryCache,
  testClock,
  testPlatform,
} from '../support/platform';
import { found } from '../support/results';

const profile = (name: string) => `https://www.linkedin.com/in/${name}`;

interface World {
  platform: Platform;
  sheet: MemorySheet;
  /** Every URL sent to the service, in order. */
  sent: string[];
  clock: ReturnType<typeof testClock>;
}

/**
 * A spreadsheet with one sheet holding `rows` (column A the URLs), the person's selection `selected`, a store and a
 * service in memory. The service answers each request after `lookupMs` of the test clock.
 */
function world(
  rows: unknown[][],
  selected: CellBlock,
  {
    lookupMs = 0,
    stepBudgetMs,
    cache = null,
    beforeSend = () => {},
  }: {
    lookupMs?: number;
    stepBudgetMs?: number;
    cache?: DocumentCache | null;
    /** Called with the store before each batch goes out (another execution's work meanwhile). */
    beforeSend?: (stored: Map<string, LookupResult>) => void;
  } = {},
): World {
  const sheet = new MemorySheet(rows);
  const clock = testClock();
  const documentProperties = new MemoryProperties();
  const userProperties = new MemoryProperties();
  const stored = new Map<string, LookupResult>();
  const sent: string[] = [];
  const settings: Settings = { ...DEFAULT_SETTINGS };
  const config: ScriptConfig = {
    endpoint: resolveEndpoint('https://api.example.test/v1'),
    maxConcurrency: DEFAULT_MAX_CONCURRENCY,
    networkHosts: DEFAULT_NETWORK_HOSTS,
    stepBudgetMs,
  };
  const storedOf = (keys: string[]) =>
    new Map(keys.flatMap((key) => (stored.has(key) ? [[key, stored.get(key)!] as const] : [])));
  const lookupPorts = (): LookupPorts => ({
    store: {
      getMany: storedOf,
      readStored: (keys) => ({
        results: storedOf(keys),
        room: Number.POSITIVE_INFINITY,
        property: () => undefined,
      }),
      snapshot: () => (key) => (stored.has(key) ? { result: stored.get(key)!, savedAt: 0 } : undefined),
      putMany: (entries) => {
        for (const [key, result] of entries) stored.set(key, result);
      },
    },
    cache,
    lock: { tryWith: (work) => ({ value: work() }) },
    clock,
    transport: {
      sendBatch: (urls) => {
        beforeSend(stored);
        sent.push(...urls);
        clock.sleep(lookupMs);
        const outcomes = urls.map((url) => found(`${url.split('/in/')[1].replace(/\/$/, '')}@example.test`));
        return { outcomes, sent: urls.length, lost: false };
      },
    },
  });
  const spreadsheet = {
    id: () => 'spreadsheet-1',
    sheetById: (id: number) => (id === sheet.id ? sheet : undefined),
    activeSheet: () => sheet,
    selection: () => ({ sheet, block: selected, a1: () => 'A1', rangeCount: () => 1 }),
    flush: () => {},
    toast: () => {},
  };
  const platform = testPlatform({
    clock,
    lock: freeLock,
    documentProperties: () => documentProperties,
    documentPropertiesOrNull: () => documentProperties,
    userProperties: () => userProperties,
    documentCache: () => cache,
    config: () => config,
    runner: { id: () => 'runner-1', ensureId: () => 'runner-1', email: () => 'ada@example.test' },
    settings: {
      apiKey: () => 'sk_test_key_000000000000',
      saveApiKey: () => {},
      deleteApiKey: () => {},
      read: () => settings,
      save: () => {},
    },
    spreadsheet: () => spreadsheet,
    spreadsheetOrNull: () => spreadsheet,
    lookupPorts,
    keepPendingResults: () => 0,
    heldAfterLosses: () => new Map(),
    askServiceAboutKey: () => ({ valid: true }),
  });
  return { platform, sheet, sent, clock };
}

/** Starts the run the sidebar's Start would: the plan's cells, at its price. */
function start(platform: Platform) {
  const { plan } = planFor(platform, { source: 'selection', mode: 'all' });
  return startRun(platform, { target: plan.target, confirmedCredits: plan.credits });
}

describe('the bulk run over the platform ports, without the emulator', () => {
  test('every profile is paid once; the header, a duplicate and a cell that is not a profile are handled', () => {
    const rows = [
      ['Profile'],
      [profile('ada')],
      [profile('grace')],
      [profile('ada')],
      ['not a profile'],
      [''],
      [profile('alan')],
    ];
    const { platform, sheet, sent } = world(rows, { row: 1, column: 1, rows: 7, columns: 1 });
    const outcome = start(platform);
    expect(outcome.started).toBe(true);
    expect(outcome.progress.state).toBe('done');
    expect(sent.map((url) => url.replace(/\/$/, '').split('/in/')[1]).sort()).toEqual([
      'ada',
      'alan',
      'grace',
    ]);
    expect(sheet.rows[0].slice(0, 3)).toEqual(['Profile', 'Email', 'Email status']);
    expect(sheet.rows[1][1]).toBe('ada@example.test');
    expect(sheet.rows[3][1]).toBe('ada@example.test');
    expect(sheet.rows[4][2]).toBe('INVALID_URL');
    expect(sheet.rows[5].slice(1).every((cell) => cell === '' || cell === undefined)).toBe(true);
    expect(sheet.rows[6][1]).toBe('alan@example.test');
    expect(loadJob(platform)?.counts.creditsUsed).toBe(3);
  });

  /** A header with the add-on's titles: a new run writes beside it, in the same columns. */
  const titled = () => ['Profile', ...outputHeaders(false)];

  test("a row whose output cell holds the person's formula is never written, and nothing is spent on it", () => {
    const rows = [
      titled(),
      [profile('ada')],
      [profile('grace'), '=A3'],
      [profile('alan')],
      [profile('edsger')],
    ];
    const { platform, sheet, sent } = world(rows, { row: 1, column: 1, rows: 5, columns: 1 });
    const outcome = start(platform);
    expect(outcome.plan?.placement.kind).toBe('reuse');
    expect(outcome.progress.state).toBe('done');
    expect(sheet.rows[2][1]).toBe('=A3');
    expect(sent.some((url) => url.includes('/grace'))).toBe(false);
    expect([1, 3, 4].map((row) => sheet.rows[row][1])).toEqual([
      'ada@example.test',
      'alan@example.test',
      'edsger@example.test',
    ]);
  });

  test('a window writes its rows in runs of adjacent rows: one write per run, around a row it may not write', () => {
    const rows = [
      titled(),
      [profile('a1')],
      [profile('a2')],
      [profile('a3'), '=NOW()'],
      [profile('a4')],
      [profile('a5')],
    ];
    const { platform, sheet } = world(rows, { row: 1, column: 1, rows: 6, columns: 1 });
    const writes: Array<[number, number]> = [];
    const write = sheet.write.bind(sheet);
    sheet.write = (row, column, values) => {
      writes.push([row, values.length]);
      write(row, column, values);
    };
    start(platform);
    // The header's titles (row 1), then two runs of results: rows 2-3 and 5-6.
    expect(writes).toEqual([
      [1, 1],
      [2, 2],
      [5, 2],
    ]);
    expect(sheet.rows[3][1]).toBe('=NOW()');
  });

  test('a slice out of time stops at a row and the next one goes on from there: each profile paid once', () => {
    const rows = Array.from({ length: 300 }, (_, index) => [profile(`p${index}`)]);
    // 4 s of the test clock a batch, slices of 10 s: a slice sends at most a few batches.
    const { platform, sheet, sent } = world(
      rows,
      { row: 1, column: 1, rows: 300, columns: 1 },
      {
        lookupMs: 4_000,
        stepBudgetMs: 10_000,
      },
    );
    const started = start(platform);
    // More lookups than one batch: Start answers at once, the sidebar drives the slices.
    expect(started.progress.state).toBe('running');
    expect(sent).toHaveLength(0);
    const first = { progress: continueEnrichment(platform) };
    expect(first.progress.state).toBe('running');
    const afterFirst = loadJob(platform);
    // The rows left: the first row never leased, or the first left in a window the slice gave back.
    const leftFrom = Math.min(afterFirst?.cursor ?? 0, ...(afterFirst?.windows ?? []).map((w) => w.from));
    expect(leftFrom).toBeGreaterThan(1);
    expect(leftFrom).toBeLessThanOrEqual(300);
    expect(afterFirst?.leaseUntil).toBe(0);
    let progress = first.progress;
    for (let slice = 0; slice < 50 && progress.state === 'running'; slice++)
      progress = continueEnrichment(platform);
    expect(progress.state).toBe('done');
    expect(new Set(sent).size).toBe(300);
    expect(sent).toHaveLength(300);
    expect(sheet.rows.every((row) => String(row[1]).endsWith('@example.test'))).toBe(true);
  });

  test('a row whose profile another slice of the run is looking up does not stop the slice: the next pass writes it, unpaid here', () => {
    const rows = Array.from({ length: 150 }, (_, index) => [profile(`p${index}`)]);
    // Another slice of the run holds p5's claim (its batch under way) and stores its answer meanwhile.
    const cache = memoryCache();
    const held = 'https://linkedin.com/in/p5';
    putClaims(cache, [held], BULK_CLAIM, 360);
    expect(cache.get(claimKey(held))).toBe(BULK_CLAIM);
    // It answers while this slice's second batch is under way: after this slice wrote its first window.
    let batches = 0;
    const { platform, sheet, sent } = world(
      rows,
      { row: 1, column: 1, rows: 150, columns: 1 },
      {
        cache,
        beforeSend: (stored) => {
          if (++batches !== 2) return;
          stored.set(held, found('p5@example.test'));
          cache.remove(claimKey(held));
        },
      },
    );
    expect(start(platform).progress.state).toBe('running');
    // One slice does the whole run: it went past p5's row, and the pass over the range wrote p5 from the store.
    const progress = continueEnrichment(platform);
    expect(progress.state).toBe('done');
    expect(sent).not.toContain('https://www.linkedin.com/in/p5/');
    expect(sent).toHaveLength(149);
    expect(new Set(sent).size).toBe(149);
    expect(sheet.rows[5][1]).toBe('p5@example.test');
    expect(sheet.rows.every((row) => String(row[1]).endsWith('@example.test'))).toBe(true);
  });
});
