/**
 * A spreadsheet for the bulk run's unit tests: one sheet over rows in memory, the real result store over plain
 * ports (test/support/store.ts), a service in memory that finds `<name>@example.test` for each profile, a lock that
 * is free unless the test says otherwise, a clock the test moves. No emulator: the run in Apps Script is in
 * test/e2e/bulk/.
 */
import type { Settings } from '../../src/api';
import { frameOf, recordBlock } from '../../src/bulk/blocks';
import { planFor } from '../../src/bulk/plan';
import { startRun } from '../../src/bulk/start';
import { resolveEndpoint, type ScriptConfig } from '../../src/core/config';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_SETTINGS } from '../../src/core/limits';
import type { CellBlock } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import type { DocumentCache, LookupPorts } from '../../src/lookup/ports';
import { serviceError } from '../../src/lookup/result';
import type { Platform } from '../../src/platform/platform';
import type { ChargeContext } from '../../src/store/credits';
import type { SheetResultStore } from '../../src/store/ports';
import { sheetResultStore } from '../../src/store/resultStore';
import { testJob } from '../support/job';
import { freeLock, MemoryProperties, MemorySheet, testClock, testPlatform } from '../support/platform';
import { found } from '../support/results';
import { memoryStorePorts } from '../support/store';

export const profile = (name: string) => `https://www.linkedin.com/in/${name}`;
/** The address the service in memory finds for a profile URL. */
export const addressOf = (url: string) => `${url.split('/in/')[1].replace(/\/$/, '')}@example.test`;
/** What fetchAll's failure after sending says of each answer of its batch. */
const LOST_CONNECTION = serviceError('transport', 'Address unavailable', { retryable: true });

export interface BulkWorldOptions {
  /** Each request takes this long on the test clock. */
  lookupMs?: number;
  stepBudgetMs?: number;
  /** BULK_SLICES. */
  slices?: number;
  cache?: DocumentCache | null;
  /** Called before each batch goes out, with the URLs it sends (another execution's work meanwhile). */
  beforeSend?: (urls: string[]) => void;
  /** Whether the connection fails for this batch after sending: fetchAll throws, every answer of it lost. */
  loses?: (urls: string[]) => boolean;
}

/**
 * A spreadsheet with one sheet holding `rows` (column A the URLs), the person's selection `selected`; `sent` lists
 * every URL sent to the service, in order. `lock` is the platform's: a test may replace its members.
 */
export function bulkWorld(rows: unknown[][], selected: CellBlock, options: BulkWorldOptions = {}) {
  const { lookupMs = 0, stepBudgetMs, cache = null, beforeSend = () => {}, loses = () => false } = options;
  const sheet = new MemorySheet(rows);
  const clock = testClock();
  const documentProperties = new MemoryProperties();
  const userProperties = new MemoryProperties();
  const store = memoryStorePorts({ documentProperties, clock });
  const sent: string[] = [];
  const settings: Settings = { ...DEFAULT_SETTINGS };
  const config: ScriptConfig = {
    endpoint: resolveEndpoint('https://api.example.test/v1'),
    maxConcurrency: DEFAULT_MAX_CONCURRENCY,
    networkHosts: DEFAULT_NETWORK_HOSTS,
    stepBudgetMs,
    slices: options.slices,
  };
  const lock: Platform['lock'] = { ...freeLock };
  const resultStore = (charges?: ChargeContext): SheetResultStore =>
    sheetResultStore(true, store.io, charges);
  const lookupPorts = (
    writable: boolean,
    charges?: ChargeContext,
    given?: SheetResultStore,
  ): LookupPorts => ({
    store: given ?? sheetResultStore(writable, store.io, charges),
    cache,
    lock: { tryWith: (work) => lock.tryWith(work) },
    clock,
    transport: {
      sendBatch: (urls) => {
        beforeSend(urls);
        sent.push(...urls);
        clock.sleep(lookupMs);
        if (loses(urls)) return { outcomes: urls.map(() => LOST_CONNECTION), sent: urls.length, lost: true };
        return { outcomes: urls.map((url) => found(addressOf(url))), sent: urls.length, lost: false };
      },
    },
  });
  const spreadsheet = {
    id: () => 'spreadsheet-1',
    sheetById: (id: number) => (id === sheet.id ? sheet : undefined),
    sheetByName: (name: string) => (name === sheet.name() ? sheet : undefined),
    activeSheet: () => sheet,
    selection: () => ({ sheet, block: selected, a1: () => 'A1', rangeCount: () => 1 }),
    flush: () => {},
    toast: () => {},
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
    lookupPorts,
    resultStore,
    foldAnswers: () => resultStore().fold().folded.results.size,
    askServiceAboutKey: () => ({ valid: true }),
  });
  return { platform, sheet, sent, clock, lock, store, documentProperties };
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
