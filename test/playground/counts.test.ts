/**
 * One count of a run in the playground, in Chromium: the sidebar's progress and the page's status line read the same
 * total from the first look to the end, each moves only forward, and credits never stand beside 0 rows processed.
 */
import type { Page } from 'playwright-core';
import {
  ACTION_MS,
  openPage,
  pasteColumn,
  people,
  runFromMenu,
  tempStateDir,
  testPlayground,
  useBrowser,
  waitFor,
} from './helpers';

jest.setTimeout(30_000 + 6 * ACTION_MS + 2 * 60_000);

const RUN_LABEL = 'Find e-mails for the selected column';

/** The sidebar's figures and the page's status line, read at one moment each. */
async function figures(page: Page): Promise<{ sidebar: string[]; status: string }> {
  const status = (await page.locator('#busy').textContent()) ?? '';
  const frame = await page
    .locator('#sidebar-frame')
    .elementHandle()
    .then((handle) => handle?.contentFrame());
  const sidebar = frame
    ? await frame
        .evaluate(() =>
          ['run-fraction', 'count-credits', 'run-state'].map(
            (id) => document.getElementById(id)?.textContent ?? '',
          ),
        )
        .catch(() => ['', '', ''])
    : ['', '', ''];
  return { sidebar, status };
}

describe('one count of a run in the playground', () => {
  const opened = useBrowser();

  test('the sidebar and the status line show the same total from Start to Done, never credits beside 0 rows', async () => {
    opened.stateDir = tempStateDir();
    // 300 ms a request: a slice of 0.5 s does a batch or two, so the run goes on over several looks.
    opened.playground = await testPlayground(opened.stateDir, { credits: 500, latencyMs: 300 });
    const { env, spreadsheetId } = opened.playground.workbook;
    opened.session = await openPage(opened.browser, opened.playground);
    const { page } = opened.session;
    // Ten rows looked up first: the next run finds them done.
    const entries = people(40);
    await pasteColumn(page, 2, 1, entries.slice(0, 10));
    await waitFor(
      () => env.values(spreadsheetId, 'A11')[0][0],
      (value) => value === entries[9],
      ACTION_MS,
      'the first ten rows on the server',
    );
    await runFromMenu(page, RUN_LABEL);
    await waitFor(
      async () => (await figures(page)).sidebar[2],
      (state) => state === 'Done',
      60_000,
      'the first run to end',
    );
    const charged = opened.playground.service.view().charged;
    expect(charged).toBe(10);

    await pasteColumn(page, 2, 1, entries);
    await waitFor(
      () => env.values(spreadsheetId, 'A41')[0][0],
      (value) => value === entries[39],
      ACTION_MS,
      'the forty rows on the server',
    );
    await runFromMenu(page, RUN_LABEL);
    const seen: string[] = [];
    let last = { sidebar: 0, status: 0 };
    for (let round = 0; round < 2400; round++) {
      const { sidebar, status } = await figures(page);
      const [fraction, credits, state] = sidebar;
      seen.push(`${fraction} | ${credits} | ${status}`);
      const shown = /^(\d+) of (\d+) rows? processed/.exec(fraction);
      if (shown) {
        const processed = Number(shown[1]);
        // Forty rows with a URL from the first look, ten of them done before: counted as processed.
        expect(Number(shown[2])).toBe(40);
        expect(processed).toBeGreaterThanOrEqual(Math.max(10, last.sidebar));
        if (Number(credits) > 0) expect(processed).toBeGreaterThan(10);
        last = { ...last, sidebar: processed };
      }
      const line = /Finding e-mails: (\d+) of (\d+)/.exec(status);
      if (line) {
        expect(Number(line[2])).toBe(40);
        expect(Number(line[1])).toBeGreaterThanOrEqual(Math.max(10, last.status));
        last = { ...last, status: Number(line[1]) };
      }
      if (state === 'Done') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(seen.at(-1)).toMatch(/^40 of 40 rows processed \(100%\) \| 30 \| /);
    // Both were seen part-way: the run went on over several looks.
    expect(seen.some((line) => /^\d+ of 40 rows processed/.test(line) && !line.startsWith('40 of 40'))).toBe(
      true,
    );
    expect(seen.some((line) => /Finding e-mails: \d+ of 40/.test(line))).toBe(true);
    expect(opened.playground.service.view().charged).toBe(40);
  });
});
