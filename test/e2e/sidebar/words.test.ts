/**
 * One meaning per number: every figure a run's summary, its history line and the Credits tab show names its unit
 * (rows, credits, lookups), and the same run's hit rate reads the same in its summary, its history, the Credits
 * tab's run line; the spreadsheet's record is the same under a plan's price and in the Credits tab.
 */
import type { CreditsSummary, RunHistory, RunPlan } from '../../../src/api';
import { missesText } from '../../../src/sidebar/credits';
import { creditsRunLine, historyLine, recordText, summaryCreditsText } from '../../../src/sidebar/words';
import { startWorld, url, type World } from '../../support/harness';
import { drive, start } from '../bulk/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const UNITS = new Set(['row', 'rows', 'credit', 'credits', 'lookup', 'lookups', '%', 's']);

/**
 * The figures of `text` that name no unit: each number must be followed by a unit ("3 rows", "80 %"), or be the
 * first of "N of M <unit>". Ranges ('Sheet1'!A2:A22, A2:A22) and names (Sheet1) are not figures.
 */
function figuresWithoutUnit(text: string): string[] {
  const plain = text.replace(/'[^']*'!/g, '').replace(/\b[A-Z]+\d+:[A-Z]+\d+\b/g, '');
  const missing: string[] = [];
  for (const match of plain.matchAll(/(?<![A-Za-z\d])(\d[\d,]*)((?: of \d[\d,]*)?) ?([a-z%]+)?/g)) {
    if (!UNITS.has(match[3] ?? '')) missing.push(match[0]);
  }
  return missing;
}

const HIT_RATE = /\d+ of \d+ lookups? found an address \(\d+ %\)/;

test('a run with repeated, known and odd rows: every figure says rows or credits or lookups; one hit rate everywhere', async () => {
  const found = ['wd-ann', 'wd-bob', 'wd-cy', 'wd-dee'].map((slug) => url(slug));
  const rows = [
    ['Profile'],
    ...found.map((link) => [link]),
    [url('wd-noemail-1')],
    [url('wd-noemail-2')],
    [found[0]],
    [found[1]],
    ['not a profile'],
    [''],
    [url('wd-eve')],
  ];
  world = await startWorld({ data: rows });
  // Known before the run: wd-cy, looked up by an earlier run of the first rows.
  await start(world, 'A4:A4');
  expect((await drive(world)).state).toBe('done');
  world.env.enter(world.ss.id, 'B4:E4', [['', '', '', '']]);

  await start(world, `A1:A${rows.length}`);
  const done = await drive(world);
  expect(done.state).toBe('done');
  const history = (await world.env.run('getRunHistory', [], world.as())) as RunHistory;
  const credits = (await world.env.run('getCreditsSummary', [], world.as())) as CreditsSummary;
  const summary = history.last;
  if (!summary) throw new Error('no summary of the run');
  const runLine = credits.runs.find((run) => run.range.endsWith(`A2:A${rows.length}`));
  if (!runLine) throw new Error(`no Credits line of the run: ${JSON.stringify(credits.runs)}`);

  const texts = {
    done: done.message,
    box: summaryCreditsText(summary),
    history: historyLine(summary),
    creditsTab: creditsRunLine(runLine),
    record: recordText(credits.total, credits.found),
  };
  for (const [where, text] of Object.entries(texts))
    expect([where, figuresWithoutUnit(text)]).toEqual([where, []]);

  // Rows and lookups apart: 7 rows with an address; 4 lookups found one, 2 rows repeated a profile, 1 was known.
  expect(summary).toMatchObject({ found: 7, noAddress: 2, notProfile: 1 });
  expect(done.message).toMatch(
    /^Done: 7 rows with an address, 2 rows with no address, 1 row not a profile\./,
  );
  expect(summary.creditsSpent).toBe(6);
  expect(summary.creditsSpent).toBe(world.sandbox.service.totalCharged() - 1);
  expect(done.message).toContain('3 rows reused an address already found');

  // The same run's hit rate, word for word, in the summary, the box, the history and the Credits tab.
  const rate = HIT_RATE.exec(done.message)?.[0];
  expect(rate).toBe('4 of 6 lookups found an address (67 %)');
  for (const text of [texts.box, texts.history, texts.creditsTab])
    expect(HIT_RATE.exec(text)?.[0]).toBe(rate);

  // The spreadsheet's record: the same figure under the next plan's price and in the Credits tab.
  world.env.enter(world.ss.id, 'A14', [[url('wd-fay')]]);
  world.env.select(world.ss.id, 'A14');
  const plan = (await world.env.run('getRunPlan', [{}], world.as())) as RunPlan;
  expect(texts.record).toBe(
    `Here so far: ${credits.found} of ${credits.total} lookups found an address (${Math.round((100 * credits.found) / credits.total)} %).`,
  );
  expect(missesText(plan)).toContain(texts.record);
});
