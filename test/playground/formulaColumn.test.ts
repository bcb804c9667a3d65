/**
 * A column of =FINDEMAIL cells made as a person makes one in Sheets, in Chromium: =FINDEMAIL(A2) typed once and
 * dragged down 100 rows with the fill handle (each cell's reference moved, as Sheets moves it), Apps Script's 30
 * executions at once leaving most of them #ERROR!, then Refresh =FINDEMAIL cells, whose Yes/No question the page
 * shows and the person answers: every cell finished, each profile charged once. Ctrl+D, Ctrl+Enter and copy and
 * paste fill formulas the same way. With UPDATE_SCREENSHOTS, the question and the filled column go into docs/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROW_HEIGHT as ROW_PX } from '../../playground/client/grid';
import { predictLookup } from '../../sandbox/profiles';
import { REFRESH_ITEM } from '../../src/core/product';
import {
  ACTION_MS,
  bounded,
  cell,
  chooseMenu,
  frameText,
  openPlayground,
  pasteOnServer,
  people,
  typeInCell,
  useBrowser,
  waitFor,
} from './helpers';

const ROWS = 100;
const OPEN_MS = ACTION_MS + 20_000;
jest.setTimeout(60_000 + OPEN_MS + 14 * ACTION_MS + 3 * 60_000);

const DOCS = join(__dirname, '..', '..', 'docs');

/** The address each of the people has (the sandbox's answers are deterministic). */
function addressOf(url: string): string {
  const answer = predictLookup(url);
  if (answer.kind !== 'found') throw new Error(`${url} should have an address`);
  return answer.email;
}

/**
 * Drags the fill handle from the selection down to row `to` of its column: the pointer goes below the rows in view,
 * the wheel scrolls the grid while the button is held (as a person scrolls during a drag), and the button is
 * released over the last row's cell.
 */
async function dragFillHandle(page: Page, column: number, to: number): Promise<void> {
  const handle = page.locator('.fill-handle');
  await handle.waitFor({ state: 'visible' });
  const start = await handle.boundingBox();
  if (!start) throw new Error('No fill handle');
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  const grid = await page.locator('.grid-scroll').boundingBox();
  if (!grid) throw new Error('No grid');
  await page.mouse.move(start.x, grid.y + grid.height - 2 * ROW_PX, { steps: 5 });
  const target = cell(page, to, column);
  for (let turn = 0; turn < 40; turn++) {
    const box = (await target.count()) > 0 ? await target.boundingBox() : null;
    if (box && box.y + box.height < grid.y + grid.height && box.y > grid.y + ROW_PX) break;
    await page.mouse.wheel(0, 10 * ROW_PX);
  }
  const box = await target.boundingBox();
  if (!box) throw new Error(`Row ${to} is not in view`);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
  await page.mouse.up();
}

