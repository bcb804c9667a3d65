/**
 * What the person approves is what runs, in headless Chromium: Start runs the cells of the plan on screen whatever
 * is selected when it is pressed, and a plan whose price changed since comes back before anything is spent.
 */
import { type Job, progressOf } from '../../src/bulk/job';
import { JOB_PROPERTY } from '../../src/core/propertyNames';
import { OWNER, url, type World } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 10_000;
jest.setTimeout(60_000 + 12 * WAIT_MS);

const pages = sidebarPages(WAIT_MS);
const { waitForText } = pages;

const profiles = (count: number) => Array.from({ length: count }, (_, i) => url(`pl-ann-${i}`));

test('the plan for A2:A110, a click on A3, then Start runs A2:A110 at the price shown; a URL added since brings the new price first', async () => {
  const urls = profiles(109);
  const w = await pages.startWorld({ data: [['Profile'], ...urls.map((u) => [u])], startsAtOnce: false });
  const errors: string[] = [];
  w.env.select(w.ss.id, 'A1:A200');
  await w.env.run('enrichSelection', [], w.as());
  const { page } = await pages.open(w, OWNER, errors, 'plan');
  await waitForText(page.locator('#plan-where'), 'Sheet1!A2:A110: results in B:E.');
  await waitForText(page.locator('#plan-start'), 'Start: up to 109 credits');

  // The person clicks a cell while reading the plan: Start still runs the plan's cells, at its price.
  w.env.select(w.ss.id, 'A3');
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 60_000);
  expect(w.sandbox.service.totalCharged()).toBe(109);
  expect(w.env.values(w.ss.id, 'C2:C110').every(([status]) => status !== '')).toBe(true);
  await expect(page.locator('#history li').first().textContent()).resolves.toMatch(/^Sheet1!A2:A110 /);

  // The plan again (every row known: free), then a new URL below before Start: the new price, nothing spent.
  w.env.select(w.ss.id, 'A1:A200');
  await page.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  await waitForText(page.locator('#plan-start'), 'Start (free)');
  w.env.enter(w.ss.id, 'A111', [[url('pl-ann-new')]]);
  w.env.select(w.ss.id, 'B5');
  const ledger = w.sandbox.service.ledger().length;
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#error-text'), /^The sheet changed since the plan was made/);
  await expect(page.locator('#plan-start').textContent()).resolves.toBe('Start: up to 1 credit');
  await expect(page.locator('#plan-where').textContent()).resolves.toBe('Sheet1!A2:A111: results in B:E.');
  expect(w.sandbox.service.ledger()).toHaveLength(ledger);
  expect(w.env.values(w.ss.id, 'C111')[0][0]).toBe('');

  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 30_000);
  expect(w.sandbox.service.totalCharged()).toBe(110);
  expect(w.env.values(w.ss.id, 'C111')[0][0]).not.toBe('');
  expect(errors).toEqual([]);
});

/** The figures a status line reads from the stored run (the playground's, src/bulk/job.ts progressOf). */
function storedFigures(w: World): { id: string; state: string; processed: number; total: number } | null {
  const raw = w.env.documentProperties(w.ss.id).get(JOB_PROPERTY);
  if (!raw) return null;
  const job = JSON.parse(raw) as Job;
  const progress = progressOf(job);
  return { id: job.id, state: job.state, processed: progress.processed, total: progress.total };
}

