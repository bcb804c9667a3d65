/**
 * Issue 39, finding 10: a click always has a free call. One sidebar page runs at most 10 google.script.run calls at
 * once, an 11th waits (apps-script/guides/html/communication; the emulator's page, emulator/html/shim.ts). With
 * BULK_SLICES at its largest allowed figure (src/core/limits.ts MAX_SLICES), slices and progress looks must still
 * leave Pause a call. The page's calls are answered through Playwright's routing, so that Chromium's own limit of 6
 * connections to one host does not stand in for the page's 10 (emulator/README.md). And the run's end shows as its
 * last slice answers: no wait of the page stands between them (the page's clock is Playwright's, stopped: no wait
 * of the page ends by itself).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MAX_SLICES, PAGE_CONCURRENT_CALLS } from '../../src/core/limits';
import { drive, start } from '../e2e/bulk/helpers';
import { waitFor } from '../sandbox/helpers';
import { launchChromium } from '../support/browser';
import { startWorld, url, type World } from '../support/harness';
import { type Bridge, startBridge } from './bridge';

const WAIT_MS = 10_000;
jest.setTimeout(120_000);

let browser: Browser;
let world: World | undefined;
let bridge: Bridge | undefined;
let context: BrowserContext | undefined;
let releaseHold: (() => void) | undefined;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  releaseHold?.();
  await context?.close();
  await bridge?.close();
  await world?.close();
  context = undefined;
  bridge = undefined;
  world = undefined;
});

/**
 * The sidebar of `w`'s spreadsheet open on its progress, its server calls answered through Playwright's routing:
 * `sent` hears each call as it leaves the page, `answered` as its answer reaches it, `settled` either way;
 * `beforeOpen` runs on the page before it loads.
 */
async function sidebarPage(
  w: World,
  hear: {
    sent?(fn: string): void;
    answered?(fn: string): void;
    settled?(fn: string): void;
    beforeOpen?(page: Page): Promise<void>;
  },
): Promise<Page> {
  bridge = await startBridge({ env: w.env, user: w.as().user as string, spreadsheetId: w.ss.id });
  const origin = bridge.origin;
  context = await browser.newContext({ viewport: { width: 300, height: 760 } });
  context.setDefaultTimeout(WAIT_MS);
  await context.route('**/*', async (route) => {
    const address = route.request().url();
    if (!address.startsWith(`${origin}/`)) return route.abort();
    if (address !== `${origin}/run`) return route.continue();
    const fn = (JSON.parse(route.request().postData() ?? '{}') as { fn: string }).fn;
    hear.sent?.(fn);
    try {
      const response = await route.fetch({ timeout: 0 });
      await route.fulfill({ response });
      hear.answered?.(fn);
    } catch {
      // The page went away first.
    } finally {
      hear.settled?.(fn);
    }
  });
  const page = await context.newPage();
  await hear.beforeOpen?.(page);
  await page.goto(bridge.url('progress'));
  await page.locator('#loading').waitFor({ state: 'hidden' });
  return page;
}

const urls = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);

