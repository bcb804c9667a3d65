/**
 * One count of a run in the playground, in Chromium: the sidebar, the page's status line, the sandbox's panel and the
 * sheet, sampled every 200 ms from Start through a Pause and a Resume to Done, never contradict one another. The
 * status line says what the sidebar says (read first, it is never ahead of it, and catches up with it); the
 * sidebar's figures only go forward; a paused run is never shown at 100 % (on a busy machine the answers on their way
 * at the Pause may finish every row: "Every row has its result"); the credits shown never exceed what the
 * service charged, the rows processed never exceed the rows written; the panel never shows more charged than
 * requests.
 */
import type { Page } from 'playwright-core';
import type { Playground } from '../../playground/server';
import {
  ACTION_MS,
  openPage,
  openPlayground,
  pasteColumn,
  pasteOnServer,
  people,
  runFromMenu,
  tempStateDir,
  testPlayground,
  useBrowser,
  waitFor,
} from './helpers';

jest.setTimeout(30_000 + 8 * ACTION_MS + 4 * 60_000);

const RUN_LABEL = 'Find e-mails for the selected column';
const SAMPLE_MS = 200;
/** Samples at most (bounded in count and, through each sample's own bounds, in time). */
const MAX_SAMPLES = 1500;

/** A run's figures as a view shows them: its state's label, rows processed of the total, credits. */
interface Shown {
  label: string;
  processed: number;
  total: number;
  percent: number;
}

/** "Running — 10 of 70 rows processed (14%)" (status line) or the sidebar's label and fraction. */
function parse(label: string, fraction: string): Shown | null {
  const figures = /^(\d+) of (\d+) rows? processed \((\d+)%\)/.exec(fraction);
  if (!figures) return null;
  return { label, processed: Number(figures[1]), total: Number(figures[2]), percent: Number(figures[3]) };
}

/** The run part of the status line, in the sidebar's words. */
async function statusLine(page: Page): Promise<Shown | null> {
  const text = (await page.locator('#busy').textContent()) ?? '';
  const run = text
    .split(' · ')
    .map((part) => /^(.+?) — (\d+ of \d+ rows? processed \(\d+%\))$/.exec(part))
    .find((match) => match !== null);
  return run ? parse(run[1], run[2]) : null;
}

async function sidebarShows(page: Page): Promise<{ shown: Shown | null; credits: number; message: string }> {
  const frame = await page
    .locator('#sidebar-frame')
    .elementHandle()
    .then((handle) => handle?.contentFrame());
  const [label, fraction, credits, message] = frame
    ? await frame
        .evaluate(() =>
          ['run-state', 'run-fraction', 'count-credits', 'run-message'].map(
            (id) => document.getElementById(id)?.textContent ?? '',
          ),
        )
        .catch(() => ['', '', '', ''])
    : ['', '', '', ''];
  return { shown: parse(label, fraction), credits: Number.parseInt(credits, 10) || 0, message };
}

/** The sandbox panel's figures, read together. */
async function panel(page: Page): Promise<{ charged: number; requests: number }> {
  const [charged, requests] = await page.evaluate(() =>
    ['charged', 'requests'].map((id) => document.getElementById(id)?.textContent ?? ''),
  );
  const number = (text: string) => Number(text.replace(/,/g, '').split(' ')[0]);
  return { charged: number(charged), requests: number(requests) };
}

/** Ended states come after running ones: a later view never goes back from them. */
const rank = (label: string) => (label === 'Done' ? 2 : pausedLabel(label) ? 1 : 0);

/** A paused run's label: "Paused…", or, when the answers on their way at the Pause finished every row, that. */
const pausedLabel = (label: string) => label.startsWith('Paused') || label === 'Every row has its result';

/** `later` is the same moment as `earlier` or after it. */
function notBehind(later: Shown, earlier: Shown): boolean {
  return (
    later.total === earlier.total &&
    later.processed >= earlier.processed &&
    rank(later.label) >= rank(earlier.label)
  );
}

