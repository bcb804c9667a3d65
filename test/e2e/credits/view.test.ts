/**
 * The Credits tab's server side: the log summed up in one execution (100,000 charges), and
 * Export into a new visible sheet over several executions (20,000 rows), with its bad inputs: a sheet of that name
 * exists, a log edited by hand, a run under way, a sheet name the sidebar did not get from the export.
 */
import type { CreditsExport, CreditsSummary, RunPlan } from '../../../src/api';
import { stableHash } from '../../../src/core/hash';
import { EXPORT_ROWS_PER_CALL } from '../../../src/core/limits';
import { CREDITS_SHEET, JOB_PROPERTY, RUNNER_ID_PROPERTY } from '../../../src/core/propertyNames';
import { exportCreditsLog, withLookupRecord } from '../../../src/credits/view';
import type { CreditsLogSheet } from '../../../src/platform/platform';
import { CREDITS_HEADER, LOST_OUTCOME_TEXT } from '../../../src/store/credits';
import { summarizeCredits } from '../../../src/store/creditsSummary';
import { drive, start } from '../../bulk/helpers';
import { EDITOR, OWNER, startWorld, url, type World } from '../../support/harness';
import { MemoryProperties, testClock, testPlatform } from '../../support/platform';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const DAY = 24 * 3600 * 1000;
const OWNER_RUNNER = 'owner-runner-id';
const EDITOR_RUNNER = 'editor-runner-id';
const payerId = (runner: string) => stableHash(runner).slice(0, 8);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Writes a log into the world's spreadsheet as the add-on lays it out (src/store/credits.ts). */
function seedLog(w: World, rows: string[][]): void {
  const sheet = w.ss.addSheet(CREDITS_SHEET, rows.length + 1, CREDITS_HEADER.length);
  [CREDITS_HEADER, ...rows].forEach((row, r) => {
    row.forEach((value, c) => {
      sheet.ensure(r + 1, c + 1).value = value;
    });
  });
}

interface Seeded {
  rows: string[][];
  expected: Record<string, number>;
}

/** `count` charges spread over 40 days: the owner's two runs, the editor's run, formulas; every 17th lost. */
function charges(count: number, now: number): Seeded {
  const expected: Record<string, number> = {
    today: 0,
    last7: 0,
    last30: 0,
    total: 0,
    lostTotal: 0,
    owner: 0,
    editor: 0,
    formulas: 0,
    found: 0,
  };
  const midnight = Math.floor(now / DAY) * DAY;
  const rows: string[][] = [];
  for (let i = 0; i < count; i++) {
    const at = now - Math.floor((i / count) * 40 * DAY) - 1000;
    const lost = i % 17 === 0;
    const found = !lost && i % 3 !== 0;
    const who = i % 4;
    const row =
      who === 0
        ? ['formulas', "the spreadsheet owner's key", 'formulas', url(`p-${i}`), '', '=FINDEMAIL']
        : who === 1
          ? ['run', EDITOR, payerId(EDITOR_RUNNER), url(`p-${i}`), '', "run r-editor · 'Sheet1'!F2:F9000"]
          : [
              'run',
              OWNER,
              payerId(OWNER_RUNNER),
              url(`p-${i}`),
              '',
              `run r-owner-${who} · 'Sheet1'!A2:A9000`,
            ];
    row[4] = lost ? LOST_OUTCOME_TEXT : found ? 'found' : 'no address';
    rows.push([iso(at), ...row]);
    if (lost) {
      expected.lostTotal++;
      continue;
    }
    expected.total++;
    if (found) expected.found++;
    if (at >= midnight) expected.today++;
    if (now - at < 7 * DAY) expected.last7++;
    if (now - at < 30 * DAY) expected.last30++;
    expected[who === 0 ? 'formulas' : who === 1 ? 'editor' : 'owner']++;
  }
  return { rows, expected };
}

