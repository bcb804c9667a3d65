/**
 * The playground as a person uses it, in Chromium: paste profile URLs, select, run the add-on's menu action, watch
 * the sidebar drive the run, read the cells; type =FINDEMAIL; reload; run out of credits, add some, resume.
 * The page runs the built bundle in the emulator against the sandbox started in the same process.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE_SHEET_NAME } from '../../playground/sample';
import { normalizeProfileUrl, predictLookup } from '../../sandbox/profiles';
import { EXPORT_HEADER } from '../../src/credits/exportRows';
import {
  ACTION_MS,
  bounded,
  cell,
  chargeableProfiles,
  expectedRow,
  frameText,
  menuEntries,
  openPage,
  pasteColumn,
  people,
  profile,
  runFromMenu,
  tempStateDir,
  testPlayground,
  typeInCell,
  useBrowser,
  waitFor,
} from './helpers';

/** Opening the page: loading it (an action) and waiting for its menu. */
const OPEN_MS = ACTION_MS + 20_000;
/** The bounds of each test's waits (Playwright actions wait up to ACTION_MS each). */
const FIRST_TEST_WAITS = [
  [OPEN_MS, ACTION_MS, 10_000], // opening the page, pasting, the server's copy
  [3 * ACTION_MS, 30_000, 40_000, 10_000, ACTION_MS], // the menu, the run part-way, to its end, the cells, the panel
  [3 * ACTION_MS, 3 * 15_000], // typing three formulas, their results
  [4 * ACTION_MS], // the screenshot (UPDATE_SCREENSHOTS only)
  [20_000, OPEN_MS, 10_000, 20_000, 10_000], // idle, the reload, onOpen, idle, the cells
];
const SECOND_TEST_WAITS = [
  [OPEN_MS, 2 * ACTION_MS, ACTION_MS], // opening the page, setting 10 credits
  [ACTION_MS, 10_000, 3 * ACTION_MS, ACTION_MS], // pasting, selecting
  [3 * ACTION_MS, 30_000, ACTION_MS], // the menu, the pause, its 402 in the panel
  [ACTION_MS, ACTION_MS, ACTION_MS, 30_000], // adding credits, Resume, the end
  [3 * ACTION_MS, ACTION_MS, ACTION_MS], // the sliders, B20
];
const total = (waits: number[][]) => waits.flat().reduce((sum, ms) => sum + ms, 0);
// Each test's time limit: starting the playground (it bundles its page) plus its waits at full length.
const THIRD_TEST_WAITS = [
  [OPEN_MS, ACTION_MS, 10_000, 3 * ACTION_MS, 30_000], // opening, pasting, the run
  [ACTION_MS, 10_000, ACTION_MS], // Select the first failed row, its answer in the grid
  [2 * ACTION_MS, ACTION_MS, 3000, 3 * ACTION_MS, 10_000], // selecting, the quiet look, the second run
];
jest.setTimeout(
  30_000 + Math.max(total(FIRST_TEST_WAITS), total(SECOND_TEST_WAITS), total(THIRD_TEST_WAITS)),
);

const RUN_LABEL = 'Find e-mails for the selected column';

/** 50 entries as a real list has them: duplicates (one written differently), no address, two 422s, no URL. */
function fiftyEntries(): string[] {
  const entries = people(44);
  entries.splice(7, 0, profile('sophie-martin-noemail'));
  entries.splice(12, 0, 'not a url');
  entries.splice(17, 0, entries[0]);
  entries.splice(23, 0, profile('12345'));
  entries.splice(30, 0, 'http://network.com/in/dmitri-lopez-3/');
  entries.splice(38, 0, profile('noah-jones-nodomain'));
  return entries;
}

