/**
 * The sidebar's drive when Apps Script refuses its calls, in headless Chromium (src/sidebar/drive.ts). A lane
 * refused with "too many scripts" ends quietly, the others go on and the run finishes; a call that keeps failing
 * says "The run could not go on: … Press Resume to try again." after its tries, and Resume goes on from there.
 * The page's clock is Playwright's: its waits between tries pass when the test says.
 */
import type { Progress } from '../../src/api';
import { DRIVE_ATTEMPTS } from '../../src/core/limits';
import { chargedTwice, expectLogEqualsLedger, mismatches, urls } from '../e2e/bulk/helpers';
import { OWNER } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 10_000;
jest.setTimeout(120_000);

const pages = sidebarPages(WAIT_MS);
const TOO_MANY = 'There are too many scripts running simultaneously for this Google user account.';

test('a lane Apps Script refuses for too many scripts ends; the other lanes finish the run, no error shown', async () => {
  const w = await pages.startWorld({
    data: [['Profile'], ...urls(240, 'drf-lane')],
    credits: 1_000,
    faults: { latencyMs: 100 },
    scriptProperties: { BULK_SLICES: '4', FETCH_MAX_CONCURRENCY: '10', ENRICH_STEP_BUDGET_MS: '600' },
  });
  w.env.select(w.ss.id, 'A2:A241');
  await w.env.run('enrichSelection', [], w.as());
  const calls = { inFlight: 0, refused: 0, answered: 0 };
  const errors: string[] = [];
  const { page } = await pages.open(w, OWNER, errors, 'progress', {
    // Past two calls under way (the person's other executions take the rest of their 30), Apps Script refuses.
    continueEnrichment: async () => {
      if (calls.inFlight >= 2) {
        calls.refused++;
        throw new Error(TOO_MANY);
      }
      calls.inFlight++;
      try {
        const progress = (await w.env.runFromPage('continueEnrichment', [], w.as())) as Progress;
        calls.answered++;
        return progress;
      } finally {
        calls.inFlight--;
      }
    },
  });
  await page.locator('#run-state').filter({ hasText: 'Done' }).waitFor({ timeout: 90_000 });
  expect(calls.refused).toBeGreaterThan(0);
  expect(await page.locator('#error').isHidden()).toBe(true);
  expect(errors).toEqual([]);
  expect(mismatches(w.env.values(w.ss.id, 'A2:D241'))).toEqual([]);
  expect(chargedTwice(w)).toEqual([]);
  expectLogEqualsLedger(w);
});

test(`a call that fails ${DRIVE_ATTEMPTS} times says the run could not go on and to press Resume; Resume goes on`, async () => {
  const w = await pages.startWorld({
    data: [['Profile'], ...urls(30, 'drf-fail')],
    credits: 1_000,
    scriptProperties: { BULK_SLICES: '1', FETCH_MAX_CONCURRENCY: '10', ENRICH_STEP_BUDGET_MS: '1' },
  });
  w.env.select(w.ss.id, 'A2:A31');
  await w.env.run('enrichSelection', [], w.as());
  let failing = true;
  let failures = 0;
  const errors: string[] = [];
  const { page } = await pages.open(
    w,
    OWNER,
    errors,
    'progress',
    {
      continueEnrichment: async () => {
        if (failing) {
          failures++;
          throw new Error('Service Spreadsheets failed while accessing document.');
        }
        return w.env.runFromPage('continueEnrichment', [], w.as());
      },
    },
    (p) => p.clock.install(),
  );
  const error = page.locator('#error-text');
  await error.filter({ hasText: /Trying again/ }).waitFor();
  expect(await error.textContent()).toBe(
    'The run could not go on (Service Spreadsheets failed while accessing document.). Trying again…',
  );
  // The waits between tries (1 s, then 2 s) pass on the page's clock.
  for (let i = 0; i < 10 && failures < DRIVE_ATTEMPTS; i++) await page.clock.runFor(1_000);
  await error.filter({ hasText: /Press Resume/ }).waitFor();
  expect(await error.textContent()).toBe(
    'The run could not go on: Service Spreadsheets failed while accessing document. Press Resume to try again.',
  );
  expect(failures).toBe(DRIVE_ATTEMPTS);
  expect(w.sandbox.service.totalCharged()).toBeLessThanOrEqual(10);
  // Nothing more is called on its own.
  await page.clock.runFor(60_000);
  expect(failures).toBe(DRIVE_ATTEMPTS);
  failing = false;
  await page.getByRole('button', { name: 'Resume' }).click();
  for (let i = 0; i < 60 && !(await page.locator('#run-state').textContent())?.includes('Done'); i++)
    await page.clock.runFor(2_000);
  await page.locator('#run-state').filter({ hasText: 'Done' }).waitFor();
  expect(mismatches(w.env.values(w.ss.id, 'A2:D31'))).toEqual([]);
  expect(chargedTwice(w)).toEqual([]);
  expect(errors).toEqual([]);
});
