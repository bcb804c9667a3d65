/**
 * Answers of slices at once arrive in any order, in headless Chromium. A slice that wrote the run's last rows while
 * the run's end was another slice's to note answers "running, every row processed"; when that answer reaches the
 * sidebar after the other slice's "done", the sidebar keeps the run done, with the button for a new run (before, it
 * went back to "Running" with no slice left to end it, and the button stayed hidden).
 */
import type { Progress } from '../../src/api';
import { OWNER, url } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 10_000;
/** A bound, never reached when the product works: the held answer is let go once the run's end was answered. */
const HOLD_BOUND_MS = 60_000;
jest.setTimeout(60_000 + HOLD_BOUND_MS + 6 * WAIT_MS);

const pages = sidebarPages(WAIT_MS);
const { waitForText } = pages;

test('a slice’s answer from before the run ended, arriving after its end, leaves the run done and a new run possible', async () => {
  const urls = Array.from({ length: 109 }, (_, i) => url(`late-${i}`));
  // Ten requests a fetchAll: the run's start pace (50) fills five, so the sidebar opens four slices at once (the default).
  const w = await pages.startWorld({
    data: [['Profile'], ...urls.map((u) => [u])],
    scriptProperties: { FETCH_MAX_CONCURRENCY: '10', ENRICH_STEP_BUDGET_MS: '300' },
    startsAtOnce: false,
  });
  const options = { user: OWNER, spreadsheetId: w.ss.id };

  let answeredEnd: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    answeredEnd = resolve;
  });
  const calls = { started: 0, answered: 0, held: 0, heldTillEnd: 0, inFlight: 0 };
  // A "running" answer is held until another slice has answered "done", then sent as the answer of a slice that
  // wrote the last rows: every row processed. Held only while another call is under way: with none, no slice is left
  // to end the run (the sidebar's lanes follow the server's figure, which counts slices at work, not answers on their
  // way), so it goes back unchanged and a later answer is held instead.
  const continueEnrichment = async (...args: unknown[]): Promise<Progress> => {
    calls.inFlight++;
    let answer: Progress;
    try {
      answer = (await w.env.runFromPage('continueEnrichment', args, options)) as Progress;
    } finally {
      calls.inFlight--;
    }
    if (answer.state === 'done') answeredEnd();
    if (answer.state !== 'running' || calls.held > 0 || calls.inFlight === 0) return answer;
    calls.held++;
    const until = Date.now() + HOLD_BOUND_MS;
    let done = false;
    void ended.then(() => {
      done = true;
    });
    for (let look = 0; look < HOLD_BOUND_MS / 25 && Date.now() < until && !done && calls.inFlight > 0; look++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    if (!done) {
      calls.held--;
      return answer;
    }
    calls.heldTillEnd++;
    return { ...answer, processed: answer.total };
  };

  const errors: string[] = [];
  w.env.select(w.ss.id, 'A1:A200');
  await w.env.run('enrichSelection', [], w.as());
  const { page } = await pages.open(w, OWNER, errors, 'plan', {
    continueEnrichment: async (...args: unknown[]) => {
      calls.started++;
      try {
        return await continueEnrichment(...args);
      } finally {
        calls.answered++;
      }
    },
  });
  // Every state the heading shows, in order (a label shown for a moment counts too).
  await page.evaluate(() => {
    const shown: string[] = [];
    (window as unknown as { statesShown: string[] }).statesShown = shown;
    const heading = document.getElementById('run-state') as HTMLElement;
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of Array.from(record.addedNodes)) if (node.textContent) shown.push(node.textContent);
    }).observe(heading, { childList: true, characterData: true, subtree: true });
  });
  await waitForText(page.locator('#plan-start'), 'Start: up to 109 credits');
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 60_000);

  // Every continueEnrichment call answered, the held one after the run's end.
  for (let look = 0; look < 2400 && (calls.held === 0 || calls.answered < calls.started); look++)
    await new Promise((resolve) => setTimeout(resolve, 25));
  expect(calls).toEqual(expect.objectContaining({ held: 1, heldTillEnd: 1 }));
  expect(calls.answered).toBe(calls.started);
  expect(w.sandbox.service.totalCharged()).toBe(109);

  // The late answer changed nothing shown: once done, the run never read as running again.
  const shown = await page.evaluate(() => (window as unknown as { statesShown: string[] }).statesShown);
  expect(shown.slice(shown.indexOf('Done'))).toEqual(shown.slice(shown.indexOf('Done')).map(() => 'Done'));
  await expect(page.locator('#run-state').textContent()).resolves.toBe('Done');
  await page.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  await waitForText(page.locator('#plan-start'), 'Start (free)');
  expect(w.sandbox.service.totalCharged()).toBe(109);
  expect(errors).toEqual([]);
});
