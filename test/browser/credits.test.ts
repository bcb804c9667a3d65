/**
 * The Credits tab in headless Chromium, two people at once: the owner and an editor each ran a
 * bulk run with their own key, and the owner's key paid for a range formula. Each sees their own runs marked as
 * theirs, the other's, and the formulas' spend; Export writes the log into a new visible sheet.
 */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { predictLookup } from '../../sandbox/profiles';
import { EXPORT_HEADER } from '../../src/credits/exportRows';
import { API_KEY_PROPERTY, EDITOR, EDITOR_KEY, OWNER, url, type World } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 10_000;
jest.setTimeout(60_000 + 12 * WAIT_MS);

const pages = sidebarPages(WAIT_MS);
const { waitForText } = pages;

/** A 300 px sidebar page of `user`, refusing any address but its bridge's; page errors collected. */
async function sidebarOf(
  w: World,
  user: string,
  errors: string[],
  view: 'settings' | 'plan' = 'settings',
): Promise<Page> {
  return (await pages.open(w, user, errors, view)).page;
}

async function runAs(w: World, user: string, a1: string): Promise<void> {
  w.env.select(w.ss.id, a1);
  const plan = (await w.env.run('getRunPlan', [{}], w.as(user))) as { credits: number };
  await w.env.run('startRun', [{ confirmedCredits: plan.credits }], w.as(user));
  for (let round = 0; round < 50; round++) {
    const progress = (await w.env.run('continueEnrichment', [], w.as(user))) as { state: string };
    if (progress.state !== 'running') return;
  }
}

const FORMULAS_LINE = "Formulas (=FINDEMAIL, the spreadsheet owner's key): 3 credits";

test('the owner and an editor see their own runs and the formulas’ spend; Export writes the log into a sheet', async () => {
  const data = [['Owner', '', '', '', '', 'Editor', '', '', '', '', 'Formula', '', '', 'Next']];
  for (let i = 0; i < 6; i++) {
    const row = Array<string>(14).fill('');
    row[13] = url(`cr-next-${i}`);
    row[0] = url(`cr-owner-${i}`);
    if (i < 4) row[5] = url(`cr-editor-${i}`);
    if (i < 3) row[10] = url(`cr-formula-${i}`);
    data.push(row);
  }
  const world = await pages.startWorld({ data });
  world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
  world.env.enter(world.ss.id, 'L2', [['=FINDEMAIL(K2:K4)']]);
  await world.env.recalculate(world.ss.id);
  await runAs(world, OWNER, 'A1:A7');
  await runAs(world, EDITOR, 'F1:F5');
  expect(world.sandbox.service.totalCharged()).toBe(13);

  const errors: string[] = [];
  const [owner, editor] = await Promise.all([
    sidebarOf(world, OWNER, errors),
    sidebarOf(world, EDITOR, errors),
  ]);
  await Promise.all([owner.locator('#tab-credits').click(), editor.locator('#tab-credits').click()]);
  for (const page of [owner, editor]) {
    await waitForText(page.locator('#credits-total'), '13');
    await expect(page.locator('#credits-today').textContent()).resolves.toBe('13');
    await expect(page.locator('#credits-lost').isHidden()).resolves.toBe(true);
  }
  const sources = (page: Page) => page.locator('#credits-sources li').allTextContents();
  await expect(sources(owner)).resolves.toEqual(
    expect.arrayContaining([
      `Runs of ${OWNER} (you): 6 credits`,
      `Runs of ${EDITOR}: 4 credits`,
      FORMULAS_LINE,
    ]),
  );
  await expect(sources(editor)).resolves.toEqual(
    expect.arrayContaining([
      `Runs of ${OWNER}: 6 credits`,
      `Runs of ${EDITOR} (you): 4 credits`,
      FORMULAS_LINE,
    ]),
  );
  // The picture of the Credits tab in docs/ (rewritten only by `npm run screenshots`).
  const shot = join(
    process.env.UPDATE_SCREENSHOTS ? join(__dirname, '..', '..', 'docs') : tmpdir(),
    'sidebar-credits.png',
  );
  const bottom = await owner.evaluate(
    () => document.querySelector('.sidebar')?.getBoundingClientRect().bottom ?? 0,
  );
  await owner.screenshot({
    path: shot,
    fullPage: true,
    clip: { x: 0, y: 0, width: 300, height: Math.ceil(bottom) },
  });
  expect(statSync(shot).size).toBeLessThan(150 * 1024);
  const runs = await editor.locator('#credits-runs li').allTextContents();
  expect(runs).toHaveLength(2);
  expect(runs.find((line) => line.includes(`${EDITOR} (you)`))).toMatch(
    /^Sheet1!F2:F5: 4 credits, \d of 4 lookups found an address \(\d+ %\)/,
  );

  await owner.locator('#credits-export').click();
  await waitForText(
    owner.locator('#credits-export-status'),
    'Exported 13 charges into the sheet "Credits log".',
  );
  const exported = world.env.values(world.ss.id, 'A1:I14', 'Credits log');
  expect(exported[0]).toEqual(EXPORT_HEADER);
  expect(exported.slice(1).filter((row) => row[1] === 'formulas')).toHaveLength(3);
  // Each charge with the profile as the sheet writes it (matchable to its row) and its credit.
  const sheetUrls = new Set(world.env.values(world.ss.id, 'A1:Z40').flat().map(String));
  expect(exported.slice(1).every((row) => sheetUrls.has(String(row[4])) && row[7] === 1)).toBe(true);

  // The plan of the next run: a lookup costs a credit found or not, and the share found here so far.
  const charged = world.sandbox.service.ledger().filter((entry) => entry.charged === 1 && entry.networkUrl);
  const found = charged.filter((entry) => predictLookup(entry.networkUrl ?? '').kind === 'found').length;
  world.env.select(world.ss.id, 'N1:N7');
  await owner.getByRole('tab', { name: 'Progress' }).click();
  await owner.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  // The same figure, in the same words, as the Credits tab's record of this spreadsheet.
  const record = `Here so far: ${found} of 13 lookups found an address (${Math.round((100 * found) / 13)} %).`;
  await expect(owner.locator('#credits-record').textContent()).resolves.toBe(record);
  await waitForText(
    owner.locator('#plan-misses'),
    `The service charges one credit per lookup, whether or not it finds an address. ${record}`,
  );
  expect(errors).toEqual([]);
});

