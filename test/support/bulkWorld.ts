/**
 * A bulk run over a platform of plain objects (./platform.ts), without the emulator: one sheet's rows, the person's
 * selection, a store and a service in memory (test/bulk/window.test.ts, test/bulk/promises.test.ts).
 */
import type { Settings } from '../../src/api';
import { planFor } from '../../src/bulk/plan';
import { startRun } from '../../src/bulk/start';
import { resolveEndpoint, type ScriptConfig } from '../../src/core/config';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_SETTINGS } from '../../src/core/limits';
import type { CellBlock } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import type { DocumentCache, LookupPorts } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';
import type { Platform } from '../../src/platform/platform';
import { freeLock, MemoryProperties, MemorySheet, testClock, testPlatform } from './platform';
import { found } from './results';

/** A profile URL of the default network. */
export const profile = (name: string) => `https://www.linkedin.com/in/${name}`;

export interface BulkWorld {
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
export function bulkWorld(
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
): BulkWorld {
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
export function startPlanned(platform: Platform) {
  const { plan } = planFor(platform, { source: 'selection', mode: 'all' });
  return startRun(platform, { target: plan.target, confirmedCredits: plan.credits });
}