test('one count of a run: the sidebar and the status line read the same rows of the same total at every look, never credits beside 0 rows; the plan’s lines add up', async () => {
  const urls = profiles(30);
  const w = await pages.startWorld({
    data: [['Profile'], ...urls.map((u) => [u]), [urls[3]], [urls[4]], [urls[20]], [''], ['not a url']],
    scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '100' },
    faults: { latencyMs: 150 },
    startsAtOnce: false,
  });
  // The first ten rows already have their results (a run of their own).
  w.env.select(w.ss.id, 'A1:A11');
  const first = (await w.env.run('getRunPlan', [{}], w.as())) as { target: object; credits: number };
  await w.env.run('startRun', [{ target: first.target, confirmedCredits: first.credits }], w.as());
  for (let round = 0; round < 50; round++) {
    const progress = (await w.env.run('continueEnrichment', [], w.as())) as { state: string };
    if (progress.state !== 'running') break;
  }
  const firstRun = storedFigures(w)?.id;
  expect(w.sandbox.service.totalCharged()).toBe(10);

  const errors: string[] = [];
  w.env.select(w.ss.id, 'A1:A36');
  await w.env.run('enrichSelection', [], w.as());
  const { page } = await pages.open(w, OWNER, errors, 'plan');
  await waitForText(page.locator('#plan-start'), 'Start: up to 20 credits');
  // The plan's lines: each row counted once, in rows (new and known profiles a row each, their repeats apart).
  const lines = await Promise.all(
    ['new', 'known', 'duplicates', 'invalid', 'blanks', 'done'].map(async (id) =>
      Number(await page.locator(`#plan-${id}`).textContent()),
    ),
  );
  // Rows 32 and 33 repeat profiles of rows already done (known), row 34 a new profile of row 22 (a repeat).
  expect(lines).toEqual([20, 2, 1, 1, 1, 10]);
  await expect(page.locator('#plan-rows').textContent()).resolves.toBe(
    String(lines.reduce((a, b) => a + b, 0)),
  );

  await page.locator('#plan-start').click();
  const samples: string[] = [];
  for (let round = 0; round < 4000; round++) {
    // One read of the page: the figures it shows at one moment.
    const [fraction, creditsText, state] = await page.evaluate(() =>
      ['run-fraction', 'count-credits', 'run-state'].map(
        (id) => document.getElementById(id)?.textContent ?? '',
      ),
    );
    const credits = Number(creditsText);
    const stored = storedFigures(w);
    const shown = /^(\d+) of (\d+) rows? processed/.exec(fraction);
    if (shown) {
      const [processed, total] = [Number(shown[1]), Number(shown[2])];
      samples.push(`${processed}/${total} ${credits}`);
      // 34 rows with a URL cell, from the first look on; 10 of them done before the run.
      expect(total).toBe(34);
      if (credits > 0) expect(processed).toBeGreaterThan(10);
      if (stored && stored.id !== firstRun) {
        // The status line, read after the sidebar, is as far or further, in the same total.
        expect(stored.total).toBe(total);
        expect(stored.processed).toBeGreaterThanOrEqual(processed);
      }
    }
    if (state === 'Done') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await waitForText(page.locator('#run-state'), 'Done');
  expect(samples.length).toBeGreaterThan(2);
  await expect(page.locator('#run-fraction').textContent()).resolves.toBe('34 of 34 rows processed (100%)');
  expect(storedFigures(w)).toMatchObject({ processed: 34, total: 34 });
  expect(w.sandbox.service.totalCharged()).toBe(30);
  expect(errors).toEqual([]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('Pause from the first second: pressed while Start is on its way, the run pauses once it exists; nothing more is spent', async () => {
  const w = await pages.startWorld({
    data: [['Profile'], ...profiles(40).map((u) => [u])],
    scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '100' },
    startsAtOnce: false,
  });
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const errors: string[] = [];
  w.env.select(w.ss.id, 'A1:A41');
  await w.env.run('enrichSelection', [], w.as());
  const { page, bridge } = await pages.open(w, OWNER, errors, 'plan', {
    // Start's answer waits for the test: the run does not exist yet when Pause is pressed.
    startRun: async (...args: unknown[]) => {
      await gate;
      return w.env.run('startRun', args, w.as());
    },
  });
  await waitForText(page.locator('#plan-start'), 'Start: up to 40 credits');
  await page.locator('#plan-start').click();
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitForText(page.locator('#run-message'), 'Pausing: the run pauses as soon as it has started.');
  await expect(page.locator('#pause').isHidden()).resolves.toBe(true);
  expect(w.sandbox.service.ledger()).toEqual([]);
  release();
  await waitForText(page.locator('#run-state'), 'Paused', 20_000);
  const job = storedFigures(w);
  expect(job?.state).toBe('paused');
  const charged = w.sandbox.service.totalCharged();
  expect(charged).toBeLessThan(40);
  await expect(page.locator('#count-credits').textContent()).resolves.toBe(String(charged));
  await expect(page.locator('#resume').isVisible()).resolves.toBe(true);
  // A quiet while: no slice follows the pause, nothing more is charged.
  const calls = bridge.calls.length;
  await sleep(1500);
  expect(bridge.calls.slice(calls).filter((c) => c.fn === 'continueEnrichment')).toEqual([]);
  expect(w.sandbox.service.totalCharged()).toBe(charged);
  expect(errors).toEqual([]);
});

test('Pause with a batch on its way: the sidebar says how many lookups were already sent and may be charged, then the final count', async () => {
  const w = await pages.startWorld({
    data: [['Profile'], ...profiles(40).map((u) => [u])],
    // One slice: the batch of 5 it has at the service is the one the message counts.
    scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '100', BULK_SLICES: '1' },
    startsAtOnce: false,
  });
  const errors: string[] = [];
  w.env.select(w.ss.id, 'A1:A41');
  await w.env.run('enrichSelection', [], w.as());
  const { page } = await pages.open(w, OWNER, errors, 'plan');
  await waitForText(page.locator('#plan-start'), 'Start: up to 40 credits');
  // The service holds every lookup (Start's key check is no lookup): the first slice's batch of 5 stays on its way.
  const release = w.sandbox.service.hold();
  await page.locator('#plan-start').click();
  for (let round = 0; round < 400 && w.sandbox.service.inFlight < 5; round++) await sleep(25);
  expect(w.sandbox.service.inFlight).toBe(5);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitForText(
    page.locator('#run-message'),
    'Paused: 5 lookups were already sent before you pressed it; their answers may still be charged. The final count follows when they are back.',
  );
  await expect(page.locator('#run-state').textContent()).resolves.toBe('Paused');
  expect(w.sandbox.service.totalCharged()).toBe(0);
  release();
  // The batch's answers are kept and counted: the final count, and no lookup after it.
  await waitForText(page.locator('#count-credits'), '5', 20_000);
  await expect(page.locator('#run-message').textContent()).resolves.not.toMatch(/already sent/);
  await sleep(1500);
  expect(w.sandbox.service.totalCharged()).toBe(5);
  await expect(page.locator('#run-state').textContent()).resolves.toBe('Paused');
  await expect(page.locator('#run-fraction').textContent()).resolves.toMatch(/^5 of 40 rows processed/);
  expect(errors).toEqual([]);
});
