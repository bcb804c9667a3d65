/**
 * Issue 49: a person's 30 executions at once are shared by every kind (apps-script/guides/services/quotas: "too many
 * scripts executing at once, although not necessarily the same script"). A run driven by the sidebar in headless
 * Chromium while the person fills a column of 40 single =FINDEMAIL cells: the cells and the sidebar's calls meet
 * the limit together. The run still finishes on screen, each profile is paid once, the credits log equals the
 * ledger, and once the cells are done the sidebar's slices come back: no lane waits for nothing.
 */
import { chargedTwice, expectLogEqualsLedger, lookups, mismatches, urls } from '../e2e/bulk/helpers';
import { column, emailOf, fillDown } from '../e2e/formula/helpers';
import { waitFor } from '../sandbox/helpers';
import { OWNER } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 10_000;
/** A bound, never reached when the product works. */
const RUN_BOUND_MS = 120_000;
jest.setTimeout(60_000 + 2 * RUN_BOUND_MS);

const pages = sidebarPages(WAIT_MS);

test('a run driven by the sidebar while 40 single =FINDEMAIL cells are entered finishes; each profile paid once, and its slices go on at full width once the cells are done', async () => {
  const rows = urls(400, 'shx-run');
  const own = urls(40, 'shx-cell');
  const w = await pages.startWorld({
    data: [['Profile'], ...rows],
    rows: 420,
    credits: 2_000,
    faults: { latencyMs: 400 },
    // Four slices of short batches: the run takes many calls, before, during and after the cells.
    scriptProperties: { BULK_SLICES: '4', FETCH_MAX_CONCURRENCY: '10', ENRICH_STEP_BUDGET_MS: '1500' },
  });
  w.env.enter(w.ss.id, 'J1:J40', own);
  w.env.select(w.ss.id, 'A2:A401');
  await w.env.run('enrichSelection', [], w.as());
  const errors: string[] = [];
  const { page } = await pages.open(w, OWNER, errors, 'progress');
  await waitFor(() => lookups(w).length >= 20, RUN_BOUND_MS);

  // The person fills the column: every cell is an execution of theirs, beside the sidebar's.
  fillDown(w, 'H', 'J', 1, 40);
  const evaluated = await w.env.recalculate(w.ss.id);
  const cellsDoneAt = Date.now();
  const refusedCells = evaluated.results.filter((result) => !result.ok).length;

  await page.locator('#run-state').filter({ hasText: 'Done' }).waitFor({ timeout: RUN_BOUND_MS });
  expect(errors).toEqual([]);
  expect(await page.locator('#error').textContent()).not.toMatch(/could not go on/);
  expect(mismatches(w.env.values(w.ss.id, 'A2:D401'))).toEqual([]);

  // The limit was met (by the cells or by the sidebar's calls), and the slices after the cells ran side by side.
  const refusedSlices = w.env.executions.filter(
    (e) => e.fn === 'continueEnrichment' && !e.ok && /too many scripts/.test(e.error?.message ?? ''),
  ).length;
  expect(refusedCells + refusedSlices).toBeGreaterThan(0);
  const after = w.env.executions.filter(
    (e) => e.fn === 'continueEnrichment' && e.ok && (e.calledAt ?? 0) >= cellsDoneAt,
  );
  const overlap = Math.max(0, ...after.map((a) => after.filter((b) => overlaps(a, b)).length));
  expect(overlap).toBeGreaterThanOrEqual(2);

  // A cell Apps Script refused says so; Refresh answers every cell, none paid twice.
  w.env.select(w.ss.id, 'H1:H40');
  await w.env.run('refreshFormulas', [], w.as());
  await w.env.formulasSettled();
  expect(column(w, 'H1:H40')).toEqual(own.map(([link]) => emailOf(link)));
  expect(chargedTwice(w)).toEqual([]);
  expect(Object.keys(w.charges())).toHaveLength(440);
  // A writing execution a minute later (Refresh again) moves the formulas' charges into the credits log.
  w.env.advanceClock(60_000);
  await w.env.run('refreshFormulas', [], w.as());
  expectLogEqualsLedger(w);
});

/** Whether two executions ran at the same moment (wall clock). */
function overlaps(
  a: { calledAt?: number; durationMs: number },
  b: { calledAt?: number; durationMs: number },
): boolean {
  const [aFrom, bFrom] = [a.calledAt ?? 0, b.calledAt ?? 0];
  return aFrom < bFrom + b.durationMs && bFrom < aFrom + a.durationMs;
}
