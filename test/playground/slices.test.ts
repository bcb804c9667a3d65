/**
 * A run of several slices at once in the playground, in Chromium, at a real verifier's latency (2–4 s a lookup,
 * uniform): the sidebar shows one progress line that only moves forward, Pause stops every slice (nothing more
 * reaches the sandbox once the batches on their way are answered), Resume goes on to Done, and the Credits tab's
 * total is what the sandbox charged.
 */
import type { Page } from 'playwright-core';
import { startPlayground } from '../../playground/server';
import type { Job } from '../../src/bulk/job';
import { JOB_PROPERTY } from '../../src/core/propertyNames';
import {
  ACTION_MS,
  chargeableProfiles,
  expectedRow,
  frameText,
  openPage,
  pasteColumn,
  people,
  runFromMenu,
  tempStateDir,
  useBrowser,
  waitFor,
} from './helpers';

const ROWS = 300;
/** The run's bound to its end at 2–4 s a lookup: a few batches per slice, four slices at once. */
const RUN_MS = 150_000;
/** After the batches on their way are answered: longer than one lookup's latency (4 s), nothing may be sent. */
const QUIET_MS = 6_000;
jest.setTimeout(60_000 + 6 * ACTION_MS + 2 * RUN_MS + QUIET_MS);

const RUN_LABEL = 'Find e-mails for the selected column';

interface Shown {
  processed: number;
  total: number;
  state: string;
}

/** The sidebar's progress line and state, read at one moment (undefined while the frame reloads). */
async function shown(page: Page): Promise<Shown | undefined> {
  const frame = await page
    .locator('#sidebar-frame')
    .elementHandle()
    .then((handle) => handle?.contentFrame());
  if (!frame) return undefined;
  const [fraction, state, lines] = await frame
    .evaluate(() => [
      document.getElementById('run-fraction')?.textContent ?? '',
      document.getElementById('run-state')?.textContent ?? '',
      String(document.querySelectorAll('.fraction').length),
    ])
    .catch(() => ['', '', '0']);
  const figures = /^(\d+) of (\d+) rows? processed/.exec(fraction);
  if (!figures) return undefined;
  // One line for the run, however many slices work on it.
  expect(lines).toBe('1');
  return { processed: Number(figures[1]), total: Number(figures[2]), state };
}

describe('slices of one run at once in the playground', () => {
  const opened = useBrowser();

  test('300 rows at 2–4 s: one progress line moving forward, Pause stops every slice, Resume goes on to Done, Credits equal the ledger', async () => {
    opened.stateDir = tempStateDir();
    // The add-on's own pace and slice budget (no ENRICH_BATCH_SIZE): the sidebar grows to four slices at once.
    opened.playground = await startPlayground({ port: 0, stateDir: opened.stateDir, credits: 1000 });
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    const sandbox = pg.service.sandbox.service;
    opened.session = await openPage(opened.browser, pg);
    const { page, sidebar } = opened.session;

    const entries = people(ROWS);
    await pasteColumn(page, 2, 1, entries);
    await waitFor(
      () => env.values(spreadsheetId, `A${ROWS + 1}`)[0][0],
      (value) => value === entries[ROWS - 1],
      ACTION_MS,
      'the pasted column on the server',
    );
    sandbox.configure({ ...sandbox.faults, latencyMs: [2000, 4000] });

    const liveWindows = () => {
      const stored = env.documentProperties(spreadsheetId).get(JOB_PROPERTY);
      if (!stored) return 0;
      const job = JSON.parse(String(stored)) as Job;
      return (job.windows ?? []).filter((w) => w.until > env.now() && w.from <= w.to).length;
    };
    let last = 0;
    /** Reads the progress until `done` accepts it: the total is the run's every time, the count never goes back. */
    const watch = async (done: (seen: Shown) => boolean, timeoutMs: number, what: string) => {
      const end = Date.now() + timeoutMs;
      for (let round = 0; round < timeoutMs / 20 && Date.now() < end; round++) {
        const seen = await shown(page);
        if (seen) {
          expect(seen.total).toBe(ROWS);
          expect(seen.processed).toBeGreaterThanOrEqual(last);
          last = seen.processed;
          if (done(seen)) return seen;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`Timed out waiting for ${what}; last: ${last} of ${ROWS}`);
    };

    await runFromMenu(page, RUN_LABEL);
    // Part-way, with more than one slice at work this moment: Pause.
    await watch(
      (seen) => seen.state === 'Running' && seen.processed > 0 && liveWindows() >= 2,
      RUN_MS,
      'the run part-way with two slices at once',
    );
    expect(last).toBeLessThan(ROWS);
    await sidebar.locator('#pause').click();
    const paused = await watch(
      (seen) => seen.state === 'Paused',
      ACTION_MS,
      'the sidebar to show the run paused',
    );
    // The batches on their way are answered and written; then no slice is left and nothing reaches the sandbox.
    await waitFor(
      () => sandbox.inFlight === 0 && liveWindows() === 0,
      (quiet) => quiet,
      RUN_MS,
      'the slices under way to end',
    );
    const requestsAtRest = sandbox.ledger().length;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(sandbox.ledger().length).toBe(requestsAtRest);
    expect(sandbox.inFlight).toBe(0);
    const atRest = await watch(
      (seen) =>
        seen.state === 'Paused' &&
        seen.processed === env.values(spreadsheetId, `C2:C${ROWS + 1}`).filter((row) => row[0] !== '').length,
      ACTION_MS,
      'the final count of the paused run',
    );
    expect(atRest.processed).toBeGreaterThanOrEqual(paused.processed);
    expect(atRest.processed).toBeLessThan(ROWS);
    expect(pg.service.view().charged).toBe(atRest.processed);

    await sidebar.locator('#resume').click();
    await watch((seen) => seen.state === 'Done', RUN_MS, 'the run to finish');
    expect(last).toBe(ROWS);

    const rows = env.displayValues(spreadsheetId, `B2:C${ROWS + 1}`);
    expect(rows).toEqual(entries.map(expectedRow));
    const charges = sandbox.chargesByUrl();
    expect(Object.keys(charges).sort()).toEqual(chargeableProfiles(entries));
    expect(Object.values(charges).every((count) => count === 1)).toBe(true);
    const charged = pg.service.view().charged;
    expect(charged).toBe(ROWS);

    await sidebar.locator('#tab-credits').click();
    await waitFor(
      () => frameText(page, '#credits-total'),
      (text) => text.replace(/,/g, '') === String(charged),
      ACTION_MS,
      `the Credits tab total ${charged}`,
    );
  });
});
