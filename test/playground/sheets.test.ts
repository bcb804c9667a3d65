import { DEMO_KEY } from '../../playground/service';
import { API_KEY_PROPERTY, DEMO_USER } from '../../playground/workbook';
import { START_AT_ONCE } from '../support/harness';
import {
  ACTION_MS,
  cell,
  cellShows,
  chooseMenu,
  expectedRow,
  frameText,
  openPage,
  pasteColumn,
  people,
  type Session,
  tempStateDir,
  testPlayground,
  typeInCell,
  useBrowser,
  waitFor,
} from './helpers';

// Each test: starting the playground and the page (≈ 30 s at most), then bounded waits of at most ~60 s.
jest.setTimeout(120_000);

const RUN_LABEL = 'Find e-mails for the selected column';

async function clickMenu(session: Session, menu: string, entry: string): Promise<void> {
  await session.page.locator(menu).click();
  await session.page.locator(entry).click();
}

describe('the playground behaves like Sheets', () => {
  const opened = useBrowser();

  test('a cell typed and a range sorted while the menu’s execution runs land at once; the run writes beside them', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir);
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    const sandbox = pg.service.sandbox.service;
    opened.session = await openPage(opened.browser, pg);
    const { page } = opened.session;

    // Five lookups, one batch (ENRICH_BATCH_SIZE 5): the menu's Start works the run itself (a longer run's Start
    // leaves it to the sidebar).
    const urls = people(5, 300);
    await pasteColumn(page, 2, 1, urls);
    await waitFor(
      () => env.values(spreadsheetId, 'A6')[0][0],
      (v) => v === urls[4],
      10_000,
      'the pasted column',
    );
    // A small list in H to sort during the run.
    await pasteColumn(page, 2, 8, ['pear', 'apple', 'fig']);
    await waitFor(
      () => env.values(spreadsheetId, 'H4')[0][0],
      (v) => v === 'fig',
      10_000,
      'H2:H4',
    );
    await pasteColumn(page, 2, 1, urls);
    await waitFor(
      () => JSON.stringify(pg.workbook.selection()),
      (s) => s === JSON.stringify({ r1: 2, c1: 1, r2: 6, c2: 1 }),
      ACTION_MS,
      'the selection A2:A6',
    );

    // The sandbox answers no lookup until the test releases it: the menu's execution, waiting for its first batch,
    // runs for as long as the browser takes to type and sort, however slow the machine.
    const release = sandbox.hold();
    try {
      // The person chose in Settings to start runs under 1,000,000 credits at once: the menu's own execution then
      // works the run's first slice (by default it opens the plan).
      env.userProperties(DEMO_USER).set({ PEF_SETTINGS: START_AT_ONCE });
      await chooseMenu(page, RUN_LABEL);
      const menuRunning = () => pg.workbook.busy().some((line) => line.startsWith('Running'));
      await waitFor(
        () => menuRunning() && sandbox.held > 0,
        (on) => on,
        30_000,
        'the menu’s execution to wait for its first batch',
      );
      await typeInCell(page, 3, 6, 'typed during the run');
      const landed = await waitFor(
        () => ({ value: env.values(spreadsheetId, 'F3')[0][0], running: menuRunning() }),
        (seen) => seen.value === 'typed during the run',
        30_000,
        'F3 on the server',
      );
      // Before the fix the edit waited behind the menu's call: it landed only once the execution had returned.
      expect(landed.running).toBe(true);

      await cell(page, 2, 8).click();
      await cell(page, 4, 8).click({ modifiers: ['Shift'] });
      await clickMenu(opened.session, '#menu-data', '#sort-asc');
      const sorted = await waitFor(
        () => ({ values: env.values(spreadsheetId, 'H2:H4').flat().join(','), running: menuRunning() }),
        (seen) => seen.values === 'apple,fig,pear',
        30_000,
        'H2:H4 sorted',
      );
      expect(sorted.running).toBe(true);
      // Nothing answered yet: the run has written no row.
      expect(
        env
          .values(spreadsheetId, 'B2:C6')
          .flat()
          .every((v) => v === ''),
      ).toBe(true);
    } finally {
      release();
    }

    // The sidebar drives the rest of the run; it writes beside the typed cell and leaves it alone.
    await waitFor(
      () => frameText(page, '#run-state'),
      (s) => s === 'Done',
      60_000,
      'the run to finish',
    );
    expect(env.displayValues(spreadsheetId, 'B2:C6')).toEqual(urls.map(expectedRow));
    expect(env.values(spreadsheetId, 'F3')[0][0]).toBe('typed during the run');
    expect(env.values(spreadsheetId, 'H2:H4').flat()).toEqual(['apple', 'fig', 'pear']);
  });

  test('a paste past the last row adds rows (and columns) instead of dropping lines', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir);
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page } = opened.session;
    const sheet = env.spreadsheet(spreadsheetId).activeSheet();
    expect(sheet.maxRows).toBe(1000);

    const lines = Array.from({ length: 6 }, (_, i) => `line ${i + 1}\tright ${i + 1}`);
    await cell(page, 1, 1).click();
    await page.keyboard.press('Control+ArrowDown');
    await page.keyboard.press('Control+ArrowRight');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    // Z998: six lines two cells wide reach row 1003 and column AA.
    await page.evaluate((text) => navigator.clipboard.writeText(text), lines.join('\n'));
    await page.keyboard.press('Control+V');
    await waitFor(
      () => sheet.maxRows,
      (n) => n === 1003,
      10_000,
      'the sheet to grow to 1003 rows',
    );
    expect(sheet.maxCols).toBe(27);
    expect(env.values(spreadsheetId, 'Z998:AA1003')).toEqual(lines.map((line) => line.split('\t')));
    await cellShows(page, 1003, 27, 'right 6', 'AA1003 in the page');
    expect(await page.locator('#selection-info').textContent()).toContain('Z998:AA1003');
  });

  test('Data › Sort range, Insert › rows and Edit › Delete rows change the sheet; references follow', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir);
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page } = opened.session;
    const names = ['carol', 'alice', 'bob', 'dave'];
    await pasteColumn(
      page,
      30,
      4,
      names.map((name, i) => `${name}\t${[3, 1, 4, 2][i]}`),
    );
    await waitFor(
      () => env.values(spreadsheetId, 'E33')[0][0],
      (v) => v === 2,
      10_000,
      'D30:E33',
    );
    await typeInCell(page, 40, 4, '=E31*10');
    await waitFor(
      () => env.values(spreadsheetId, 'D40')[0][0],
      (v) => v === 10,
      ACTION_MS,
      '=E31*10',
    );

    // Sorted by the active cell's column: D (names), then E (numbers, Z to A); each row's cells move together.
    await cell(page, 30, 4).click();
    await cell(page, 33, 5).click({ modifiers: ['Shift'] });
    expect(await page.locator('#sort-asc').textContent()).toBe('Sort range by column D (A to Z)');
    await clickMenu(opened.session, '#menu-data', '#sort-asc');
    await waitFor(
      () => JSON.stringify(env.values(spreadsheetId, 'D30:E33')),
      (v) =>
        v ===
        JSON.stringify([
          ['alice', 1],
          ['bob', 4],
          ['carol', 3],
          ['dave', 2],
        ]),
      ACTION_MS,
      'sorted by D',
    );
    await cell(page, 30, 5).click();
    await cell(page, 33, 4).click({ modifiers: ['Shift'] });
    await clickMenu(opened.session, '#menu-data', '#sort-desc');
    await waitFor(
      () => env.values(spreadsheetId, 'E30:E33').flat().join(','),
      (v) => v === '4,3,2,1',
      ACTION_MS,
      'sorted by E, Z to A',
    );
    expect(env.values(spreadsheetId, 'D30:D33').flat()).toEqual(['bob', 'carol', 'dave', 'alice']);

    // Two rows inserted above row 31: the formula's reference moves with its cell (E31 → E33).
    await cell(page, 31, 1).click();
    await cell(page, 32, 1).click({ modifiers: ['Shift'] });
    expect(await page.locator('#insert-above').textContent()).toBe('Insert 2 rows above');
    await clickMenu(opened.session, '#menu-insert', '#insert-above');
    await waitFor(
      () => env.values(spreadsheetId, 'D33')[0][0],
      (v) => v === 'carol',
      ACTION_MS,
      'rows inserted',
    );
    expect(env.values(spreadsheetId, 'D31:D32').flat()).toEqual(['', '']);
    expect(env.formulas(spreadsheetId, 'D42')[0][0]).toBe('=E33*10');
    expect(env.values(spreadsheetId, 'D42')[0][0]).toBe(30);
    expect(env.spreadsheet(spreadsheetId).activeSheet().maxRows).toBe(1002);

    // One row inserted below row 30, then rows 31 to 33 deleted: carol is next to bob again.
    await cell(page, 30, 1).click();
    await clickMenu(opened.session, '#menu-insert', '#insert-below');
    await waitFor(
      () => env.values(spreadsheetId, 'D34')[0][0],
      (v) => v === 'carol',
      ACTION_MS,
      'a row below',
    );
    await cell(page, 31, 1).click();
    await cell(page, 33, 1).click({ modifiers: ['Shift'] });
    expect(await page.locator('#delete-rows').textContent()).toBe('Delete rows 31 - 33');
    await clickMenu(opened.session, '#menu-edit', '#delete-rows');
    await waitFor(
      () => env.values(spreadsheetId, 'D31')[0][0],
      (v) => v === 'carol',
      ACTION_MS,
      'rows deleted',
    );
    expect(env.values(spreadsheetId, 'D30:D33').flat()).toEqual(['bob', 'carol', 'dave', 'alice']);
    expect(env.formulas(spreadsheetId, 'D40')[0][0]).toBe('=E31*10');
    await cellShows(page, 31, 4, 'carol', 'D31 in the page');
  });

  test('=1+1 is a formula: its value is in the cell, references recalculate, errors show as in Sheets', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir);
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page } = opened.session;

    await typeInCell(page, 2, 6, '=1+1');
    await cellShows(page, 2, 6, '2', 'F2 to show 2');
    expect(env.values(spreadsheetId, 'F2')[0][0]).toBe(2);
    expect(env.formulas(spreadsheetId, 'F2')[0][0]).toBe('=1+1');
    await cell(page, 2, 6).click();
    expect(await page.locator('#formula-input').inputValue()).toBe('=1+1');

    await typeInCell(page, 3, 6, '=(F2+1)*2^2');
    await cellShows(page, 3, 6, '12', 'F3 to show 12');
    await typeInCell(page, 2, 6, '=10/4');
    await cellShows(page, 3, 6, '14', 'F3 to follow F2');
    expect(env.values(spreadsheetId, 'F2:F3').flat()).toEqual([2.5, 14]);

    await typeInCell(page, 4, 6, '=1/0');
    await cellShows(page, 4, 6, '#DIV/0!', 'F4 #DIV/0!');
    expect(await cell(page, 4, 6).getAttribute('class')).toContain('k-error');
    await typeInCell(page, 5, 6, '=A2+1');
    await cellShows(page, 5, 6, '#VALUE!', 'F5 #VALUE!');
    // A formula outside plain arithmetic stays as typed, with a note.
    await typeInCell(page, 6, 6, '=SUM(F2:F3)');
    await cellShows(page, 6, 6, '=SUM(F2:F3)', 'F6');
    expect(await cell(page, 6, 6).getAttribute('title')).toMatch(/plain arithmetic/);
  });

  test('the sandbox panel: the demo key shown and restored; key checks are free rows; rate limit and long tail set', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir);
    const pg = opened.playground;
    const { env, spreadsheetId } = pg.workbook;
    opened.session = await openPage(opened.browser, pg);
    const { page } = opened.session;
    const sandbox = pg.service.sandbox.service;

    expect(await page.locator('#org-key').textContent()).toBe(pg.service.view().maskedKey);
    await page.locator('#key-show').click();
    await waitFor(
      () => page.locator('#org-key').textContent(),
      (t) => t === DEMO_KEY,
      ACTION_MS,
      'the key shown',
    );
    await page.locator('#key-show').click();
    await waitFor(
      () => page.locator('#org-key').textContent(),
      (t) => t === pg.service.view().maskedKey,
      ACTION_MS,
      'the key hidden',
    );

    // The user saved another key (the service rejects it): the add-on's key check is a free 401, labelled so.
    await env.run('saveApiKey', ['wrong-key-0000000000'], { user: DEMO_USER, spreadsheetId });
    const bad = (await env.run('checkApiKey', [], { user: DEMO_USER, spreadsheetId })) as { ok: boolean };
    expect(bad.ok).toBe(false);
    await page.locator('#key-restore').click();
    // The add-on's own saveApiKey does it: wait for that execution to end (it writes the key before it ends).
    await waitFor(
      () => env.executions.filter((e) => e.fn === 'saveApiKey' && e.ok).length,
      (saves) => saves === 2,
      ACTION_MS,
      'the demo key restored by saveApiKey',
    );
    expect(env.userProperties(DEMO_USER).get(API_KEY_PROPERTY)).toBe(DEMO_KEY);
    const good = (await env.run('checkApiKey', [], { user: DEMO_USER, spreadsheetId })) as { ok: boolean };
    expect(good.ok).toBe(true);
    expect(sandbox.ledger().map((e) => [e.status, e.keyCheck, e.charged])).toEqual([
      [401, true, 0],
      [400, true, 0],
    ]);
    await waitFor(
      () => page.locator('#ledger-body tr').allTextContents(),
      (rows) => rows.length === 2,
      ACTION_MS,
      'two ledger rows',
    );
    const statuses = await page
      .locator('#ledger-body td.status')
      .evaluateAll((tds) => tds.map((td) => `${td.textContent} ${td.className}`));
    expect(statuses).toEqual(['key OK status check', 'key rejected status check']);
    expect(await page.locator('#ledger-body td.url').allTextContents()).toEqual([
      'API key check',
      'API key check',
    ]);
    expect(await page.locator('#ledger-body td.free').allTextContents()).toEqual(['free', 'free']);

    // The rate limit and the long tail reach the sandbox.
    await page.locator('#max-in-flight').fill('2');
    await page.locator('#max-in-flight').press('Enter');
    await page.locator('#max-per-second').fill('20');
    await page.locator('#max-per-second').press('Enter');
    await page.locator('#latency').fill('400');
    await page.locator('#latency-p99').fill('3000');
    await waitFor(
      () => JSON.stringify(sandbox.faults),
      (faults) =>
        JSON.stringify(JSON.parse(faults).rateLimit) ===
          JSON.stringify({ maxInFlight: 2, maxPerSecond: 20 }) &&
        JSON.stringify(JSON.parse(faults).latencyMs) === JSON.stringify({ medianMs: 400, p99Ms: 3000 }),
      ACTION_MS,
      'the sandbox to take the rate limit and the long tail',
    );
    expect(await page.locator('#latency-kind').textContent()).toBe('median');
    // Five lookups at once against a limit of two in flight: three are refused, uncharged, and shown as such. The
    // two admitted are held until the three others have been answered, however slow the machine.
    const release = sandbox.hold();
    const sent = Promise.all(
      people(5, 500).map((networkUrl) =>
        fetch(`${pg.service.sandbox.baseUrl}network_finder`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-KEY': DEMO_KEY },
          body: JSON.stringify({ network_url: networkUrl }),
        }).then((res) => res.status),
      ),
    );
    try {
      await waitFor(
        () => sandbox.held === 2 && sandbox.ledger().filter((e) => e.status === 429).length === 3,
        (done) => done,
        ACTION_MS,
        'two lookups held, three refused',
      );
    } finally {
      release();
    }
    const lookups = await sent;
    expect(lookups.filter((status) => status === 429)).toHaveLength(3);
    await waitFor(
      () => page.locator('#ledger-body td.status', { hasText: '429 (rate limit)' }).count(),
      (n) => n === 3,
      ACTION_MS,
      'the rate-limited rows in the panel',
    );
    const refused = sandbox.ledger().filter((e) => e.status === 429 && e.charged === 0);
    expect(refused).toHaveLength(3);
    // The refused profiles are named in the ledger (the panel shows them, not the endpoint's path).
    expect(refused.every((e) => e.networkUrl?.startsWith('https://www.network.com/in/'))).toBe(true);
    // A p99 back to 0: a fixed latency again.
    await page.locator('#latency-p99').fill('0');
    await waitFor(
      () => JSON.stringify(sandbox.faults.latencyMs),
      (v) => v === '400',
      ACTION_MS,
      'fixed again',
    );
  });

  test('at 1,024 px the sandbox panel starts folded and the grid keeps its width; it unfolds and folds again', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir);
    opened.session = await openPage(opened.browser, opened.playground);
    const { page } = opened.session;
    const width = (selector: string) =>
      page.locator(selector).evaluate((element) => element.getBoundingClientRect().width);
    // At 1,440 px the panel is open (narrower below 1,600 px, so the sidebar leaves columns A to E in view).
    expect(await width('#sandbox-panel')).toBeGreaterThan(250);

    await page.setViewportSize({ width: 1024, height: 768 });
    await page.reload();
    await page.locator('#addon-menu button.menu-entry').first().waitFor({ state: 'attached' });
    expect(await page.locator('#sandbox-panel').getAttribute('class')).toContain('folded');
    expect(await width('#sandbox-panel')).toBeLessThan(50);
    const folded = await width('#sheet-area');
    expect(folded).toBeGreaterThan(900);

    await page.locator('#sandbox-fold').click();
    expect(await page.locator('#sandbox-fold').getAttribute('aria-expanded')).toBe('true');
    expect(await width('#sandbox-panel')).toBeGreaterThan(250);
    expect(await page.locator('#credits').isVisible()).toBe(true);
    expect(await width('#sheet-area')).toBeLessThan(folded - 230);

    await page.locator('#sandbox-fold').click();
    expect(await page.locator('#credits').isVisible()).toBe(false);
    expect(await width('#sheet-area')).toBe(folded);
    // The choice is remembered across a reload.
    await page.reload();
    await page.locator('#addon-menu button.menu-entry').first().waitFor({ state: 'attached' });
    expect(await page.locator('#sandbox-panel').getAttribute('class')).toContain('folded');
  });
});
