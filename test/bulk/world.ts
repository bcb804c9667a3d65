/**
 * A spreadsheet for the bulk run's unit tests: one sheet over rows in memory, the real store over hidden sheets in
 * memory, a service in memory (test/support/platform.ts) that finds `<name>@example.test` for each profile, a lock that
 * is free unless the test says otherwise, a clock the test moves. No emulator: the run in Apps Script is in
 * test/e2e/bulk/.
 */
import type { Settings } from '../../src/api';
import { frameOf, recordBlock } from '../../src/bulk/blocks';
import { planFor } from '../../src/bulk/plan';
import { startRun } from '../../src/bulk/start';
import { resolveEndpoint, type ScriptConfig } from '../../src/core/config';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_SETTINGS } from '../../src/core/limits';
import type { DocumentCache, Platform } from '../../src/core/ports';
import type { CellBlock } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import { creditsLogOn } from '../../src/store/creditsLog';
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

export const profile = (name: string) => `https://www.linkedin.com/in/${name}`;

export interface BulkWorldOptions {
  /** Each batch takes this long on the test clock. */
  lookupMs?: number;
  stepBudgetMs?: number;
  /** BULK_SLICES. */
  slices?: number;
  cache?: DocumentCache | null;
  /** Called before each batch goes out, with the URLs it sends (another execution's work meanwhile). */
  beforeSend?: (urls: string[]) => void;
}

/**
 * A spreadsheet with one sheet holding `rows` (column A the URLs), the person's selection `selected`; `sent` lists
 * every URL sent to the service, in order. `lock` is the platform's: a test may replace its members.
 */
export function bulkWorld(rows: unknown[][], selected: CellBlock, options: BulkWorldOptions = {}) {
  const { lookupMs = 0, stepBudgetMs, cache = null, beforeSend = () => {} } = options;
  const sheet = new MemorySheet(rows);
  const clock = testClock();
  const documentProperties = new MemoryProperties();
  const userProperties = new MemoryProperties();
  const transport = memoryTransport({
    clock,
    before: (urls) => {
      beforeSend(urls);
      clock.sleep(lookupMs);
    },
  });
  const settings: Settings = { ...DEFAULT_SETTINGS };
  const config: ScriptConfig = {
    endpoint: resolveEndpoint('https://api.example.test/v1'),
    maxConcurrency: DEFAULT_MAX_CONCURRENCY,
    networkHosts: DEFAULT_NETWORK_HOSTS,
    stepBudgetMs,
    slices: options.slices,
  };
  const lock: Platform['lock'] = { ...freeLock };
  const log: string[][] = [];
  const creditsSheet = memoryHiddenSheet();
  const spreadsheet = {
    id: () => 'spreadsheet-1',
    sheetById: (id: number) => (id === sheet.id ? sheet : undefined),
    sheetByName: (name: string) => (name === sheet.name() ? sheet : undefined),
    activeSheet: () => sheet,
    selection: () => ({ sheet, block: selected, a1: () => 'A1', rangeCount: () => 1 }),
    flush: () => {},
  };
  const platform = testPlatform({
    clock,
    lock,
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
    transport,
    resultsSheet: memoryHiddenSheet(),
    creditsLog: {
      ...creditsLogOn(creditsSheet),
      append: (rows) => {
        log.push(...rows);
      },
    } as Platform['creditsLog'],
  });
  return { platform, sheet, sent: transport.sent, clock, lock, log, documentProperties };
}

export type BulkWorld = ReturnType<typeof bulkWorld>;

/** Starts the run the sidebar's Start would: the plan's cells, at its price. */
export function start(platform: Platform) {
  const { plan } = planFor(platform, { source: 'selection', mode: 'all' });
  return startRun(platform, { target: plan.target, confirmedCredits: plan.credits });
}

/**
 * Records rows `firstRow`..`lastRow` beside column A (B on) as a block of the add-on's (src/bulk/blocks.ts), as an
 * earlier run over them leaves it: the only cells a run may write over.
 */
export function ownRows({ platform, sheet }: BulkWorld, firstRow: number, lastRow: number): void {
  recordBlock(
    platform,
    frameOf(
      testJob('done', {
        id: `earlier-${firstRow}-${lastRow}`,
        sheetId: sheet.id,
        urlColumn: 1,
        outputColumn: 2,
        headerRow: firstRow > 1 ? 1 : null,
        firstRow,
        lastRow,
        maxRows: sheet.maxRows(),
        maxColumns: sheet.maxColumns(),
      }),
    ),
  );
}