describe('a column of =FINDEMAIL cells in the playground', () => {
  const opened = useBrowser();

  test('dragged down 100 rows with the fill handle, then Refresh asks in the page; Yes finishes every cell, each profile paid once', async () => {
    const { pg, session } = await openPlayground(opened, { credits: 500 });
    const { env, spreadsheetId } = pg.workbook;
    const { page } = session;

    const urls = people(ROWS);
    await pasteOnServer(page, pg, 2, 1, urls);
    await typeInCell(page, 2, 2, '=FINDEMAIL(A2)');
    await waitFor(
      () => cell(page, 2, 2).textContent(),
      (text) => text === addressOf(urls[0]),
      ACTION_MS,
      'B2 to show its address',
    );

    await cell(page, 2, 2).click();
    await dragFillHandle(page, 2, ROWS + 1);
    // Every cell holds the formula with its own row, as Sheets fills it.
    await waitFor(
      () => env.formulas(spreadsheetId, `B2:B${ROWS + 1}`).map((row) => row[0]),
      (formulas) => formulas.every((formula, index) => formula === `=FINDEMAIL(A${index + 2})`),
      ACTION_MS,
      'the filled formulas on the server',
    );
    expect(await page.locator('#selection-info').textContent()).toContain(`B2:B${ROWS + 1}`);
    // The 99 new cells are 99 executions at once: past Apps Script's 30, the rest are refused (#ERROR!).
    await bounded(pg.workbook.idle(), 60_000, 'the filled cells to be evaluated');
    const firstRound = env.displayValues(spreadsheetId, `B2:B${ROWS + 1}`).map((row) => row[0]);
    const refused = firstRound.filter((value) => value === '#ERROR!').length;
    expect(refused).toBeGreaterThan(ROWS - 1 - 30 - 1);

    await chooseMenu(page, REFRESH_ITEM);
    const question = page.locator('#question');
    await question.waitFor({ state: 'visible' });
    const text = (await page.locator('#question-text').textContent()) ?? '';
    expect(text).toMatch(
      new RegExp(`^B2:B${ROWS + 1} holds ${ROWS} single =FINDEMAIL cells, ${refused} of them not done\\.`),
    );
    expect(text).toContain(`=FINDEMAIL(A2:A${ROWS + 1}) in the first cell`);
    expect(await page.locator('#question-buttons button').allTextContents()).toEqual(['Yes', 'No']);
    if (process.env.UPDATE_SCREENSHOTS) {
      mkdirSync(DOCS, { recursive: true });
      await page.screenshot({ path: join(DOCS, 'playground-refresh-question.png') });
    }
    await page.locator('#question-buttons button', { hasText: 'Yes' }).click();
    await question.waitFor({ state: 'hidden' });

    // One range formula in B2 fills the column: every cell finished, with its profile's address.
    await waitFor(
      () => env.displayValues(spreadsheetId, `B2:B${ROWS + 1}`).map((row) => row[0]),
      (values) => values.every((value, index) => value === addressOf(urls[index])),
      60_000,
      'every cell of the column to show its address',
    );
    expect(env.formulas(spreadsheetId, 'B2:B3')).toEqual([[`=FINDEMAIL(A2:A${ROWS + 1})`], ['']]);
    // The page, still scrolled to the column's end, shows its last cell's address.
    await waitFor(
      () => cell(page, ROWS + 1, 2).textContent(),
      (shown) => shown === addressOf(urls[ROWS - 1]),
      ACTION_MS,
      `B${ROWS + 1} in the page`,
    );
    // Each profile was paid once: the cells refused at first and the range formula read what was paid for.
    const charges = pg.service.sandbox.service.chargesByUrl();
    expect(Object.keys(charges)).toHaveLength(ROWS);
    expect(Object.values(charges).every((n) => n === 1)).toBe(true);
    if (process.env.UPDATE_SCREENSHOTS) {
      await cell(page, ROWS + 1, 2).click();
      await page.keyboard.press('Control+ArrowUp');
      await cell(page, 2, 2).click();
      await page.screenshot({ path: join(DOCS, 'playground-filled-column.png') });
    }
  });

  test('Ctrl+D, Ctrl+Enter and copy and paste fill formulas with their references moved', async () => {
    const { pg, session } = await openPlayground(opened, { credits: 500 });
    const { env, spreadsheetId } = pg.workbook;
    const { page } = session;

    // Ctrl+D: G2's formula down G2:G6.
    await typeInCell(page, 2, 7, '=A2*3');
    await cell(page, 2, 7).click();
    await cell(page, 6, 7).click({ modifiers: ['Shift'] });
    await page.keyboard.press('Control+D');
    await waitFor(
      () => env.formulas(spreadsheetId, 'G2:G6').map((row) => row[0]),
      (formulas) => formulas.join('|') === [2, 3, 4, 5, 6].map((r) => `=A${r}*3`).join('|'),
      ACTION_MS,
      'Ctrl+D to fill G3:G6',
    );

    // Ctrl+Enter: typed once into H2:H4, each cell's reference its own row.
    await cell(page, 2, 8).click();
    await cell(page, 4, 8).click({ modifiers: ['Shift'] });
    await page.keyboard.type('=FINDEMAIL(A2)');
    await page.keyboard.press('Control+Enter');
    await waitFor(
      () => env.formulas(spreadsheetId, 'H2:H4').map((row) => row[0]),
      (formulas) => formulas.join('|') === '=FINDEMAIL(A2)|=FINDEMAIL(A3)|=FINDEMAIL(A4)',
      ACTION_MS,
      'Ctrl+Enter to fill H2:H4',
    );

    // Copy H2, paste into I5: the formula, its reference moved (never the value it shows).
    await cell(page, 2, 8).click();
    await page.keyboard.press('Control+C');
    await cell(page, 5, 9).click();
    await page.keyboard.press('Control+V');
    await waitFor(
      () => env.formulas(spreadsheetId, 'I5')[0][0],
      (formula) => formula === '=FINDEMAIL(B5)',
      ACTION_MS,
      'the pasted formula in I5',
    );
  });

  test("Settings' notice is read when the tab shows, and its Replace asks in the page: No changes nothing, Yes replaces", async () => {
    const { pg, session } = await openPlayground(opened, { credits: 500 });
    const { env, spreadsheetId } = pg.workbook;
    const { page, sidebar } = session;
    const rows = 40;
    const urls = people(rows);

    // The sidebar open on Settings before the column exists: nothing to say yet.
    await chooseMenu(page, 'Settings & API key');
    await sidebar.locator('#tab-settings').waitFor();
    await expect(sidebar.locator('#single-cells').isHidden()).resolves.toBe(true);

    await pasteOnServer(page, pg, 2, 1, urls);
    await typeInCell(page, 2, 2, '=FINDEMAIL(A2)');
    await cell(page, 2, 2).click();
    await cell(page, rows + 1, 2).click({ modifiers: ['Shift'] });
    await page.keyboard.press('Control+D');
    await waitFor(
      () => env.formulas(spreadsheetId, `B${rows + 1}`)[0][0],
      (formula) => formula === `=FINDEMAIL(A${rows + 1})`,
      ACTION_MS,
      'the column filled',
    );
    await bounded(pg.workbook.idle(), 60_000, 'the cells to be evaluated');

    // Back to the sidebar's Settings tab: the notice is read again, with the column's numbers.
    await sidebar.locator('#tab-credits').click();
    await sidebar.locator('#tab-settings').click();
    const notice = await waitFor(
      () => frameText(page, '#single-cells-text'),
      (text) => text.startsWith(`B2:B${rows + 1} holds ${rows} single =FINDEMAIL cells`),
      ACTION_MS,
      'the notice on the column of single cells',
    );
    expect(notice).toContain(`=FINDEMAIL(A2:A${rows + 1})`);

    // Replace asks first, in the page; No changes nothing.
    await sidebar.locator('#replace-single-cells').click();
    await page.locator('#question').waitFor({ state: 'visible' });
    expect(await page.locator('#question-text').textContent()).toContain('No: nothing changes.');
    if (process.env.UPDATE_SCREENSHOTS)
      await page.screenshot({ path: join(DOCS, 'playground-replace-question.png') });
    await page.locator('#question-buttons button', { hasText: 'No' }).click();
    await waitFor(
      () => frameText(page, '#single-cells-message'),
      (text) => text.startsWith('Nothing changed.'),
      ACTION_MS,
      'the answer to No',
    );
    expect(env.formulas(spreadsheetId, 'B3')[0][0]).toBe('=FINDEMAIL(A3)');

    // Asked again, Yes: one range formula, every cell done, the notice gone.
    await sidebar.locator('#replace-single-cells').click();
    await page.locator('#question-buttons button', { hasText: 'Yes' }).click();
    await waitFor(
      () => env.displayValues(spreadsheetId, `B2:B${rows + 1}`).map((row) => row[0]),
      (values) => values.every((value, index) => value === addressOf(urls[index])),
      60_000,
      'every cell to show its address',
    );
    expect(env.formulas(spreadsheetId, 'B2')[0][0]).toBe(`=FINDEMAIL(A2:A${rows + 1})`);
    await waitFor(
      () => sidebar.locator('#single-cells').isHidden(),
      (hidden) => hidden,
      ACTION_MS,
      'the notice to go',
    );
  });
});