describe('the playground in a browser', () => {
  const opened = useBrowser();

  test('a pasted column of 50 URLs is enriched from the menu while the sidebar shows the progress; =FINDEMAIL and a reload charge nothing twice', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir, { credits: 500 });
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page, refused } = opened.session;

    // The menu is the one the bundle's onOpen built, and the sample sheet is there.
    const built = env.ui.menus.filter((m) => m.addon).at(-1)?.items as Array<{ caption?: string }>;
    expect(await menuEntries(page)).toEqual(built.filter((i) => i.caption).map((i) => i.caption));
    expect(await cell(page, 1, 1).textContent()).toBe('Profile URL');

    const entries = fiftyEntries();
    expect(entries).toHaveLength(50);
    await pasteColumn(page, 2, 1, entries);
    await waitFor(
      () => env.values(spreadsheetId, 'A2:A51').map((row) => row[0]),
      (values) => values.join('\n') === entries.join('\n'),
      10_000,
      'the pasted column on the server',
    );
    // The pasted block is the selection, as in Sheets; the server has it before the menu runs.
    expect(await page.locator('#selection-info').textContent()).toContain('A2:A51');

    // The service answers ten lookups, then holds the others until the sidebar has shown the run part-way.
    const release = pg.service.sandbox.service.hold(10);
    try {
      await runFromMenu(page, RUN_LABEL);
      await waitFor(
        async () => `${await frameText(page, '#run-state')} | ${await frameText(page, '#run-fraction')}`,
        (text) => /^Running \| \d+ of 50 rows/.test(text) && !text.includes('| 50 of 50'),
        30_000,
        'the sidebar to show the run part-way',
      );
    } finally {
      release();
    }
    await waitFor(
      async () => `${await frameText(page, '#run-state')} | ${await frameText(page, '#run-fraction')}`,
      (text) => text.startsWith('Done | 50 of 50 rows processed'),
      40_000,
      'the sidebar to show Done',
    );
    // The sidebar's calls drove the run.
    const driven = env.executions.filter((e) => e.fn === 'continueEnrichment').length;
    expect(driven).toBeGreaterThan(0);

    // The cells: every row's Email and Email status as the service answered (sheet and page agree).
    const rows = env.displayValues(spreadsheetId, 'B2:C51');
    expect(rows).toEqual(entries.map(expectedRow));
    expect(env.displayValues(spreadsheetId, 'B1:E1')[0]).toEqual([
      'Email',
      'Email status',
      'Catch-all',
      'Note',
    ]);
    // The page shows them once its own poll has brought the sheet's new version.
    const shown = () =>
      page.evaluate(() =>
        Array.from({ length: 19 }, (_, i) =>
          [2, 3].map(
            (c) => document.querySelector(`td[data-r="${i + 2}"][data-c="${c}"]`)?.textContent ?? null,
          ),
        ),
      );
    await waitFor(
      shown,
      (cells) => JSON.stringify(cells) === JSON.stringify(rows.slice(0, 19)),
      10_000,
      'B2:C20 in the page',
    );

    // The ledger: each distinct profile charged once, duplicates and the invalid entry never sent.
    const charges = pg.service.sandbox.service.chargesByUrl();
    expect(Object.keys(charges).sort()).toEqual(chargeableProfiles(entries));
    expect(Object.values(charges).every((n) => n === 1)).toBe(true);
    const chargedAfterRun = pg.service.view().charged;
    // 50 entries less two duplicates and the entry that is no URL.
    expect(chargedAfterRun).toBe(47);
    // The panel, on its own poll, shows the credits left and a ledger row for every request the service had.
    const requests = pg.service.view().requests;
    await waitFor(
      async () =>
        `${await page.locator('#credits').textContent()} | ${await page.locator('#ledger-body tr').count()}`,
      (t) => t === `${500 - 47} | ${requests}`,
      ACTION_MS,
      'credits and ledger in the panel',
    );

    // =FINDEMAIL(A2): the address from the result cache, no new charge; a new profile costs one; a range spills.
    await typeInCell(page, 2, 7, '=FINDEMAIL(A2)');
    const a2 = predictLookup(entries[0]);
    if (a2.kind !== 'found') throw new Error('A2 should have an address');
    await waitFor(
      () => cell(page, 2, 7).textContent(),
      (t) => t === a2.email,
      15_000,
      'G2 to show the address',
    );
    expect(env.formulas(spreadsheetId, 'G2')[0][0]).toBe('=FINDEMAIL(A2)');
    const fresh = profile('zoe-quinn');
    await typeInCell(page, 3, 7, `=FINDEMAIL("${fresh}")`);
    const zoe = predictLookup(fresh);
    if (zoe.kind !== 'found') throw new Error('zoe-quinn should have an address');
    await waitFor(
      () => cell(page, 3, 7).textContent(),
      (t) => t === zoe.email,
      15_000,
      'G3 to show the address',
    );
    await typeInCell(page, 5, 8, '=FINDEMAIL(A2:A4)');
    await waitFor(
      () => cell(page, 7, 8).textContent(),
      (t) => t !== '',
      15_000,
      'the spill to reach H7',
    );
    expect(env.displayValues(spreadsheetId, 'H5:H7').map((r) => r[0])).toEqual(
      entries.slice(0, 3).map((e) => expectedRow(e)[0]),
    );
    expect(env.formulas(spreadsheetId, 'H6:H7')).toEqual([[''], ['']]);
    expect(pg.service.view().charged).toBe(chargedAfterRun + 1);
    expect(pg.service.sandbox.service.chargesByUrl()[normalizeProfileUrl(fresh)]).toBe(1);

    if (process.env.UPDATE_SCREENSHOTS) {
      const file = join(__dirname, '..', '..', 'docs', 'playground.png');
      mkdirSync(join(file, '..'), { recursive: true });
      await page.setViewportSize({ width: 1200, height: 680 });
      await page.keyboard.press('Control+ArrowLeft');
      await page.keyboard.press('Control+ArrowUp');
      await cell(page, 2, 1).click();
      await page.locator('#sheets-window').hover({ position: { x: 5, y: 5 } });
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeLessThan(250 * 1024);
    }

    // A reload opens the document again: onOpen; formulas keep their values (none is evaluated), no new request.
    await bounded(pg.workbook.idle(), 20_000, 'the formulas to settle');
    const before = pg.service.view();
    const onOpens = env.executions.filter((e) => e.fn === 'onOpen').length;
    const evaluations = env.executions.filter((e) => e.fn === 'FINDEMAIL').length;
    await page.reload();
    await menuEntries(page);
    await waitFor(
      () => env.executions.filter((e) => e.fn === 'onOpen').length,
      (n) => n > onOpens,
      10_000,
      'onOpen',
    );
    await bounded(pg.workbook.idle(), 20_000, 'the opening after the reload');
    await waitFor(
      async () => [
        await cell(page, 2, 7).textContent(),
        await cell(page, 3, 7).textContent(),
        await cell(page, 2, 2).textContent(),
      ],
      (cells) => JSON.stringify(cells) === JSON.stringify([a2.email, zoe.email, rows[0][0]]),
      10_000,
      'G2, G3 and B2 after the reload',
    );
    const after = pg.service.view();
    expect(after.requests).toBe(before.requests);
    expect(after.charged).toBe(before.charged);
    expect(after.credits).toBe(before.credits);
    expect(env.executions.filter((e) => e.fn === 'FINDEMAIL').length).toBe(evaluations);
    // The page and its sidebar reached nothing but the playground's own servers.
    expect(refused).toEqual([]);
  });

  test('at 10 credits the run pauses; +100 credits and Resume finish it, each profile charged once', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir, { credits: 500 });
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page, sidebar, refused } = opened.session;

    await page.locator('#set-credits').fill('10');
    await page.locator('#set-credits-form button[type="submit"]').click();
    await waitFor(
      () => page.locator('#credits').textContent(),
      (t) => t === '10',
      ACTION_MS,
      'credits set to 10',
    );
    expect(pg.service.view().credits).toBe(10);

    const urls = people(30, 100);
    await pasteColumn(page, 2, 1, urls);
    await waitFor(
      () => env.values(spreadsheetId, 'A31')[0][0],
      (v) => v === urls[29],
      10_000,
      'the pasted column',
    );
    // Selected again by click and shift-click.
    await cell(page, 5, 5).click();
    await cell(page, 2, 1).click();
    await cell(page, 31, 1).click({ modifiers: ['Shift'] });
    await waitFor(
      () => pg.workbook.selection(),
      (sel) => JSON.stringify(sel) === JSON.stringify({ r1: 2, c1: 1, r2: 31, c2: 1 }),
      ACTION_MS,
      'the selection A2:A31 on the server',
    );
    await runFromMenu(page, RUN_LABEL);
    await waitFor(
      () => frameText(page, '#run-state'),
      (s) => s === 'Paused: out of credits',
      30_000,
      'the run to pause for credits',
    );
    expect(await frameText(page, '#run-message')).toMatch(/credit/i);
    const emails = () => env.displayValues(spreadsheetId, 'B2:B31').map((r) => r[0]);
    expect(emails().filter((e) => e !== '')).toHaveLength(10);
    expect(emails().slice(0, 10)).toEqual(urls.slice(0, 10).map((u) => expectedRow(u)[0]));
    expect(
      emails()
        .slice(10)
        .every((e) => e === ''),
    ).toBe(true);
    expect(pg.service.view().charged).toBe(10);
    expect(pg.service.view().ledger.some((row) => row.status === '402')).toBe(true);
    await waitFor(
      () => page.locator('#ledger-body .status', { hasText: '402' }).count(),
      (n) => n > 0,
      ACTION_MS,
      'the 402 in the panel',
    );

    await page.locator('#add-credits').click();
    await waitFor(
      () => page.locator('#credits').textContent(),
      (t) => t === '100',
      ACTION_MS,
      'credits added',
    );
    await sidebar.locator('#resume').click();
    await waitFor(
      () => frameText(page, '#run-state'),
      (s) => s === 'Done',
      30_000,
      'the run to finish',
    );

    expect(emails()).toEqual(urls.map((u) => expectedRow(u)[0]));
    const charges = pg.service.sandbox.service.chargesByUrl();
    expect(Object.keys(charges).sort()).toEqual(chargeableProfiles(urls));
    expect(Object.values(charges).every((n) => n === 1)).toBe(true);
    expect(pg.service.view().credits).toBe(100 - 20);
    // The fault sliders reach the sandbox.
    await page.locator('#error500').fill('0.25');
    await page.locator('#resets').fill('0.1');
    await page.locator('#latency').fill('250');
    await waitFor(
      () => pg.service.view(),
      (v) => v.error500Rate === 0.25 && v.resetRate === 0.1 && v.latencyMs === 250,
      ACTION_MS,
      'the sandbox to take the sliders',
    );
    await waitFor(
      () => cell(page, 20, 2).textContent(),
      (t) => t === expectedRow(urls[18])[0],
      ACTION_MS,
      'B20 in the page',
    );
    expect(refused).toEqual([]);
  });

  test('the grid shows the selection the add-on sees: Select the first failed row moves it, and the next run uses what is shown', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir, { credits: 100 });
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page, sidebar, refused } = opened.session;
    const entries = people(8);
    entries.splice(2, 0, 'not a url');
    await pasteColumn(page, 2, 1, entries);
    await waitFor(
      () => pg.workbook.selection(),
      (sel) => JSON.stringify(sel) === JSON.stringify({ r1: 2, c1: 1, r2: 10, c2: 1 }),
      10_000,
      'the pasted block selected on the server',
    );
    await runFromMenu(page, RUN_LABEL);
    await waitFor(
      () => frameText(page, '#run-state'),
      (t) => t === 'Done',
      30_000,
      'the run to end',
    );

    // The sidebar's button selects on the server; the grid shows it on its next look, without a click.
    await sidebar.locator('#select-failed').click();
    await waitFor(
      () => frameText(page, '#summary-message'),
      (t) => t.startsWith('Row 4 is selected'),
      10_000,
      'the sidebar to answer',
    );
    await waitFor(
      async () =>
        `${await page.locator('#name-box').textContent()} | ${await page.locator('#selection-info').textContent()}`,
      (t) => t.startsWith('A4 | A4:E4'),
      ACTION_MS,
      'the grid to show A4:E4 selected',
    );

    // A selection made in the grid reaches the server and stays shown (no later look puts the old one back).
    await cell(page, 2, 1).click();
    await cell(page, 6, 1).click({ modifiers: ['Shift'] });
    const a2a6 = JSON.stringify({ r1: 2, c1: 1, r2: 6, c2: 1 });
    await waitFor(
      () => pg.workbook.selection(),
      (sel) => JSON.stringify(sel) === a2a6,
      ACTION_MS,
      'A2:A6 on the server',
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await page.locator('#selection-info').textContent()).toContain('A2:A6');
    expect(JSON.stringify(pg.workbook.selection())).toBe(a2a6);
    // Find e-mails works on what the grid shows.
    await runFromMenu(page, RUN_LABEL);
    await waitFor(
      () => JSON.parse(env.documentProperties(spreadsheetId).get('pef.job') ?? '{}').lastRow,
      (last) => last === 6,
      10_000,
      'the run on A2:A6',
    );
    expect(refused).toEqual([]);
  });
  test("after an export of the credits log, its sheet has a tab that opens it; the add-on's hidden sheets have none", async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir, { credits: 500, latencyMs: 0 });
    const pg = opened.playground;
    opened.session = await openPage(opened.browser, pg);
    const { page, sidebar } = opened.session;
    const tabs = () => page.locator('#sheet-tab-list .sheet-tab').allTextContents();
    await expect(tabs()).resolves.toEqual([SAMPLE_SHEET_NAME]);
    // The sample column is selected at first: its run, from the plan's Start.
    await runFromMenu(page, RUN_LABEL);
    await waitFor(
      () => frameText(page, '#run-state'),
      (state) => state === 'Done',
      30_000,
      'the run to end',
    );
    await sidebar.locator('#tab-credits').click();
    await sidebar.locator('#credits-export').click();
    const charged = pg.service.sandbox.service.totalCharged();
    await waitFor(
      () => frameText(page, '#credits-export-status'),
      (text) => text === `Exported ${charged} charges into the sheet "Credits log".`,
      ACTION_MS,
      'the export to end',
    );
    await waitFor(
      tabs,
      (names) => names.join('|') === `${SAMPLE_SHEET_NAME}|Credits log`,
      ACTION_MS,
      'its tab',
    );
    await page.locator('#sheet-tab-list .sheet-tab', { hasText: 'Credits log' }).click();
    await waitFor(
      () => cell(page, 1, 1).textContent(),
      (text) => text === EXPORT_HEADER[0],
      ACTION_MS,
      'the log',
    );
    await expect(cell(page, 1, 7).textContent()).resolves.toBe('Outcome');
    await expect(cell(page, charged + 1, 2).textContent()).resolves.toBe('run');
    await expect(cell(page, charged + 2, 2).textContent()).resolves.toBe('');
    // The sample sheet again, as it was.
    await page.locator('#sheet-tab-list .sheet-tab', { hasText: SAMPLE_SHEET_NAME }).click();
    await waitFor(
      () => cell(page, 1, 1).textContent(),
      (text) => text === 'Profile URL',
      ACTION_MS,
      'the sample',
    );
    expect(opened.session.refused).toEqual([]);
  });
});
