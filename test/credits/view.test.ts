/**
 * The Credits export over a credits log port: the log copied in steps into a new sheet, leaving out rows edited by
 * hand, stopping at the end it saw first, refusing a sheet it did not make; and the record of lookups a plan that
 * spends credits carries. The Credits tab in the emulator: test/e2e/credits/view.test.ts.
 */
import type { RunPlan } from '../../src/api';
import { stableHash } from '../../src/core/hash';
import { EXPORT_ROWS_PER_CALL } from '../../src/core/limits';
import type { CreditsLogSheet, Platform } from '../../src/core/ports';
import { JOB_PROPERTY } from '../../src/core/propertyNames';
import type { SheetPort, SpreadsheetPort } from '../../src/core/sheet';
import { parseNetworkHosts } from '../../src/core/url';
import { EXPORT_HEADER } from '../../src/credits/exportRows';
import { exportCreditsLog, withLookupRecord } from '../../src/credits/view';
import { LOST_OUTCOME_TEXT } from '../../src/store/credits';
import { summarizeCredits } from '../../src/store/creditsSummary';
import { testJob } from '../support/job';
import {
  freeLock,
  MemoryProperties,
  MemorySheet,
  memoryHiddenSheet,
  testClock,
  testPlatform,
} from '../support/platform';

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const OWNER = 'owner@example.com';
const OWNER_RUNNER = 'owner-runner-id';
const payerId = (runner: string) => stableHash(runner).slice(0, 8);
const url = (slug: string) => `https://www.network.com/in/${slug}`;

/** The credits log in memory (row 1 its header), and the export sheets made from it; counts the reads. */
class MemoryCreditsLog implements CreditsLogSheet {
  readonly exports = new Map<string, unknown[][]>();
  readonly reads: Array<[number, number]> = [];

  constructor(readonly rows: string[][]) {}

  append(rows: string[][]): void {
    this.rows.push(...rows);
  }
  readRows(): unknown[][] | null {
    return this.rows;
  }
  readOutcomes(): unknown[] | null {
    return this.rows.map((row) => row[5]);
  }
  lastRow(): number {
    return this.rows.length + 1;
  }
  readRowsBetween(first: number, last: number): unknown[][] {
    this.reads.push([first, last]);
    return this.rows.slice(first - 2, last - 1);
  }
  createExport(name: string): string {
    const sheetName = this.exports.has(name) ? `${name} (2)` : name;
    this.exports.set(sheetName, [EXPORT_HEADER]);
    return sheetName;
  }
  writeExport(sheetName: string, first: number, rows: unknown[][]): boolean {
    const sheet = this.exports.get(sheetName);
    if (!sheet) return false;
    // Each step writes right below the last: no gap, no overlap.
    expect(first).toBe(sheet.length + 1);
    sheet.push(...rows);
    return true;
  }
}

/** The spreadsheet a person exports from: their sheet "Sheet1" (the one they are on), and others by name. */
function spreadsheetOf(sheets: MemorySheet[]): SpreadsheetPort {
  return {
    id: () => 'spreadsheet-1',
    sheetById: (id) => sheets.find((sheet) => sheet.id === id),
    sheetByName: (name) => sheets.find((sheet) => sheet.name() === name),
    activeSheet: () => sheets[0] as SheetPort,
    selection: () => null,
    flush: () => {},
  };
}

