/**
 * A watch over the test platform (test/support/platform.ts), without the emulator: the document's properties in
 * memory, the credits log as an array, each user's watch triggers counted, a clock the test moves.
 */
import { resolveEndpoint, type ScriptConfig } from '../../src/core/config';
import type { Clock, Platform } from '../../src/core/ports';
import { JOB_PROPERTY, WATCH_PROPERTY } from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import { parseWatch } from '../../src/watch/store';
import type { Watch } from '../../src/watch/watch';
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

export const CREATOR = 'runner-creator';
export const CREATOR_EMAIL = 'creator@example.com';
export const EDITOR = 'runner-editor';
export const EDITOR_EMAIL = 'editor@example.com';

/** The clock of a spreadsheet whose time zone is 10 hours ahead of UTC (no summer time), at `utc`. */
export function clockTenHoursAhead(utc: number): Clock & { at: number } {
  const clock = testClock(utc);
  clock.day = (ms) => new Date(ms + 10 * 3_600_000).toISOString().slice(0, 10);
  return clock;
}

/** A watch the creator started on 27 Nov 2026 (UTC), 4 of its 10 credits used that day. */
export function watchRecord(extra: Partial<Watch> = {}): Watch {
  return {
    sheetId: 7,
    sheetName: 'Leads',
    urlColumn: 2,
    topRow: 1,
    headerText: 'Profile URL',
    limit: 10,
    creatorId: CREATOR,
    creatorName: CREATOR_EMAIL,
    startedAt: Date.UTC(2026, 10, 27, 8),
    state: 'watching',
    day: '2026-11-27',
    usedToday: 4,
    jobCredits: 0,
    message: 'Started. New rows are looked up when they arrive.',
    triggerIds: ['t-open', 't-change', 't-form'],
    ...extra,
  };
}

/** The spreadsheet shared by every execution of a test: its properties, its credits log, who holds triggers. */
export class WatchedDocument {
  readonly properties = new MemoryProperties();
  readonly log: string[][] = [];
  /** Runner ids whose watch triggers are installed. */
  readonly triggers = new Set<string>([CREATOR]);
  readonly clock = testClock();

  constructor(watch: Watch | null = watchRecord()) {
    if (watch) this.properties.values.set(WATCH_PROPERTY, JSON.stringify(watch));
  }

  stored(): Watch | null {
    const raw = this.properties.values.get(WATCH_PROPERTY);
    return parseWatch(raw);
  }

  /** Another run of the spreadsheet (a bulk run) under way, started by `ownerId`. */
  runUnderWay(ownerId: string): void {
    this.properties.values.set(JOB_PROPERTY, JSON.stringify(testJob('running', { id: 'job-1', ownerId })));
  }

  /** An execution of `runnerId` (null: a user who never used the add-on) on this spreadsheet. */
  as(
    runnerId: string | null,
    {
      email = '',
      clock = this.clock,
      apiKey = null,
    }: { email?: string; clock?: Clock; apiKey?: string | null } = {},
  ): Platform {
    return testPlatform({
      clock,
      lock: freeLock,
      documentProperties: () => this.properties,
      documentPropertiesOrNull: () => this.properties,
      config: () => ({ stepBudgetMs: 5_000 }) as ScriptConfig,
      runner: {
        id: () => runnerId,
        ensureId: () => {
          if (runnerId === null) throw new Error('The test gives this execution no runner id.');
          return runnerId;
        },
        email: () => email,
      },
      settings: { apiKey: () => apiKey } as Platform['settings'],
      creditsLog: {
        append: (rows) => {
          this.log.push(...rows);
        },
      } as Platform['creditsLog'],
      triggers: {
        create: () => [],
        deleteMine: () => {
          const had = runnerId !== null && this.triggers.delete(runnerId);
          return had ? 3 : 0;
        },
        delete: () => {
          throw new Error('The test gives this execution no trigger ids to delete.');
        },
        present: () => runnerId !== null && this.triggers.has(runnerId),
      },
    });
  }
}

/**
 * The creator's execution pressing Start in the Watch tab: their key saved (and accepted), cell B1 of the sheet
 * "Leads" (id 7, holding `rows`) selected, nothing in the result store; `given` replaces members (the triggers, the
 * clock, the key check).
 */
export function creatorStarting(
  doc: WatchedDocument,
  rows: unknown[][],
  given: Partial<Platform> = {},
): Platform {
  const sheet = new MemorySheet(rows, { id: 7, name: 'Leads' });
  const spreadsheet: Partial<SpreadsheetPort> = {
    selection: () => ({
      sheet,
      block: { row: 1, column: 2, rows: 1, columns: 1 },
      a1: () => 'B1',
      rangeCount: () => 1,
    }),
  };
  const base = doc.as(CREATOR, { email: CREATOR_EMAIL, apiKey: 'creator-key' });
  return testPlatform({
    clock: base.clock,
    lock: base.lock,
    documentProperties: base.documentProperties,
    runner: base.runner,
    settings: {
      ...base.settings,
      read: () => ({ extraFields: false, writeHeader: true }),
    } as Platform['settings'],
    config: () => ({
      ...base.config(),
      networkHosts: DEFAULT_NETWORK_HOSTS,
      endpoint: resolveEndpoint('https://api.example.test/v1'),
    }),
    resultsSheet: memoryHiddenSheet(),
    transport: memoryTransport(),
    triggers: base.triggers,
    spreadsheet: () => spreadsheet as SpreadsheetPort,
    ...given,
  });
}
