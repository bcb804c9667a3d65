/**
 * The Credits tab's server side: the log summed up in one execution (100,000 charges), and
 * Export into a new visible sheet over several executions (20,000 rows), with its bad inputs: a sheet of that name
 * exists, a log edited by hand, a run under way, a sheet name the sidebar did not get from the export. The export
 * over a credits log port: test/credits/view.test.ts.
 */
import type { CreditsExport, CreditsSummary } from '../../../src/api';
import { stableHash } from '../../../src/core/hash';
import { CREDITS_SHEET, RUNNER_ID_PROPERTY } from '../../../src/core/propertyNames';
import { EXPORT_HEADER } from '../../../src/credits/exportRows';
import { CREDITS_HEADER, LOST_OUTCOME_TEXT } from '../../../src/store/credits';
import { EDITOR, OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, start } from '../bulk/helpers';

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
    const exported = world.env.values(world.ss.id, `A1:I${kept.length + 1}`, 'Credits log (2)');
    expect(exported[0]).toEqual(EXPORT_HEADER);
    // The log's columns, with the profile as written in the sheet and the credits (a number) beside them.
    expect(
      exported
        .slice(1)
        .map(([when, source, payer, id, , profile, outcome, , where]) => [
          when,
          source,
          payer,
          id,
          profile,
          outcome,
          where,
        ]),
    ).toEqual(kept);
    expect(exported.slice(1).map((row) => row[7])).toEqual(
      kept.map((row) => (row[5] === LOST_OUTCOME_TEXT ? 0 : 1)),
    );
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
    // More lookups than one batch: Start answers at once; the sidebar's first slice (1 ms: one batch) pays.
    expect(((await world.env.run('continueEnrichment', [], world.as())) as { state: string }).state).toBe(
      'running',
    );
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