test("Pause reaches the server while the sidebar's slices are held at the service, even with BULK_SLICES at its largest, and again after a Resume", async () => {
  world = await startWorld({
    data: [['Profile'], ...urls(500, 'cap-before'), ...urls(2000, 'cap-run')],
    rows: 2510,
    credits: 10_000,
    scriptProperties: { BULK_SLICES: String(MAX_SLICES) },
  });
  const w = world;
  // A run of this spreadsheet before: its slices learned that the service answers fast (the run's pace is kept).
  await start(w, 'A1:A501');
  expect((await drive(w)).state).toBe('done');
  // The person starts the next run from the menu; the sidebar opens on its progress and drives it.
  w.env.select(w.ss.id, 'A502:A2501');
  releaseHold = w.sandbox.service.hold();
  await w.env.run('enrichSelection', [], w.as());
  const reached: string[] = [];
  let underWay = 0;
  let most = 0;
  let lastSliceAt = 0;
  const page = await sidebarPage(w, {
    sent: (fn) => {
      reached.push(fn);
      if (fn === 'continueEnrichment') lastSliceAt = Date.now();
      underWay++;
      most = Math.max(most, underWay);
    },
    settled: () => {
      underWay--;
    },
  });
  // The sidebar opens its slices, each holding its batch at the service or waiting for room beside the others,
  // until the page's ten calls are under way or it opens no more (none for two seconds).
  await waitFor(() => underWay >= 10 || (lastSliceAt > 0 && Date.now() - lastSliceAt > 2_000), 30_000);
  const slicesSent = reached.filter((fn) => fn === 'continueEnrichment').length;
  await page.getByRole('button', { name: 'Pause' }).click();
  let pauseReached = true;
  try {
    await waitFor(() => reached.includes('pauseEnrichment'), 5_000);
  } catch {
    pauseReached = false;
  }
  const calls = { underWay, slicesSent, most };
  expect({ pauseReachedTheServer: pauseReached, calls }).toEqual({ pauseReachedTheServer: true, calls });
  // Resume and Pause again while the first slices are still held at the service: the new drive's slices and the
  // old ones together leave the clicks a call (the old ones count against the run's figure of slices).
  await page.getByRole('button', { name: 'Resume' }).click();
  await waitFor(() => reached.includes('resumeEnrichment'), 5_000);
  const resumedAt = reached.length;
  await waitFor(() => underWay >= 10 || Date.now() - lastSliceAt > 2_000, 30_000);
  await page.getByRole('button', { name: 'Pause' }).click();
  let pausedAgain = true;
  try {
    await waitFor(() => reached.slice(resumedAt).includes('pauseEnrichment'), 5_000);
  } catch {
    pausedAgain = false;
  }
  const after = { underWay, most };
  releaseHold?.();
  releaseHold = undefined;
  expect({ pauseAfterResumeReachedTheServer: pausedAgain, after }).toEqual({
    pauseAfterResumeReachedTheServer: true,
    after,
  });
  expect(most).toBeLessThanOrEqual(PAGE_CONCURRENT_CALLS);
});

test("Done shows as the last slice answers, not after a wait of the page: the page's clock stopped, the run still ends on screen", async () => {
  world = await startWorld({
    data: [['Profile'], ...urls(60, 'idle-lane')],
    rows: 70,
    credits: 1_000,
    // Two slices; one batch each (the budget ends after it): a slice that finds no room ends at once.
    scriptProperties: { BULK_SLICES: '2', ENRICH_STEP_BUDGET_MS: '1' },
  });
  const w = world;
  w.env.select(w.ss.id, 'A2:A61');
  await w.env.run('enrichSelection', [], w.as());
  // The sidebar's slices hold their batches at the service.
  releaseHold = w.sandbox.service.hold();
  const slices = { sent: 0, answered: 0 };
  const page = await sidebarPage(w, {
    sent: (fn) => {
      if (fn === 'continueEnrichment') slices.sent++;
    },
    answered: (fn) => {
      if (fn === 'continueEnrichment') slices.answered++;
    },
    beforeOpen: (page) => page.clock.install(),
  });
  // The page's clock stops while they are held: no wait of the page ends by itself from here on.
  await waitFor(() => w.sandbox.service.held > 0, 30_000);
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 100);
  releaseHold?.();
  releaseHold = undefined;
  // The slices write the held batches and the rest, and the last answer ends the run: Done shows.
  await page.locator('#run-state').filter({ hasText: 'Done' }).waitFor({ timeout: 30_000 });
  expect(w.sandbox.service.totalCharged()).toBe(60);
  expect(slices.sent).toBeGreaterThanOrEqual(2);
  await waitFor(() => slices.answered === slices.sent, 10_000);
});