/** Rows of the run's range with a status written in the sheet (column C). */
function rowsWritten(playground: Playground, rows: number): number {
  const { env, spreadsheetId } = playground.workbook;
  return env.displayValues(spreadsheetId, `C2:C${rows + 1}`).filter((row) => row[0] !== '').length;
}

describe('one count of a run in the playground', () => {
  const opened = useBrowser();

  test('sampled every 200 ms through a Pause and a Resume: the sidebar, the status line, the sandbox and the sheet never contradict', async () => {
    // 300 ms a request: a slice of 0.5 s does a batch or two, so the run goes on over many samples.
    const { pg, session } = await openPlayground(opened, { credits: 500, latencyMs: 300 });
    const { page, sidebar } = session;
    const rows = 70;
    await pasteOnServer(page, pg, 2, 1, people(rows));
    await runFromMenu(page, RUN_LABEL);

    const seen: string[] = [];
    let last: Shown | null = null;
    let lastCredits = 0;
    let phase: 'running' | 'pausing' | 'paused' | 'resumed' = 'running';
    // Within the test's time, so a run that never ends fails with its last samples shown.
    const giveUpAt = Date.now() + 4 * 60_000;
    for (let sample = 0; sample < MAX_SAMPLES && Date.now() < giveUpAt; sample++) {
      const status = await statusLine(page);
      const { shown, credits, message } = await sidebarShows(page);
      const inPanel = await panel(page);
      const sandbox = pg.service.view();
      const written = rowsWritten(pg, rows);
      seen.push(
        `${JSON.stringify(status)} | ${JSON.stringify(shown)} ${credits} ${JSON.stringify(message)} | ${inPanel.charged}/${inPanel.requests} | ${written} | ${phase}`,
      );
      const where = `sample ${sample}: ${seen.at(-1)}`;
      // The sandbox never shows more charged than requests, in the panel or on the server.
      expect({ where, ok: inPanel.charged <= inPanel.requests }).toEqual({ where, ok: true });
      expect({ where, ok: sandbox.charged <= sandbox.requests }).toEqual({ where, ok: true });
      if (shown) {
        // The sidebar's figures only go forward, and a paused run is never at 100 %.
        expect({ where, ok: last === null || shown.processed >= last.processed }).toEqual({
          where,
          ok: true,
        });
        expect({ where, ok: credits >= lastCredits }).toEqual({ where, ok: true });
        expect({ where, ok: !(shown.label.startsWith('Paused') && shown.percent === 100) }).toEqual({
          where,
          ok: true,
        });
        // The credits shown were charged; the rows shown processed are written in the sheet.
        expect({ where, ok: credits <= sandbox.charged }).toEqual({ where, ok: true });
        expect({ where, ok: shown.processed <= written }).toEqual({ where, ok: true });
        expect(shown.total).toBe(rows);
        last = shown;
        lastCredits = credits;
      }
      if (status) {
        // Read before the sidebar, the status line is never ahead of it, and it catches up with it.
        expect({ where, ok: shown !== null && notBehind(shown, status) }).toEqual({ where, ok: true });
        if (shown && !notBehind(status, shown)) {
          const target = shown;
          await waitFor(
            () => statusLine(page),
            (line) => line !== null && notBehind(line, target),
            ACTION_MS,
            `the status line to catch up with the sidebar (${where})`,
          );
        }
      }
      if (phase === 'running' && shown && shown.processed >= 20 && shown.label === 'Running') {
        await sidebar.locator('#pause:not([hidden])').click();
        phase = 'pausing';
      } else if (phase === 'pausing' && shown && pausedLabel(shown.label) && !/final count/.test(message)) {
        phase = 'paused';
        // Paused with its last answers written: the sidebar's count is the sheet's.
        expect(shown.processed).toBe(rowsWritten(pg, rows));
        expect(credits).toBe(pg.service.view().charged);
        await sidebar.locator('#resume:not([hidden])').click();
        phase = 'resumed';
      } else if (phase === 'resumed' && shown?.label === 'Done') {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
    const where = `the last samples:\n${seen.slice(-6).join('\n')}`;
    expect({ where, phase, last }).toEqual({
      where,
      phase: 'resumed',
      last: { label: 'Done', processed: rows, total: rows, percent: 100 },
    });
    // The run was seen part-way, paused, and done, in both views.
    expect(seen.some((line) => line.includes('"label":"Running"'))).toBe(true);
    expect(seen.some((line) => /"label":"(Paused|Every row has its result)"/.test(line))).toBe(true);
    await waitFor(
      () => statusLine(page),
      (line) => line?.label === 'Done' && line.processed === rows,
      ACTION_MS,
      'the status line to say Done',
    );
    expect(pg.service.view().charged).toBe(rows);
    expect(lastCredits).toBe(rows);
  });

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
      async () => (await sidebarShows(page)).shown?.label,
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
      const status = (await page.locator('#busy').textContent()) ?? '';
      const { shown: figures, credits: creditsShown } = await sidebarShows(page);
      const fraction = figures
        ? `${figures.processed} of ${figures.total} rows processed (${figures.percent}%)`
        : '';
      const credits = String(creditsShown);
      const state = figures?.label ?? '';
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
      const line = /(?:^| · )[^·]+ — (\d+) of (\d+) rows/.exec(status);
      // Until the new run's first look, the line may still read the first run (its 10 of 10), never after.
      const firstRun = line !== null && last.status === 0 && line[1] === '10' && line[2] === '10';
      if (line && !firstRun) {
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
    expect(seen.some((line) => /\| Running — \d+ of 40 rows/.test(line))).toBe(true);
    expect(opened.playground.service.view().charged).toBe(40);
  });

  test('paused while its last lookups are on their way, a run whose every row then has its result is not "Paused" at 100 %; Resume ends it', async () => {
    const { pg, session } = await openPlayground(opened, { credits: 500, latencyMs: 100 });
    const { page, sidebar } = session;
    const rows = 10;
    await pasteOnServer(page, pg, 2, 1, people(rows, 50));
    // The first batch of 5 is answered; the second is held at the service until the run is paused.
    const release = pg.service.sandbox.service.hold(5);
    try {
      await runFromMenu(page, RUN_LABEL);
      await waitFor(
        () => pg.service.sandbox.service.held,
        (held) => held > 0,
        30_000,
        'the last batch held at the service',
      );
      await sidebar.locator('#pause:not([hidden])').click();
      await waitFor(
        async () => (await sidebarShows(page)).shown?.label ?? '',
        (label) => label.startsWith('Paused'),
        ACTION_MS,
        'the run paused',
      );
    } finally {
      release();
    }
    // Its last answers written while paused: every row has its result, and the sidebar says so, not "Paused".
    const seen = await waitFor(
      () => sidebarShows(page),
      ({ shown, message }) => shown?.processed === rows && !/final count/.test(message),
      30_000,
      'the last answers written',
    );
    expect(seen.shown).toEqual({
      label: 'Every row has its result',
      processed: rows,
      total: rows,
      percent: 100,
    });
    expect(seen.message).toMatch(/^Every row has its result: .* Resume ends it/);
    await waitFor(
      () => statusLine(page),
      (line) => line?.label === 'Every row has its result',
      ACTION_MS,
      'the status line to say the same',
    );
    await sidebar.locator('#resume:not([hidden])').click();
    await waitFor(
      async () => (await sidebarShows(page)).shown?.label ?? '',
      (label) => label === 'Done',
      30_000,
      'Resume to end the run',
    );
    // Nothing was looked up after the Pause but the batch already on its way: each profile charged once.
    expect(pg.service.view().charged).toBe(rows);
  });
});