describe('the Credits tab', () => {
  it('sums 100,000 logged charges in one execution and one read of the log, for the owner and an editor', async () => {
    world = await startWorld();
    world.env.userProperties(OWNER).set({ [RUNNER_ID_PROPERTY]: OWNER_RUNNER });
    world.env.userProperties(EDITOR).set({ [RUNNER_ID_PROPERTY]: EDITOR_RUNNER });
    const now = Date.now();
    const { rows, expected } = charges(100_000, now);
    rows.splice(500, 0, ['edited by hand', 'x'], ['', '', '', '', '', '', '']);
    seedLog(world, rows);
    world.env.resetCounts();
    const summary = (await world.env.run('getCreditsSummary', [], world.as())) as CreditsSummary;
    expect(world.env.counts['Range.getValues'] ?? world.env.counts.getValues).toBe(1);
    expect(summary).toMatchObject({
      hasLog: true,
      today: expected.today,
      last7: expected.last7,
      last30: expected.last30,
      total: expected.total,
      lostTotal: expected.lostTotal,
      found: expected.found,
      unreadable: 1,
    });
    const credit = (s: CreditsSummary, source: string, payer: string) =>
      s.sources.find((x) => x.source === source && x.payer === payer);
    expect(credit(summary, 'formulas', "the spreadsheet owner's key")?.credits).toBe(expected.formulas);
    expect(credit(summary, 'run', EDITOR)).toMatchObject({ credits: expected.editor, mine: false });
    expect(credit(summary, 'run', OWNER)).toMatchObject({ credits: expected.owner, mine: true });
    expect(summary.runs.map((run) => run.runId).sort()).toEqual(['r-editor', 'r-owner-2', 'r-owner-3']);
    const seen = (await world.env.run('getCreditsSummary', [], world.as(EDITOR))) as CreditsSummary;
    expect(credit(seen, 'run', EDITOR)?.mine).toBe(true);
    expect(credit(seen, 'run', OWNER)?.mine).toBe(false);
    expect(credit(seen, 'formulas', "the spreadsheet owner's key")?.credits).toBe(expected.formulas);
  }, 120_000);

  it('exports 20,000 rows into "Credits log (2)" over several executions, skipping what was edited by hand', async () => {
    world = await startWorld();
    const { rows } = charges(20_500, Date.now());
    rows[10] = ['not a time', 'run', OWNER, '', url('x'), 'found', ''];
    rows[11] = ['', '', '', '', '', '', ''];
    rows[12][5] = 'whatever';
    seedLog(world, rows);
    const mine = world.ss.addSheet('Credits log', 10, 3);
    mine.ensure(1, 1).value = 'my own notes';
    const messages: string[] = [];
    let step = (await world.env.run('exportCreditsLog', [{}], world.as())) as CreditsExport;
    let steps = 1;
    messages.push(step.message);
    while (!step.done && steps < 20) {
      step = (await world.env.run('exportCreditsLog', [step], world.as())) as CreditsExport;
      messages.push(step.message);
      steps++;
    }
    expect(step.done).toBe(true);
    expect(steps).toBe(5);
    expect(step.sheetName).toBe('Credits log (2)');
    expect(messages[0]).toBe('Exporting into "Credits log (2)": 5,000 of 20,500 rows…');
    // The charges the Credits tab counts; the lost answers apart, said so.
    const tab = (await world.env.run('getCreditsSummary', [], world.as())) as CreditsSummary;
    expect(tab.lostTotal).toBeGreaterThan(0);
    expect(step.lost).toBe(tab.lostTotal);
    expect(step.message).toBe(
      `Exported ${tab.total.toLocaleString('en-US')} charges into the sheet "Credits log (2)", with ${tab.lostTotal.toLocaleString('en-US')} answers lost (maybe charged) (not charges). 2 rows of the log could not be read (edited by hand) and were left out.`,
    );
    expect(tab.total + tab.lostTotal).toBe(20_497);
    expect(world.env.values(world.ss.id, 'A1', 'Credits log')).toEqual([['my own notes']]);
    const kept = rows.filter((_, i) => i < 10 || i > 12);
    const exported = world.env.values(world.ss.id, `A1:G${kept.length + 1}`, 'Credits log (2)');
    expect(exported[0]).toEqual(CREDITS_HEADER);
    expect(exported.slice(1)).toEqual(kept);
    // A sheet name the export did not make is never written.
    const before = world.env.values(world.ss.id, 'A1:A3', 'Sheet1');
    const forged = await world.env.execute(
      'exportCreditsLog',
      [{ sheetName: 'Sheet1', next: 2, last: 50, written: 0, skipped: 0 }],
      world.as(),
    );
    expect(forged.error?.message).toMatch(/press Export in the Credits tab again/);
    expect(world.env.values(world.ss.id, 'A1:A3', 'Sheet1')).toEqual(before);
  }, 120_000);

  it('exports while a run is under way, and says that its later charges are not in the sheet', async () => {
    world = await startWorld({
      data: [['Profile'], ...Array.from({ length: 30 }, (_, i) => [url(`ex-run-${i}`)])],
      scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '1' },
      faults: { latencyMs: 200 },
    });
    expect((await start(world, 'A1:A31')).state).toBe('running');
    const during = (await world.env.run('exportCreditsLog', [{}], world.as())) as CreditsExport;
    expect(during.done).toBe(true);
    expect(during.message).toMatch(
      /A run is under way: its charges after you pressed Export are not in this sheet/,
    );
    expect(during.written).toBeGreaterThan(0);
    expect(during.written).toBeLessThan(30);
    expect((await drive(world)).state).toBe('done');
    const after = (await world.env.run('exportCreditsLog', [{}], world.as())) as CreditsExport;
    expect(after).toMatchObject({ done: true, written: 30, sheetName: 'Credits log (2)' });
    expect(after.message).toBe('Exported 30 charges into the sheet "Credits log (2)".');
    expect(world.env.values(world.ss.id, 'A2:A31', 'Credits log (2)').flat().every(Boolean)).toBe(true);
  }, 120_000);
});

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
    this.exports.set(sheetName, [CREDITS_HEADER]);
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

describe('the Credits export over a credits log port', () => {
  function platformOver(log: MemoryCreditsLog, document = new MemoryProperties()) {
    let kept = 0;
    const platform = testPlatform({
      creditsLog: log,
      clock: testClock(),
      documentProperties: () => document,
      keepPendingResults: () => {
        kept++;
        return 0;
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
    const tab = summarizeCredits(rows, Date.UTC(2026, 10, 22), '');
    expect(tab.total).toBe(9_998);
    expect(steps[2].message).toBe(
      'Exported 9,998 charges into the sheet "Credits log (2)", with 1 note of the watch (not charges). 1 row of the log could not be read (edited by hand) and was left out.',
    );
    expect(log.exports.get('Credits log (2)')).toEqual([
      CREDITS_HEADER,
      ...rows.filter((_, i) => i !== 3 && i !== 4),
    ]);
    // What formulas paid for moves into the log once, before the export reads where it ends.
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
    document.values.set(JOB_PROPERTY, JSON.stringify({ state: 'running' }));
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
