/**
 * What the person approves is what runs, in headless Chromium: Start runs the cells of the plan on screen whatever
 * is selected when it is pressed, and a plan whose price changed since comes back before anything is spent.
 */
import { OWNER, startWorld, url, type World } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 10_000;
jest.setTimeout(60_000 + 12 * WAIT_MS);

let world: World | undefined;
const pages = sidebarPages(WAIT_MS, async () => {
  await world?.close();
  world = undefined;
});
const { waitForText } = pages;

const profiles = (count: number) => Array.from({ length: count }, (_, i) => url(`pl-ann-${i}`));

test('the plan for A2:A110, a click on A3, then Start runs A2:A110 at the price shown; a URL added since brings the new price first', async () => {
  const urls = profiles(109);
  world = await startWorld({ data: [['Profile'], ...urls.map((u) => [u])], startsAtOnce: false });
  const w = world;
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