describe('the Credits export over a credits log port', () => {
  function platformOver(
    log: MemoryCreditsLog,
    document = new MemoryProperties(),
    sheets = [new MemorySheet([])],
  ) {
    let kept = 0;
    const platform = testPlatform({
      creditsLog: log,
      clock: testClock(),
      spreadsheet: () => spreadsheetOf(sheets),
      config: () => ({ networkHosts: parseNetworkHosts('network.com') }) as ReturnType<Platform['config']>,
      documentProperties: () => document,
      resultsSheet: memoryHiddenSheet(),
      lock: {
        ...freeLock,
        tryWith: (work) => {
          kept++;
          return { value: work() };
        },
      },
    });
    return { platform, kept: () => kept };
  }

  function loggedRows(count: number): string[][] {
    return Array.from({ length: count }, (_, i) => [
      '2026-11-20T10:00:00Z',
      'run',
      OWNER,
      payerId(OWNER_RUNNER),
      url(`row-${i}`),
      i % 2 ? 'found' : 'no address',
      "run r-1 · 'Sheet1'!A2:A20000",
    ]);
  }

  it('copies the log in steps of EXPORT_ROWS_PER_CALL rows, leaving out rows edited by hand, not blank rows or notes', () => {
    const rows = loggedRows(2 * EXPORT_ROWS_PER_CALL + 1);
    rows[3] = ['not a time', 'run', OWNER, '', url('x'), 'found', ''];
    rows[4] = ['', '', '', '', '', '', ''];
    rows[EXPORT_ROWS_PER_CALL + 7] = [
      '2026-11-21T08:00:00Z',
      'watch',
      OWNER,
      '',
      '',
      'stopped: out of credits',
      '',
    ];
    const log = new MemoryCreditsLog(rows);
    log.createExport('Credits log');
    const { platform, kept } = platformOver(log);

    const steps = [exportCreditsLog(platform)];
    while (!steps[steps.length - 1].done && steps.length < 10)
      steps.push(exportCreditsLog(platform, steps[steps.length - 1]));

    expect(steps).toHaveLength(3);
    expect(steps[0]).toMatchObject({
      sheetName: 'Credits log (2)',
      next: 2 + EXPORT_ROWS_PER_CALL,
      done: false,
    });
    expect(steps[0].message).toBe('Exporting into "Credits log (2)": 5,000 of 10,001 rows…');
    expect(log.reads).toEqual([
      [2, 1 + EXPORT_ROWS_PER_CALL],
      [2 + EXPORT_ROWS_PER_CALL, 1 + 2 * EXPORT_ROWS_PER_CALL],
      [2 + 2 * EXPORT_ROWS_PER_CALL, 2 + 2 * EXPORT_ROWS_PER_CALL],
    ]);
    expect(steps[2]).toMatchObject({ done: true, written: rows.length - 2, skipped: 1 });
    // The watch's note is copied, and not counted as a charge: the count is the Credits tab's.
    const tab = summarizeCredits(rows, Date.UTC(2026, 10, 22), '', utcDay);
    expect(tab.total).toBe(9_998);
    expect(steps[2].message).toBe(
      'Exported 9,998 charges into the sheet "Credits log (2)", with 1 note of the watch (not charges). 1 row of the log could not be read (edited by hand) and was left out.',
    );
    // Each row as the export writes it: the profile as written in the sheet (here in no sheet: ''), the credits.
    const exported = log.exports.get('Credits log (2)') ?? [];
    expect(exported[0]).toEqual(EXPORT_HEADER);
    expect(exported.slice(1)).toEqual(
      rows
        .filter((_, i) => i !== 3 && i !== 4)
        .map(([when, source, payer, id, profile, outcome, where]) => [
          when,
          source,
          payer,
          id,
          '',
          profile,
          outcome,
          profile ? 1 : 0,
          where,
        ]),
    );
    // What formulas paid for is folded into the log once (one hold of the lock), before the export reads where it ends.
    expect(kept()).toBe(1);
  });

  it("stops at the log's end it saw first, never reads past the log as it is, and says when a run's charges still come", () => {
    const log = new MemoryCreditsLog(loggedRows(EXPORT_ROWS_PER_CALL + 10));
    const document = new MemoryProperties();
    const { platform } = platformOver(log, document);
    const first = exportCreditsLog(platform);
    expect(first).toMatchObject({ done: false, last: EXPORT_ROWS_PER_CALL + 11 });
    // Charges logged during the export (a run under way) are not in it, and the message says so.
    log.append(loggedRows(20));
    document.values.set(JOB_PROPERTY, JSON.stringify(testJob('running')));
    const second = exportCreditsLog(platform, first);
    expect(second).toMatchObject({ done: true, written: EXPORT_ROWS_PER_CALL + 10 });
    expect(second.message).toMatch(
      /A run is under way: its charges after you pressed Export are not in this sheet/,
    );
    expect(log.reads[log.reads.length - 1]).toEqual([EXPORT_ROWS_PER_CALL + 2, EXPORT_ROWS_PER_CALL + 11]);

    // A request that comes back claiming a longer log reads only what there is.
    const sheetName = log.createExport('Forged length');
    const forged = exportCreditsLog(platform, { sheetName, next: 2, last: 500_000, written: 0, skipped: 0 });
    expect(log.reads[log.reads.length - 1]).toEqual([2, 1 + EXPORT_ROWS_PER_CALL]);
    expect(forged.last).toBe(EXPORT_ROWS_PER_CALL + 31);
  });

  it("writes each profile as the person's sheet has it beside the one sent, and what it cost (a lost answer 0)", () => {
    const written = ['https://WWW.network.com/in/Ann-Able/?trk=x', 'http://network.com/in/bob-bay/'];
    const runSheet = new MemorySheet([['Profile'], [written[0]], [written[1]]], { id: 2, name: 'Leads 2' });
    const formulasSheet = new MemorySheet([
      ['Profile', 'Email'],
      ['https://network.com/in/cy-cole', ''],
    ]);
    const log = new MemoryCreditsLog([
      [
        '2026-11-20T10:00:00Z',
        'run',
        OWNER,
        'p1',
        'https://network.com/in/ann-able',
        'found',
        "run r-1 · 'Leads 2'!A2:A3",
      ],
      [
        '2026-11-20T10:00:00Z',
        'run',
        OWNER,
        'p1',
        'https://network.com/in/bob-bay',
        LOST_OUTCOME_TEXT,
        "run r-1 · 'Leads 2'!A2:A3",
      ],
      [
        '2026-11-20T10:01:00Z',
        'formulas',
        'key',
        'formulas',
        'https://network.com/in/cy-cole',
        'no address',
        '=FINDEMAIL',
      ],
      [
        '2026-11-20T10:02:00Z',
        'watch',
        OWNER,
        'p1',
        'https://network.com/in/dee-dunn',
        'found',
        "watch w-1 · 'Gone'!A row 9",
      ],
    ]);
    const { platform } = platformOver(log, new MemoryProperties(), [formulasSheet, runSheet]);
    expect(exportCreditsLog(platform)).toMatchObject({ done: true, written: 4 });
    const exported = (log.exports.get('Credits log') ?? []).slice(1);
    expect(exported.map((row) => [row[4], row[5], row[7]])).toEqual([
      [written[0], 'https://network.com/in/ann-able', 1],
      [written[1], 'https://network.com/in/bob-bay', 0],
      ['https://network.com/in/cy-cole', 'https://network.com/in/cy-cole', 1],
      ['', 'https://network.com/in/dee-dunn', 1],
    ]);
  });

  it('refuses to write into a sheet the export did not make, and exports nothing from an empty log', () => {
    const empty = platformOver(new MemoryCreditsLog([]));
    expect(exportCreditsLog(empty.platform)).toMatchObject({ done: true, written: 0, sheetName: '' });
    const log = new MemoryCreditsLog(loggedRows(3));
    expect(() =>
      exportCreditsLog(platformOver(log).platform, {
        sheetName: 'Sheet1',
        next: 2,
        last: 4,
        written: 0,
        skipped: 0,
      }),
    ).toThrow(/press Export in the Credits tab again/);
  });

  it("adds this spreadsheet's record of lookups to a plan that spends credits, and nothing to one that does not", () => {
    const log = new MemoryCreditsLog(loggedRows(9));
    log.append([['2026-11-21T08:00:00Z', 'run', OWNER, '', url('lost'), LOST_OUTCOME_TEXT, '']]);
    const { platform } = platformOver(log);
    const plan = { credits: 4 } as RunPlan;
    expect(withLookupRecord(platform, plan).lookupRecord).toEqual({ lookups: 9, found: 4 });
    expect(withLookupRecord(platform, { credits: 0 } as RunPlan).lookupRecord).toBeUndefined();
  });
});
