/**
 * Formulas across a restart of the playground, in Chromium, as Sheets keeps them: a custom function runs again only
 * when its formula or an input changes, so the values a person saw are there after the restart, the sandbox's
 * ledger too, and nothing is sent at start-up — even after Remove this spreadsheet's add-on data, when every
 * formula evaluated again would pay for its profile again.
 */
import type { Page } from 'playwright-core';
import { SAMPLE_URLS } from '../../playground/sample';
import type { Playground } from '../../playground/server';
import {
  ACTION_MS,
  bounded,
  cell,
  chooseMenu,
  menuEntries,
  openPage,
  openPlayground,
  type Session,
  testPlayground,
  typeInCell,
  useBrowser,
  waitFor,
} from './helpers';

const OPEN_MS = ACTION_MS + 20_000;
jest.setTimeout(60_000 + 2 * OPEN_MS + 16 * ACTION_MS + 60_000);

/** The sample's rows: =FINDEMAIL(A2) filled down G2:G22, and one range formula in H2. */
const LAST = SAMPLE_URLS.length + 1;

/** What the page shows in G2:H22 and the sandbox panel's figures and ledger rows. */
async function shown(page: Page): Promise<{ cells: string[]; panel: string; ledger: string[] }> {
  const cells: string[] = [];
  for (let r = 2; r <= LAST; r++)
    for (const c of [7, 8]) cells.push((await cell(page, r, c).textContent()) ?? '');
  const panel = `${await page.locator('#credits').textContent()} | ${await page.locator('.credits-meta').textContent()}`;
  const ledger = await page.locator('#ledger-body tr').allTextContents();
  return { cells, panel, ledger };
}

/** Nothing in G2:H22 is still computing. */
const settled = (cells: string[]) => cells.every((text) => text !== 'Loading…' && text !== 'Loading...');

async function removeData(session: Session): Promise<void> {
  const { page, sidebar } = session;
  await chooseMenu(page, 'Settings & API key');
  await sidebar.getByRole('button', { name: "Remove this spreadsheet's add-on data" }).click();
  await sidebar.getByRole('button', { name: 'Remove the data' }).click();
  await sidebar
    .locator('#remove-data-message')
    .filter({ hasText: /^Removed/ })
    .waitFor();
}

describe('formulas across a restart of the playground', () => {
  const opened = useBrowser();

  test('keep their values, the ledger stays, and nothing is sent at start-up, even after Remove data', async () => {
    const first = await openPlayground(opened, { credits: 500 });
    let pg: Playground = first.pg;
    let { page } = first.session;

    await typeInCell(page, 2, 7, '=FINDEMAIL(A2)');
    await cell(page, 2, 7).click();
    await cell(page, LAST, 7).click({ modifiers: ['Shift'] });
    await page.keyboard.press('Control+D');
    await typeInCell(page, 2, 8, `=FINDEMAIL(A2:A${LAST})`);
    await bounded(pg.workbook.idle(), 60_000, 'the formulas to be evaluated');
    const before = await waitFor(
      () => shown(page),
      (seen) => settled(seen.cells) && seen.ledger.length === pg.service.view().requests,
      ACTION_MS,
      'the formulas and the ledger in the page',
    );
    // Every formula has its profile's answer; the column of single cells and the range formula agree.
    for (let row = 0; row < LAST - 1; row++) expect(before.cells[2 * row]).toBe(before.cells[2 * row + 1]);
    expect(before.cells.filter((text) => text.includes('@'))).not.toHaveLength(0);
    expect(pg.service.view().charged).toBeGreaterThan(0);

    // The add-on's data removed: every result it paid for is forgotten, the cells still show theirs.
    await removeData(first.session);
    await bounded(pg.workbook.idle(), ACTION_MS, 'the removal');
    const sandbox = pg.service.view();

    await first.session.context.close();
    opened.session = undefined;
    await pg.close();
    opened.playground = await testPlayground(opened.stateDir);
    pg = opened.playground;
    opened.session = await openPage(opened.browser, pg);
    page = opened.session.page;
    await menuEntries(page);
    await bounded(pg.workbook.idle(), 30_000, 'the start-up');

    // The same values, the same ledger, and no request: no formula was evaluated again.
    const after = await waitFor(
      () => shown(page),
      (seen) => seen.ledger.length === before.ledger.length,
      ACTION_MS,
      'the page after the restart',
    );
    expect(after).toEqual(before);
    const restarted = pg.service.view();
    expect([restarted.requests, restarted.charged, restarted.credits]).toEqual([
      sandbox.requests,
      sandbox.charged,
      sandbox.credits,
    ]);
    expect(pg.workbook.env.executions.filter((execution) => execution.fn === 'FINDEMAIL')).toEqual([]);

    // A reload of the page opens the document again: still nothing evaluated, nothing sent.
    await page.reload();
    await menuEntries(page);
    await bounded(pg.workbook.idle(), 30_000, 'the reload');
    expect((await shown(page)).cells).toEqual(before.cells);
    expect(pg.service.view().requests).toBe(sandbox.requests);

    // An input that changes is what evaluates a formula again (the results were removed: it pays again).
    await typeInCell(page, 2, 1, SAMPLE_URLS[1]);
    await waitFor(
      () => cell(page, 2, 7).textContent(),
      (text) => text === before.cells[2],
      ACTION_MS,
      'G2 to follow its new input',
    );
    expect(pg.workbook.env.executions.some((execution) => execution.fn === 'FINDEMAIL')).toBe(true);
  });
});
