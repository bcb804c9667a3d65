/**
 * Settings › Remove this spreadsheet's add-on data in headless Chromium: the sidebar asks first, naming what goes;
 * Keep it changes nothing; the credits log can be exported first; Remove the data leaves the person's cells and the
 * exported sheet, and no hidden sheet or `pef.` property.
 */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREDITS_SHEET, RESULTS_SHEET } from '../../src/core/propertyNames';
import { drive, start } from '../e2e/bulk/helpers';
import { OWNER, url, type World } from '../support/harness';
import { sidebarPages } from './pages';

const WAIT_MS = 20_000;
jest.setTimeout(60_000 + 6 * WAIT_MS);

const pages = sidebarPages(WAIT_MS);
const { waitForText } = pages;

const sheetNames = (w: World) => w.ss.sheets.map((sheet) => sheet.name);
const addonProperties = (w: World) =>
  w.env
    .documentProperties(w.ss.id)
    .keys()
    .filter((key) => key.startsWith('pef.'));

test('asks first, exports the credits log on request, then removes the hidden sheets and properties only', async () => {
  const world = await pages.startWorld({
    data: [['Profile URL'], [url('rd-jane-doe')], [url('rd-john-smith')]],
  });
  await start(world, 'A1:A3');
  expect((await drive(world)).state).toBe('done');
  const cells = world.env.values(world.ss.id, 'A1:E3');
  const errors: string[] = [];
  const { page } = await pages.open(world, OWNER, errors);
  // The run is among the recent runs (the Progress tab's list, read when the sidebar opens).
  await page.locator('#history li').first().waitFor({ state: 'attached' });

  await page.getByRole('button', { name: "Remove this spreadsheet's add-on data" }).click();
  const confirm = page.locator('#remove-data-confirm');
  await confirm.waitFor({ state: 'visible' });
  const items = await page.locator('#remove-data-items li').allTextContents();
  expect(items).toHaveLength(3);
  expect(items[0]).toMatch(
    /^The hidden sheet _pef_results: every result paid for here\. .*costs a credit again\.$/,
  );
  expect(items[1]).toMatch(/^The hidden sheet _pef_credits: the credits log\./);
  expect(items[2]).toMatch(/stored values in the spreadsheet's document properties/);
  await expect(page.locator('#remove-data-kept').textContent()).resolves.toBe(
    'Your cells, exported sheets, API key and settings stay.',
  );

  // The picture of the question in docs/ (rewritten only by `npm run screenshots`).
  const shot = join(
    process.env.UPDATE_SCREENSHOTS ? join(__dirname, '..', '..', 'docs') : tmpdir(),
    'sidebar-remove.png',
  );
  // From the section's title to the end of the question, in the page's coordinates.
  const [top, bottom] = await page.evaluate(() => {
    const box = (id: string) => (document.getElementById(id) as HTMLElement).getBoundingClientRect();
    return [
      box('remove-data').top - 110 + window.scrollY,
      box('remove-data-confirm').bottom + 8 + window.scrollY,
    ];
  });
  await page.screenshot({
    path: shot,
    fullPage: true,
    clip: { x: 0, y: Math.max(0, top), width: 300, height: Math.ceil(bottom - top) },
  });
  expect(statSync(shot).size).toBeLessThan(150 * 1024);

  // Keep it: nothing happens.
  await page.getByRole('button', { name: 'Keep it' }).last().click();
  await expect(confirm.isHidden()).resolves.toBe(true);
  expect(sheetNames(world)).toEqual(expect.arrayContaining([RESULTS_SHEET, CREDITS_SHEET]));

  await page.getByRole('button', { name: "Remove this spreadsheet's add-on data" }).click();
  await confirm.waitFor({ state: 'visible' });
  await page.getByRole('button', { name: 'Export the credits log first' }).click();
  await waitForText(page.locator('#remove-data-export-status'), /Credits log/);
  expect(sheetNames(world)).toContain('Credits log');
  const exported = world.env.values(world.ss.id, 'A1:A3', 'Credits log');
  expect(exported[0][0]).not.toBe('');

  await page.getByRole('button', { name: 'Remove the data' }).click();
  await waitForText(
    page.locator('#remove-data-message'),
    /^Removed from this spreadsheet: the hidden sheets _pef_results and _pef_credits, \d+ stored values of the add-on\. Your cells, exported sheets, API key and settings are kept, and so is what =FINDEMAIL spent today/,
  );
  await expect(confirm.isHidden()).resolves.toBe(true);
  expect(sheetNames(world)).toEqual(['Sheet1', 'Credits log']);
  expect(addonProperties(world)).toEqual([]);
  expect(world.env.values(world.ss.id, 'A1:E3')).toEqual(cells);
  expect(world.env.values(world.ss.id, 'A1:A3', 'Credits log')).toEqual(exported);
  // The recent runs went with the rest: the list is read again and is empty.
  await page.waitForFunction(() => document.querySelectorAll('#history li').length === 0);
  await expect(page.locator('#history-block').getAttribute('hidden')).resolves.not.toBeNull();

  // Asked again, there is nothing left to remove.
  await page.getByRole('button', { name: "Remove this spreadsheet's add-on data" }).click();
  await waitForText(
    page.locator('#remove-data-message'),
    'This spreadsheet holds no data of the add-on: nothing to remove.',
  );
  await expect(confirm.isHidden()).resolves.toBe(true);
  expect(errors).toEqual([]);
});