test('Try 10 rows first: a trial, its share found, then Run the rest priced again; no profile paid twice', async () => {
  const profiles = Array.from({ length: 25 }, (_, i) => url(i % 4 === 1 ? `bt-noemail-${i}` : `bt-p-${i}`));
  // The add-on's default settings: the menu opens the plan, with its offer of a trial.
  const world = await pages.startWorld({
    data: [['Profile'], ...profiles.map((profile) => [profile])],
    startsAtOnce: false,
  });
  world.env.select(world.ss.id, 'A1:A26');
  await world.env.run('enrichSelection', [], world.as());
  const errors: string[] = [];
  const page = await sidebarOf(world, OWNER, errors, 'plan');
  await page.locator('#plan').waitFor({ state: 'visible' });
  await waitForText(page.locator('#plan-price'), 'At most 25 credits (25 new profiles).');
  await page.locator('#plan-trial').click();
  await waitForText(
    page.locator('#plan-trial-note'),
    'A trial: the first 10 of the 25 new profiles (Sheet1!A2:A11). When it ends, Run the rest prices the others.',
  );
  await waitForText(page.locator('#plan-price'), 'At most 10 credits (10 new profiles).');
  await expect(page.locator('#plan-trial').isHidden()).resolves.toBe(true);
  await page.locator('#plan-start').click();
  const found = profiles.slice(0, 10).filter((profile) => predictLookup(profile).kind === 'found').length;
  await waitForText(
    page.locator('#trial-result'),
    `Trial: ${found} of 10 lookups found an address (${Math.round(found * 10)} %).`,
    30_000,
  );
  expect(world.sandbox.service.totalCharged()).toBe(10);
  await page.locator('#run-rest').click();
  await waitForText(page.locator('#plan-price'), 'At most 15 credits (15 new profiles).');
  // The rest of a trial is not offered a trial again.
  await expect(page.locator('#plan-trial').isHidden()).resolves.toBe(true);
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 30_000);
  expect(world.sandbox.service.totalCharged()).toBe(25);
  expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
  await expect(page.locator('#trial-result').isHidden()).resolves.toBe(true);
  expect(errors).toEqual([]);
});
