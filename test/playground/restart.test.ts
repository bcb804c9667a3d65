/**
 * The playground keeps everything across a restart (without --reset), as a person sees it in Chromium: the Credits
 * tab's total (equal to what the sandbox charged), the exported credits log's tab and rows, and the watch, which
 * still answers a form response afterwards.
 */
import type { Page } from 'playwright-core';
import { SAMPLE_SHEET_NAME } from '../../playground/sample';
import type { Playground } from '../../playground/server';
import { WATCH_ITEM } from '../../src/core/product';
import { EXPORT_HEADER } from '../../src/credits/exportRows';
import {
  ACTION_MS,
  cell,
  chooseMenu,
  frameText,
  menuEntries,
  openPage,
  runFromMenu,
  type Session,
  tempStateDir,
  testPlayground,
  useBrowser,
  waitFor,
} from './helpers';

/** Opening the page: loading it (an action) and waiting for its menu. */
const OPEN_MS = ACTION_MS + 20_000;
const WAITS = [
  [OPEN_MS, 3 * ACTION_MS, 30_000], // opening, the run
  [3 * ACTION_MS, ACTION_MS, ACTION_MS], // the watch started
  [3 * ACTION_MS, ACTION_MS, ACTION_MS], // the Credits tab, the export, its tab
  [OPEN_MS, 3 * ACTION_MS, ACTION_MS, ACTION_MS], // the restart: the tabs, the watch
  [2 * ACTION_MS, ACTION_MS, ACTION_MS, 20_000], // the Credits tab, the export's sheet, a form response
];
jest.setTimeout(60_000 + WAITS.flat().reduce((sum, ms) => sum + ms, 0));

const RUN_LABEL = 'Find e-mails for the selected column';
/** "…, last checked 14:05." or "…, not checked yet.": the time a check ran is not part of what is kept. */
const withoutTime = (status: string) => status.replace(/last checked \d\d:\d\d/, 'last checked (time)');

const tabs = (page: Page) => page.locator('#sheet-tab-list .sheet-tab').allTextContents();

/**
 * The Credits tab of the sidebar (opened, or refreshed when open) shows `expected` as its total (it reads 0 until
 * its figures arrive).
 */
async function creditsTotal(session: Session, expected: string): Promise<string> {
  const open = await session.sidebar.locator('#view-credits').isVisible();
  await session.sidebar.locator(open ? '#credits-refresh' : '#tab-credits').click();
  return waitFor(
    () => frameText(session.page, '#credits-total'),
    (text) => text === expected,
    ACTION_MS,
    `the Credits tab total ${expected}`,
  );
}

/**
 * The Watch tab opened from the menu in a new sidebar (the one open is closed first, so its text is never read),
 * once the watch's open trigger has run: its status line.
 */
async function watchStatus(session: Session, playground: Playground): Promise<string> {
  if (await session.page.locator('#sidebar-panel').isVisible())
    await session.page.locator('#sidebar-close').click();
  await playground.workbook.idle();
  await chooseMenu(session.page, WATCH_ITEM);
  return waitFor(
    () => frameText(session.page, '#watch-status'),
    (text) => text.startsWith('Watching '),
    ACTION_MS,
    'the watch status',
  );
}

describe('the playground across a restart', () => {
  const opened = useBrowser();

  test('the Credits tab total, the exported log and its tab, and the watch are as before; the watch still works', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir, { credits: 500, latencyMs: 0 });
    opened.session = await openPage(opened.browser, opened.playground);
    const { page } = opened.session;

    // The sample column is selected at first: its run, from the plan's Start.
    await runFromMenu(page, RUN_LABEL);
    await waitFor(
      () => frameText(page, '#run-state'),
      (state) => state === 'Done',
      30_000,
      'the run to end',
    );

    // A watch on the same column (still selected), at most 25 credits a day.
    await chooseMenu(page, WATCH_ITEM);
    await opened.session.sidebar.locator('#watch-limit').fill('25');
    await opened.session.sidebar.getByRole('button', { name: 'Start watching' }).click();
    const watching = await waitFor(
      () => frameText(page, '#watch-status'),
      (text) => text.startsWith('Watching '),
      ACTION_MS,
      'the watch to start',
    );
    expect(watching).toMatch(/up to 25 credits a day/);

    const charged = opened.playground.service.view().charged;
    expect(charged).toBeGreaterThan(0);
    const total = await creditsTotal(opened.session, String(charged));
    await opened.session.sidebar.locator('#credits-export').click();
    await waitFor(
      () => frameText(page, '#credits-export-status'),
      (text) => text.startsWith('Exported '),
      ACTION_MS,
      'the export to end',
    );
    await waitFor(
      () => tabs(page),
      (names) => names.join('|') === `${SAMPLE_SHEET_NAME}|Credits log`,
      ACTION_MS,
      'its tab',
    );
    // The page opened again (onOpen and the watch's open trigger run), so the watch has checked the column once.
    await page.reload();
    // The menu comes with the answer to the page's opening, which has started the open trigger by then.
    await menuEntries(page);
    const status = await watchStatus(opened.session, opened.playground);
    const triggers = opened.playground.workbook.env.triggers.map(({ id, eventType, handler, user }) => ({
      id,
      eventType,
      handler,
      user,
    }));
    expect(triggers.length).toBeGreaterThan(0);
    // The watch's check found nothing new to look up: what the Credits tab showed is still what was charged.
    expect(opened.playground.service.view().charged).toBe(charged);

    // The restart: the page and the playground closed (Ctrl-C saves the state), then started on the same state.
    await opened.session.context.close();
    opened.session = undefined;
    await opened.playground.close();
    opened.playground = await testPlayground(opened.stateDir, { latencyMs: 0 });
    opened.session = await openPage(opened.browser, opened.playground);
    const again = opened.session.page;

    await expect(tabs(again)).resolves.toEqual([SAMPLE_SHEET_NAME, 'Credits log']);
    expect(withoutTime(await watchStatus(opened.session, opened.playground))).toBe(withoutTime(status));
    expect(
      opened.playground.workbook.env.triggers.map(({ id, eventType, handler, user }) => ({
        id,
        eventType,
        handler,
        user,
      })),
    ).toEqual(triggers);
    await creditsTotal(opened.session, total);
    expect(opened.playground.service.view().charged).toBe(charged);

    // The exported log, as it was: its header, one row per charge.
    await again.locator('#sheet-tab-list .sheet-tab', { hasText: 'Credits log' }).click();
    await waitFor(
      () => cell(again, 1, 1).textContent(),
      (text) => text === EXPORT_HEADER[0],
      ACTION_MS,
      'the exported log',
    );
    await expect(cell(again, charged + 1, 2).textContent()).resolves.not.toBe('');
    await expect(cell(again, charged + 2, 2).textContent()).resolves.toBe('');
    await again.locator('#sheet-tab-list .sheet-tab', { hasText: SAMPLE_SHEET_NAME }).click();

    // The watch still answers: a form response's new row is looked up, one credit, logged in the Credits tab.
    await again.locator('#menu-insert').click();
    await again.locator('#submit-form').click();
    await waitFor(
      () => opened.playground?.service.view().charged ?? 0,
      (now) => now === charged + 1,
      20_000,
      'the watch to look the new row up',
    );
    await creditsTotal(opened.session, String(charged + 1));
    expect(opened.session.refused).toEqual([]);
  });
});
