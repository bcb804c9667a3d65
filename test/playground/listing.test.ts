/**
 * The Marketplace listing's graphic assets (https://developers.google.com/workspace/marketplace/create-listing,
 * "Graphic assets"): the screenshots, from the playground in Chromium at the listing's size, 1280 x 800 (the plan, a
 * run in progress, the Credits tab, the Watch tab and the filled sheet; the sandbox's panel, the "Playground" badge
 * and the status line are the playground's, not the add-on's: they are hidden), and the application icons (128 x 128,
 * 32 x 32) and the card banner (220 x 140), drawn by Chromium from docs/listing/icon.svg. `npm run screenshots`
 * writes them into docs/listing/; otherwise they go to a temporary folder and are only checked.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  ACTION_MS,
  cell,
  chooseMenu,
  frameText,
  openPage,
  tempStateDir,
  testPlayground,
  useBrowser,
  waitFor,
} from './helpers';

const LISTING_SIZE = { width: 1280, height: 800 };
const ICON_SIZES = [128, 32];
const BANNER_SIZE = { width: 220, height: 140 };
const ICON_SOURCE = join(__dirname, '..', '..', 'docs', 'listing', 'icon.svg');

/** Where the assets go: docs/listing/ with UPDATE_SCREENSHOTS, else a temporary folder. */
function assetsDir(): string {
  const dir = process.env.UPDATE_SCREENSHOTS
    ? join(__dirname, '..', '..', 'docs', 'listing')
    : mkdtempSync(join(tmpdir(), 'listing-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}
const RUN_LABEL = 'Find e-mails for the selected column';

jest.setTimeout(60_000 + 16 * ACTION_MS);

/** The width and height a PNG file declares (its IHDR chunk). */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The spreadsheet window alone, filling the page (the sandbox's panel and the playground's badge hidden). */
async function listingFrame(page: Page): Promise<void> {
  await page.setViewportSize(LISTING_SIZE);
  // Through the CSSOM: the page's Content-Security-Policy refuses a style sheet added inline.
  await page.evaluate(() => {
    const style = (selector: string) => (document.querySelector(selector) as HTMLElement).style;
    style('#sandbox-panel').display = 'none';
    style('.doc-badge').display = 'none';
    // The status line is the playground's too (Sheets has none).
    style('#busy').display = 'none';
    Object.assign(style('.page'), { padding: '0', gap: '0' });
    Object.assign(style('.sheets-window'), { borderRadius: '0', boxShadow: 'none' });
  });
}

describe('the listing screenshots', () => {
  const opened = useBrowser();

  test('plan, progress, Credits tab, Watch tab and the filled sheet, each 1280 x 800', async () => {
    const dir = assetsDir();
    opened.stateDir = tempStateDir();
    // Slow enough answers that the run is seen at work.
    opened.playground = await testPlayground(opened.stateDir, { credits: 500, latencyMs: 400 });
    opened.session = await openPage(opened.browser, opened.playground);
    const { page, sidebar } = opened.session;
    await listingFrame(page);
    const written: string[] = [];
    const shoot = async (name: string) => {
      const file = join(dir, name);
      await page.mouse.move(1, LISTING_SIZE.height - 1);
      await page.screenshot({ path: file });
      written.push(file);
    };

    // The sample column selected, Find e-mails: the plan and its price, before anything changes.
    await cell(page, 1, 1).click();
    await cell(page, 22, 1).click({ modifiers: ['Shift'] });
    await waitFor(
      () => opened.playground?.workbook.selection(),
      (sel) => JSON.stringify(sel) === JSON.stringify({ r1: 1, c1: 1, r2: 22, c2: 1 }),
      ACTION_MS,
      'the selection A1:A22 on the server',
    );
    await chooseMenu(page, RUN_LABEL);
    await sidebar.locator('#plan-start').waitFor({ state: 'visible' });
    await waitFor(
      () => frameText(page, '#plan-price'),
      (t) => t !== '',
      ACTION_MS,
      'the plan price',
    );
    await shoot('listing-1-plan.png');

    // Start: the run at work, some rows written.
    await sidebar.locator('#plan-start:not([disabled])').click();
    await waitFor(
      async () => `${await frameText(page, '#run-state')}|${await cell(page, 2, 2).textContent()}`,
      (s) => /^(Running|Done)/.test(s) && !s.endsWith('|'),
      30_000,
      'the run at work with a row written',
    );
    // One moment on one screen: the sheet shows a status for as many rows as the sidebar counts processed, and the
    // bar has reached the sidebar's percentage (its 0.2 s transition over).
    await waitFor(
      async () => {
        const processed = Number(/^(\d+) of/.exec(await frameText(page, '#run-fraction'))?.[1] ?? -1);
        const statuses = await Promise.all(
          Array.from({ length: 21 }, (_, i) => cell(page, i + 2, 3).textContent()),
        );
        const bar = await page
          .frameLocator('#sidebar-frame')
          .locator('#run-bar')
          .evaluate((track) => {
            const fill = track.querySelector('#run-bar-fill') as HTMLElement;
            return {
              at: fill.getBoundingClientRect().width / track.getBoundingClientRect().width,
              to: track.getAttribute('aria-valuenow'),
            };
          });
        const settled = Math.abs(bar.at * 100 - Number(bar.to)) < 1;
        return settled && processed === statuses.filter((text) => (text ?? '').trim() !== '').length;
      },
      (agree) => agree,
      30_000,
      'the sheet and the sidebar showing the same rows',
    );
    await shoot('listing-2-progress.png');
    await waitFor(
      () => frameText(page, '#run-state'),
      (s) => s.startsWith('Done'),
      60_000,
      'the run to end',
    );

    // The Credits tab: what the run spent.
    await sidebar.locator('#tab-credits').click();
    await waitFor(
      () => frameText(page, '#credits-today'),
      (t) => /\d/.test(t),
      ACTION_MS,
      'the credits of today',
    );
    await shoot('listing-4-credits.png');

    // The Watch tab: the column watched, who pays, the daily limit.
    await cell(page, 1, 1).click();
    await sidebar.locator('#tab-watch').click();
    await sidebar.locator('#watch-limit').fill('50');
    await sidebar.getByRole('button', { name: 'Start watching' }).click();
    await waitFor(
      () => frameText(page, '#watch-status'),
      (t) => t.startsWith('Watching Leads!A:A for new rows'),
      ACTION_MS,
      'the watch',
    );
    await shoot('listing-5-watch.png');

    // The filled sheet, the sidebar closed.
    await page.locator('#sidebar-close').click();
    await cell(page, 2, 2).click();
    await shoot('listing-3-sheet.png');

    for (const file of written) expect(pngSize(file)).toEqual(LISTING_SIZE);
    expect(written).toHaveLength(5);
  });

  test('the icons (128 and 32 px) and the card banner (220 x 140) from docs/listing/icon.svg', async () => {
    const dir = assetsDir();
    const icon = readFileSync(ICON_SOURCE, 'utf8');
    const context = await opened.browser.newContext({ deviceScaleFactor: 1 });
    try {
      const page = await context.newPage();
      // Nothing to fetch: the icon is inline.
      await page.route('**/*', (route) => route.abort());
      for (const size of ICON_SIZES) {
        await page.setViewportSize({ width: size, height: size });
        await page.setContent(
          `<html><body style="margin:0;background:transparent">${icon.replace(/width="128" height="128"/, `width="${size}" height="${size}"`)}</body></html>`,
        );
        const file = join(dir, `icon-${size}.png`);
        await page.screenshot({ path: file, omitBackground: true });
        expect(pngSize(file)).toEqual({ width: size, height: size });
      }
      // The card banner: the icon and the add-on's name, as the Marketplace's card shows an app.
      await page.setViewportSize(BANNER_SIZE);
      await page.setContent(`<html><body style="margin:0;width:220px;height:140px;display:flex;flex-direction:column;
align-items:center;justify-content:center;gap:8px;background:linear-gradient(135deg,#e6f4ea,#ffffff);
font-family:Arial,sans-serif">${icon.replace(/width="128" height="128"/, 'width="64" height="64"')}
<div style="font-size:17px;font-weight:bold;color:#202124">Profile Email Finder</div>
<div style="font-size:11px;color:#5f6368">work e-mails from profile URLs</div></body></html>`);
      const banner = join(dir, 'banner-220x140.png');
      await page.screenshot({ path: banner });
      expect(pngSize(banner)).toEqual(BANNER_SIZE);
    } finally {
      await context.close();
    }
  });
});
