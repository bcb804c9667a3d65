/**
 * The built sidebar (dist/Sidebar.html) in headless Chromium, its google.script.run bridged into dist/Code.js running
 * in the emulator against the sandbox service over HTTP. Each test acts as a person: types, clicks, presses keys.
 */

import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { predictLookup } from '../../sandbox/profiles';
import { WAITING_AFTER_MS } from '../../src/core/limits';
import { launchChromium } from '../support/browser';
import { figuresOf, sentenceFigures } from '../support/figures';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  OWNER,
  OWNER_KEY,
  startWorld,
  url,
  type World,
  type WorldOptions,
} from '../support/harness';
import { type Bridge, type ServerOverride, startBridge } from './bridge';

const SIDEBAR_WIDTH = 300;
// The README's pictures are rewritten only on request (`npm run screenshots`), so a test run leaves the tree clean.
const SHOTS_DIR = process.env.UPDATE_SCREENSHOTS ? join(__dirname, '..', '..', 'docs') : tmpdir();
const SCREENSHOT = join(SHOTS_DIR, 'sidebar.png');
const PROGRESS_SCREENSHOT = join(SHOTS_DIR, 'sidebar-progress.png');
/** The bound of each wait on the page: waitForText, settle, and every Playwright action (the context's default). */
const WAIT_MS = 10_000;
/**
 * Each test's time limit: starting its world, bridge and page, plus each of its bounded waits at full length
 * (page loads, actions, waitForText, settle). The key test has the most: 26.
 */
jest.setTimeout(20_000 + 26 * WAIT_MS);

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

interface Session {
  world: World;
  /** The user the sidebar belongs to. */
  user: string;
  bridge: Bridge;
  context: BrowserContext;
  page: Page;
  /** Every address the page asked for (only the bridge's may appear). */
  requests: string[];
  /** Uncaught errors and console errors of the page. */
  pageErrors: string[];
  /** alert()/confirm() dialogs the page opened (an injected script would). */
  dialogs: string[];
  /** The server function of every google.script.run request the page sent, in the order sent. */
  runRequests: string[];
}

let session: Session | undefined;

/** Rethrows the first failure of a cleanup whose every step has already run. */
function firstFailure(results: PromiseSettledResult<unknown>[]): void {
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

afterEach(async () => {
  const open = session;
  session = undefined;
  if (!open) return;
  // The page first (it stops calling the bridge), then the servers; a failing step does not skip the others.
  const page = await Promise.allSettled([open.context.close()]);
  firstFailure([...page, ...(await Promise.allSettled([open.bridge.close(), open.world.close()]))]);
});

/** Starts a world and a bridge for `user`, and a 300 px wide page that refuses any address but the bridge's. */
async function open(
  options: WorldOptions & { user?: string; overrides?: Record<string, ServerOverride> } = {},
): Promise<Session> {
  const world = await startWorld(options);
  const user = options.user ?? OWNER;
  let bridge: Bridge | undefined;
  let context: BrowserContext | undefined;
  try {
    bridge = await startBridge({
      env: world.env,
      user,
      spreadsheetId: world.ss.id,
      overrides: options.overrides,
    });
    context = await browser.newContext({
      viewport: { width: SIDEBAR_WIDTH, height: 760 },
      deviceScaleFactor: 1,
    });
    context.setDefaultTimeout(WAIT_MS);
    const origin = bridge.origin;
    const requests: string[] = [];
    const pageErrors: string[] = [];
    const dialogs: string[] = [];
    const runRequests: string[] = [];
    await context.route('**/*', (route) => {
      const address = route.request().url();
      requests.push(address);
      if (address === `${origin}/run`) runRequests.push(JSON.parse(route.request().postData() ?? '{}').fn);
      return address.startsWith(`${origin}/`) ? route.continue() : route.abort();
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    session = { world, user, bridge, context, page, requests, pageErrors, dialogs, runRequests };
    return session;
  } catch (error) {
    await Promise.allSettled([context?.close()]);
    await Promise.allSettled([bridge?.close(), world.close()]);
    throw error;
  }
}

/** Opens the settings sidebar the way the menu does, and waits for its state to load. */
async function openSettings(s: Session): Promise<void> {
  await s.page.goto(s.bridge.url('settings'));
  await s.page.locator('#loading').waitFor({ state: 'hidden' });
  await s.page.locator('#view-settings').waitFor({ state: 'visible' });
}

const keyMessage = (s: Session) => s.page.locator('#key-message');

/** Waits (bounded) until the element's text is `expected`; fails with the last text seen. */
async function waitForText(locator: Locator, expected: string | RegExp, timeoutMs = WAIT_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: string | null = null;
  for (let round = 0; round < Math.ceil(timeoutMs / 25) && Date.now() < until; round++) {
    last = await locator.textContent();
    if (typeof expected === 'string' ? last === expected : expected.test(last ?? '')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Expected the text ${String(expected)}, last seen ${JSON.stringify(last)}`);
}

/** Runs continueEnrichment (as the owner's sidebar would) until the run is no longer running. */
async function finishRun(world: World): Promise<string> {
  let state = 'running';
  for (let round = 0; round < 50 && state === 'running'; round++) {
    state = ((await world.env.run('continueEnrichment', [], world.as())) as { state: string }).state;
  }
  return state;
}

function keyCheckEntries(world: World) {
  return world.sandbox.service.ledger().filter((entry) => entry.networkUrl === undefined);
}

/** Nothing the bridge sent to the page and no HTML the bundle produced contains `key`. */
function expectKeyNeverSent(s: Session, key: string): void {
  expect(s.bridge.responses.length).toBeGreaterThan(0);
  for (const response of s.bridge.responses) expect(response.body).not.toContain(key);
  expect(s.world.env.htmlOutputs.length).toBeGreaterThan(0);
  for (const output of s.world.env.htmlOutputs) expect(output.content).not.toContain(key);
}

test('a user saves a key with the keyboard: trimmed, in their own user properties, the field cleared, shown masked', async () => {
  const s = await open({ user: EDITOR });
  await openSettings(s);
  const { page, world } = s;
  await expect(page.locator('#key-status').textContent()).resolves.toBe('No API key saved yet.');
  await expect(page.locator('#check-key').isDisabled()).resolves.toBe(true);

  // A key of the wrong shape is refused with the reason, and nothing is stored.
  await page.getByLabel('Your API key').fill('not a key');
  await page.getByLabel('Your API key').press('Enter');
  await page.locator('#error').waitFor({ state: 'visible' });
  await expect(page.locator('#error-text').textContent()).resolves.toMatch(/no spaces/);
  expect(world.env.userProperties(EDITOR).get(API_KEY_PROPERTY)).toBeNull();

  await page.getByLabel('Your API key').fill(`  ${EDITOR_KEY}\n`);
  await page.getByLabel('Your API key').press('Enter');
  await page.locator('#masked-key').waitFor();

  expect(world.env.userProperties(EDITOR).get(API_KEY_PROPERTY)).toBe(EDITOR_KEY);
  // The owner's key is untouched: each user has their own.
  expect(world.env.userProperties(OWNER).get(API_KEY_PROPERTY)).toBe(OWNER_KEY);
  await expect(page.getByLabel('Your API key').inputValue()).resolves.toBe('');
  await expect(page.locator('#masked-key').textContent()).resolves.toBe(`••••••••${EDITOR_KEY.slice(-4)}`);
  await expect(page.locator('#error').isHidden()).resolves.toBe(true);
  await expect(keyMessage(s).textContent()).resolves.toContain('API key saved');
  await expect(page.locator('#check-key').isEnabled()).resolves.toBe(true);
  await expect(page.locator('#remove-key').isEnabled()).resolves.toBe(true);
  // The sidebar says where the key lives and whose key formulas use.
  const help = await page.locator('#key-help').textContent();
  expect(help).toMatch(/user properties/);
  expect(help).toMatch(/private to you/);
  expect(help?.replace(/\s+/g, ' ')).toMatch(
    /=FINDEMAIL formulas in this spreadsheet use the key of the spreadsheet's owner \(in a shared drive, of the person who created the file; after a transfer of ownership, of the new owner\)/,
  );

  // The tabs follow the ARIA tab pattern: arrow keys move between them.
  await page.getByRole('tab', { name: 'Settings' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Progress' }).getAttribute('aria-selected')).resolves.toBe(
    'true',
  );
  await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('tab-progress');
  await expect(page.locator('#view-settings').isHidden()).resolves.toBe(true);
  await waitForText(page.locator('#run-state'), 'No run yet');
  // No run: no control that could not apply.
  await expect(page.locator('#run-controls').isHidden()).resolves.toBe(true);

  expectKeyNeverSent(s, EDITOR_KEY);
  expect(s.pageErrors).toEqual([]);
});

test('Check tells a good key from a bad one against the service without spending a credit', async () => {
  const s = await open({ user: EDITOR });
  await openSettings(s);
  const { page, world } = s;
  const creditsBefore = world.sandbox.service.credits(EDITOR_ORG);

  await page.getByLabel('Your API key').fill(EDITOR_KEY);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('#masked-key').waitFor();
  await page.getByRole('button', { name: 'Check' }).click();
  await waitForText(keyMessage(s), 'The API key works. Checking it spent no credit.');
  await expect(keyMessage(s).getAttribute('class')).resolves.toContain('ok');

  const wrongKey = 'wrong-key-5555aaaa';
  await page.getByLabel('Your API key').fill(wrongKey);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitForText(page.locator('#masked-key'), '••••••••aaaa');
  await page.getByRole('button', { name: 'Check' }).click();
  await waitForText(
    keyMessage(s),
    /^The service rejected this API key\. Get a valid key in Account › API settings/,
  );
  await expect(keyMessage(s).getAttribute('class')).resolves.toContain('bad');

  // Two key checks reached the service: a 400 (good key, no network_url) and a 401; neither was charged.
  const checks = keyCheckEntries(world);
  expect(checks.map((entry) => [entry.status, entry.keyKnown, entry.charged])).toEqual([
    [400, true, 0],
    [401, false, 0],
  ]);
  expect(world.sandbox.service.totalCharged()).toBe(0);
  expect(world.sandbox.service.credits(EDITOR_ORG)).toBe(creditsBefore);
  expectKeyNeverSent(s, EDITOR_KEY);
  expectKeyNeverSent(s, wrongKey);
  expect(s.pageErrors).toEqual([]);
});

test('Remove asks first, then deletes the key from the user properties and the sidebar says so', async () => {
  const s = await open({ user: OWNER });
  await openSettings(s);
  const { page, world } = s;
  await expect(page.locator('#masked-key').textContent()).resolves.toBe(`••••••••${OWNER_KEY.slice(-4)}`);

  // Keep it: nothing happens.
  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await page.locator('#remove-confirm').waitFor({ state: 'visible' });
  await page.getByRole('button', { name: 'Keep it' }).click();
  await page.locator('#remove-confirm').waitFor({ state: 'hidden' });
  expect(world.env.userProperties(OWNER).get(API_KEY_PROPERTY)).toBe(OWNER_KEY);
  expect(s.runRequests).not.toContain('removeApiKey');

  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await page.getByRole('button', { name: 'Remove the API key' }).click();
  await waitForText(page.locator('#key-status'), 'No API key saved yet.');
  expect(world.env.userProperties(OWNER).get(API_KEY_PROPERTY)).toBeNull();
  await expect(keyMessage(s).textContent()).resolves.toMatch(/^API key removed/);
  await expect(page.locator('#check-key').isDisabled()).resolves.toBe(true);
  await expect(page.locator('#remove-key').isDisabled()).resolves.toBe(true);

  // A reload asks the server again: still no key.
  await openSettings(s);
  await expect(page.locator('#key-status').textContent()).resolves.toBe('No API key saved yet.');
  expect(s.pageErrors).toEqual([]);
});

test('a failure whose message holds HTML is shown as text, never run', async () => {
  const html = '<img src=x onerror=alert(1)>';
  const s = await open({
    user: EDITOR,
    overrides: {
      saveApiKey: () => {
        throw new Error(html);
      },
    },
  });
  await openSettings(s);
  const { page } = s;
  await page.getByLabel('Your API key').fill(EDITOR_KEY);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('#error').waitFor({ state: 'visible' });

  await expect(page.locator('#error-text').textContent()).resolves.toBe(html);
  await expect(page.locator('#error').getAttribute('role')).resolves.toBe('alert');
  await expect(page.locator('img').count()).resolves.toBe(0);
  // The failure left the field as typed (nothing was saved) and the key unsaved.
  expect(s.world.env.userProperties(EDITOR).get(API_KEY_PROPERTY)).toBeNull();
  await expect(page.getByLabel('Your API key').inputValue()).resolves.toBe(EDITOR_KEY);
  // Dismiss with the keyboard.
  await page.locator('#error-close').focus();
  await page.keyboard.press('Enter');
  await page.locator('#error').waitFor({ state: 'hidden' });
  expect(s.dialogs).toEqual([]);
  // The page only ever asked the bridge for anything (no external fetch at load time or later).
  expect(s.requests.every((address) => address.startsWith(`${s.bridge.origin}/`))).toBe(true);
});

test('settings saved in the sidebar are the ones a run uses', async () => {
  const s = await open({
    user: OWNER,
    data: [['Profile URL'], [url('jane-doe')], [url('john-smith-2')]],
  });
  await openSettings(s);
  const { page, world } = s;
  await expect(page.getByLabel(/Write a header row/).isChecked()).resolves.toBe(true);
  await expect(page.getByLabel(/account type and the name/).isChecked()).resolves.toBe(false);

  // Keyboard only: Space toggles a checkbox, Enter in the form saves.
  await page.getByLabel(/account type and the name/).focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Enter');
  await waitForText(page.locator('#settings-message'), /^Settings saved/);
  // The harness's owner chose to start runs under 1,000,000 credits at once (test/support/harness.ts): kept.
  expect(JSON.parse(world.env.userProperties(OWNER).get('PEF_SETTINGS') ?? '{}')).toEqual({
    writeHeader: true,
    extraFields: true,
    startAtOnce: true,
    startAtOnceUnder: 1_000_000,
  });

  world.env.select(world.ss.id, 'A2:A3');
  await world.env.run('enrichSelection', [], world.as());
  await finishRun(world);
  expect(world.env.values(world.ss.id, 'A1:G1')).toEqual([
    ['Profile URL', 'Email', 'Email status', 'Catch-all', 'Note', 'Account type', 'Name'],
  ]);
  expect(world.env.values(world.ss.id, 'G2:G3')).toEqual([['Jane Doe'], ['John Smith']]);
  expect(s.pageErrors).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------
// Bulk runs through the progress view

/** 40 profile URLs: mostly found, some without an address, some the service cannot process, one not a URL. */
function runRows(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    if (i === 17) return 'not a profile url';
    if (i % 10 === 3) return url(`kim-noemail-${i}`);
    if (i % 10 === 7) return url(`anonymous-${i}`);
    return url(`alex-miller-${i}`);
  });
}

/** What the run must write for a row: Email, Email status, Catch-all. */
function expectedCells(input: string): [string, string, boolean | ''] {
  if (!input.includes('/in/')) return ['', 'INVALID_URL', ''];
  const prediction = predictLookup(input);
  if (prediction.kind === 'found') return [prediction.email, prediction.emailStatus, prediction.isCatchAll];
  return ['', prediction.kind === 'not_found' ? 'NOT_FOUND' : 'UNPROCESSABLE', ''];
}

const RUN_OPTIONS: WorldOptions = {
  // Small slices and a little service latency: a run takes several continueEnrichment calls (one batch of 5 each).
  scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '100' },
  faults: { latencyMs: 120 },
};

/** How long a stopped run is watched for a continueEnrichment request that must not come. */
const QUIET_MS = 1000;

/**
 * Selects the rows and starts the run the way the menu does, as `starter` (by default the sidebar's own user);
 * returns once the progress sidebar is loaded.
 */
async function startRun(s: Session, a1: string, starter = s.user): Promise<void> {
  s.world.env.select(s.world.ss.id, a1);
  await s.world.env.run('enrichSelection', [], s.world.as(starter));
  await s.page.goto(s.bridge.url('progress'));
  await s.page.locator('#loading').waitFor({ state: 'hidden' });
  await s.page.locator('#view-progress').waitFor({ state: 'visible' });
}

/** Waits (bounded) until the progress bar passes `percent`. */
async function waitForPercent(page: Page, percent: number): Promise<void> {
  await page.waitForFunction(
    (min) => Number(document.getElementById('run-bar')?.getAttribute('aria-valuenow')) >= min,
    percent,
    { timeout: 1.5 * WAIT_MS, polling: 10 },
  );
}

/** A picture of the sidebar down to the end of its content, at its real width. */
async function screenshot(page: Page, path: string): Promise<void> {
  mkdirSync(join(path, '..'), { recursive: true });
  const bottom = await page.evaluate(
    () => document.querySelector('.sidebar')?.getBoundingClientRect().bottom ?? 0,
  );
  await page.screenshot({
    path,
    fullPage: true,
    clip: { x: 0, y: 0, width: SIDEBAR_WIDTH, height: Math.ceil(bottom) },
  });
  expect(statSync(path).size).toBeLessThan(150 * 1024);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (bounded) until every request the page sent has been answered, so no execution is still running. */
async function settle(s: Session): Promise<void> {
  const until = Date.now() + WAIT_MS;
  for (let round = 0; round < WAIT_MS / 25 && Date.now() < until; round++) {
    if (s.bridge.calls.length >= s.runRequests.length) break;
    await sleep(25);
  }
  expect(s.bridge.calls.length).toBe(s.runRequests.length);
}

/**
 * Once the run is paused or cancelled: the request in flight ends, a quiet while passes, and every request sent
 * meanwhile has been answered too, so a request a faulty drive loop sends after the last answer is on the list.
 */
async function settleAndWatch(s: Session): Promise<void> {
  await settle(s);
  await sleep(QUIET_MS);
  await settle(s);
}

/** Calls that only read (the figures asked for again once the last slice is back, the run's summary). */
const READS_ONLY = ['getEnrichmentProgress', 'getRunHistory'];

/** The requests that could work on the run, sent after the page's `fn` request (the last one). */
function requestsAfter(s: Session, fn: string): string[] {
  return s.runRequests.slice(s.runRequests.lastIndexOf(fn) + 1).filter((name) => !READS_ONLY.includes(name));
}

function storedJob(world: World): { state: string; counts: Record<string, number> } {
  return JSON.parse(world.env.documentProperties(world.ss.id).get('pef.job') ?? 'null');
}

const count = async (page: Page, id: string) => Number(await page.locator(`#${id}`).textContent());

test('the progress view drives a bulk run to the end, with Pause and Resume on the way', async () => {
  const inputs = runRows(40);
  const s = await open({ ...RUN_OPTIONS, data: [['Profile URL'], ...inputs.map((input) => [input])] });
  const { page, world, bridge } = s;
  // The service answers the start's batch and the sidebar's first (a quarter of the rows), then holds every lookup
  // until Pause has landed: the run cannot reach its end first, however slow the machine.
  const release = world.sandbox.service.hold(10);
  try {
    await startRun(s, 'A2:A41');
    await waitForText(page.locator('#run-state'), 'Running');
    await waitForText(page.locator('#run-sheet'), 'Sheet1!A2:A41');
    // No new run while this one is under way: the button is gone, not greyed.
    await expect(page.locator('#new-run').isHidden()).resolves.toBe(true);

    // The sidebar, not a trigger, moves the run on: the bar passes a quarter through its continueEnrichment calls.
    await waitForPercent(page, 25);
    expect(bridge.calls.filter((c) => c.fn === 'continueEnrichment').length).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Pause' }).click();
    await waitForText(page.locator('#run-state'), 'Paused');
    expect(storedJob(world).state).toBe('paused');
  } finally {
    release();
  }
  await expect(page.locator('#pause').isHidden()).resolves.toBe(true);
  await expect(page.locator('#resume').isVisible()).resolves.toBe(true);
  await expect(page.locator('#cancel').isVisible()).resolves.toBe(true);
  await expect(page.locator('#new-run').isHidden()).resolves.toBe(true);
  // Paused mid-run: no continueEnrichment request follows the pause, and rows after the pause point stay empty.
  await settleAndWatch(s);
  expect(requestsAfter(s, 'pauseEnrichment')).toEqual([]);
  const emptyRows = world.env.values(world.ss.id, 'C2:C41').filter(([status]) => status === '').length;
  expect(emptyRows).toBeGreaterThan(0);
  expect(storedJob(world).counts.processed).toBeLessThan(40);
  // The figures shown are the sheet's: every row with a status, no more.
  await expect(page.locator('#run-fraction').textContent()).resolves.toMatch(
    new RegExp(`^${40 - emptyRows} of 40 rows`),
  );

  // Resume with the keyboard; the sidebar drives the rest. More than a batch is left: Resume answers at once, sending
  // nothing, so "Running" shows while the service holds every lookup of the sidebar's slices (Resume working a slice
  // of its own would wait on the held service, the run reading "Paused" meanwhile).
  const resumeHold = world.sandbox.service.hold();
  try {
    await page.locator('#resume').focus();
    await page.keyboard.press('Enter');
    await waitForText(page.locator('#run-state'), 'Running');
    for (let round = 0; round < 400 && world.sandbox.service.held === 0; round++) await sleep(25);
    expect(world.sandbox.service.held).toBeGreaterThan(0);
    expect(bridge.calls.filter((c) => c.fn === 'resumeEnrichment')).toEqual([
      expect.objectContaining({ ok: true, value: expect.objectContaining({ state: 'running' }) }),
    ]);
  } finally {
    resumeHold();
  }
  await waitForText(page.locator('#run-state'), 'Done', 30_000);

  // Every row has its result, each profile was charged once, and the sidebar's counts are the sheet's.
  const written = world.env.values(world.ss.id, 'B2:D41');
  expect(written).toEqual(inputs.map(expectedCells));
  expect(Object.values(world.charges()).every((charged) => charged === 1)).toBe(true);
  const statuses = written.map((row) => row[1]);
  await expect(page.locator('#run-fraction').textContent()).resolves.toBe('40 of 40 rows processed (100%)');
  const rowsWith = (status: string) => statuses.filter((x) => x === status).length;
  expect(await count(page, 'count-found')).toBe(rowsWith('VALID'));
  expect(await count(page, 'count-no-address')).toBe(rowsWith('NOT_FOUND'));
  expect(await count(page, 'count-unprocessable')).toBe(rowsWith('UNPROCESSABLE'));
  expect(await count(page, 'count-invalid')).toBe(rowsWith('INVALID_URL'));
  expect(await count(page, 'count-errors')).toBe(rowsWith('ERROR'));
  expect(await count(page, 'count-done')).toBe(0);
  expect(await count(page, 'count-credits')).toBe(world.sandbox.service.totalCharged());
  await expect(page.locator('#run-bar').getAttribute('aria-valuenow')).resolves.toBe('100');
  // Done: the controls that cannot apply any more are gone, not greyed.
  await expect(page.locator('#run-controls').isHidden()).resolves.toBe(true);
  await expect(page.locator('#new-run').isVisible()).resolves.toBe(true);
  await expect(page.locator('#new-run').isEnabled()).resolves.toBe(true);
  // Each slice was its own execution: several continueEnrichment calls drove the run.
  expect(bridge.calls.filter((c) => c.fn === 'continueEnrichment').length).toBeGreaterThanOrEqual(3);
  expect(bridge.calls.filter((c) => !c.ok)).toEqual([]);
  expect(s.pageErrors).toEqual([]);
  // The finished run, for the README (deterministic: the same rows give the same counts).
  await expectFits(page);
  await screenshot(page, PROGRESS_SCREENSHOT);
});

test('Cancel stops a run where it is and keeps the results written so far', async () => {
  const inputs = runRows(60);
  const s = await open({ ...RUN_OPTIONS, data: [['Profile URL'], ...inputs.map((input) => [input])] });
  const { page, world } = s;
  // The service answers the start's batch and the sidebar's first, then holds every lookup until the Cancel has
  // landed: the run cannot reach its end first, however slow the machine.
  const release = world.sandbox.service.hold(10);
  try {
    await startRun(s, 'A2:A61');
    await waitForPercent(page, 10);
    // Cancel asks first; the run goes on meanwhile.
    await page.locator('#cancel').click();
    await page.locator('#cancel-confirm').waitFor({ state: 'visible' });
    expect(s.runRequests).not.toContain('cancelEnrichment');
    await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await waitForText(page.locator('#run-state'), 'Cancelled');
    expect(storedJob(world).state).toBe('cancelled');
  } finally {
    release();
  }
  await waitForText(page.locator('#run-message'), /^Cancelled: .*\. Results written so far are kept\.$/);
  // The sentence and the box beside it say the same figures.
  await page.locator('#summary').waitFor({ state: 'visible' });
  const boxIds = [
    'sum-found',
    'sum-no-address',
    'sum-unprocessable',
    'sum-invalid',
    'sum-errors',
    'sum-done',
  ];
  // Read at one moment while the box is shown: a slice still at work when Cancel was pressed may bring the final
  // figures meanwhile, and the box is hidden until it is read again.
  const read = () =>
    page.evaluate(
      (ids) => [
        String(document.getElementById('summary')?.hidden),
        ...ids.map((id) => document.getElementById(id)?.textContent ?? ''),
      ],
      ['run-message', ...boxIds, 'sum-credits'],
    );
  let [hidden, message, ...shown] = await read();
  for (let round = 0; round < 400 && hidden === 'true'; round++) {
    await sleep(25);
    [hidden, message, ...shown] = await read();
  }
  expect(hidden).toBe('false');
  const sentence = sentenceFigures(message);
  const box = shown.map(Number);
  expect([...Object.values(figuresOf(sentence)), sentence.credits]).toEqual(box);
  // No continueEnrichment request follows the cancel; once the slice in flight has ended, nothing more is written.
  await settleAndWatch(s);
  expect(requestsAfter(s, 'cancelEnrichment')).toEqual([]);
  const statuses = world.env.values(world.ss.id, 'C2:C61').map(([status]) => status);
  expect(statuses.filter((x) => x === '').length).toBeGreaterThan(0);
  expect(statuses.filter((x) => x !== '').length).toBe(storedJob(world).counts.processed);
  await expect(page.locator('#run-controls').isHidden()).resolves.toBe(true);
  expect(s.pageErrors).toEqual([]);
});

test('a rejected key: the run does not start, one message says where a key comes from; a valid key and Start finish it', async () => {
  const inputs = runRows(6);
  const s = await open({ ...RUN_OPTIONS, data: [['Profile URL'], ...inputs.map((input) => [input])] });
  const { page, world } = s;
  const wrongKey = 'wrong-key-3333cccc';
  world.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: wrongKey });
  const before = world.env.values(world.ss.id, 'A1:E7');
  const maxCols = world.ss.sheets[0].maxCols;
  // From the menu: one dialog, no sidebar, nothing changed.
  world.env.select(world.ss.id, 'A2:A7');
  await world.env.run('enrichSelection', [], world.as());
  expect(world.env.ui.sidebars).toEqual([]);
  expect(world.env.ui.alerts.map((alert) => alert.prompt)).toEqual([
    expect.stringMatching(/^The service rejected your API key, so the run did not start/),
  ]);
  // From the sidebar: the plan, Start, and the one message in the plan's box (no error bar, no key hint).
  await openSettings(s);
  await expect(page.locator('#run-notice').isVisible()).resolves.toBe(false);
  await page.getByRole('tab', { name: 'Progress' }).click();
  await page.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  await waitForText(
    page.locator('#plan-refusal'),
    /^The service rejected your API key, so the run did not start and nothing in the sheet changed\. Get a valid key in Account › API settings in the service's dashboard, save it in .*, then press Start again\./,
  );
  await expect(page.locator('#plan').isVisible()).resolves.toBe(true);
  for (const id of ['error', 'run-key-hint', 'run'])
    await expect(page.locator(`#${id}`).isVisible()).resolves.toBe(false);
  expect(world.env.values(world.ss.id, 'A1:E7')).toEqual(before);
  expect(world.ss.sheets[0].maxCols).toBe(maxCols);
  expect(storedJob(world)).toBeNull();
  expect(world.sandbox.service.ledger().filter((entry) => entry.networkUrl !== undefined)).toEqual([]);
  // Check says the same: where a valid key comes from.
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Check' }).click();
  await waitForText(keyMessage(s), /Get a valid key in Account › API settings in the service's dashboard/);
  await page.getByLabel('Your API key').fill(OWNER_KEY);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('#masked-key').waitFor();
  await page.getByRole('tab', { name: 'Progress' }).click();
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(world.env.values(world.ss.id, 'B2:D7')).toEqual(inputs.map(expectedCells));
  expectKeyNeverSent(s, wrongKey);
  expect(s.pageErrors).toEqual([]);
});

test('Start shows the progress view at once, before the server has answered', async () => {
  const inputs = runRows(6);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let world: World | undefined;
  const s = await open({
    ...RUN_OPTIONS,
    data: [['Profile URL'], ...inputs.map((input) => [input])],
    overrides: {
      // The server's answer waits for the test: what the page shows meanwhile cannot depend on speed.
      startRun: async (...args: unknown[]) => {
        await gate;
        return world?.env.run('startRun', args, world.as());
      },
    },
  });
  world = s.world;
  const { page } = s;
  // The add-on's default: the menu opens the plan.
  world.env.userProperties(OWNER).set({ PEF_SETTINGS: '{}' });
  world.env.select(world.ss.id, 'A2:A7');
  await fromMenu(s, 'enrichSelection', 'plan');
  await page.locator('#plan').waitFor({ state: 'visible' });
  await page.waitForFunction(() => !(document.getElementById('plan-start') as HTMLButtonElement).disabled);
  await page.locator('#plan-start').click();
  await page.locator('#run').waitFor({ state: 'visible' });
  await expect(page.locator('#plan').isVisible()).resolves.toBe(false);
  await waitForText(page.locator('#run-message'), 'Starting: checking your API key, then the first rows…');
  await expect(page.locator('#run-plan').textContent()).resolves.toMatch(
    /^Plan: 6 new profiles \(at most 6 credits\)/,
  );
  // Pause and Cancel from the first second; Resume cannot apply.
  await expect(page.locator('#pause').isVisible()).resolves.toBe(true);
  await expect(page.locator('#cancel').isVisible()).resolves.toBe(true);
  await expect(page.locator('#resume').isHidden()).resolves.toBe(true);
  expect(storedJob(world)).toBeNull();
  release();
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(world.env.values(world.ss.id, 'B2:D7')).toEqual(inputs.map(expectedCells));
  expect(s.pageErrors).toEqual([]);
});

test("a run nobody drives (its starter's sidebar closed) reads as paused, not running, then follows it to the end", async () => {
  const inputs = runRows(10);
  const s = await open({
    ...RUN_OPTIONS,
    user: EDITOR,
    data: [['Profile URL'], ...inputs.map((input) => [input])],
  });
  const { page, world } = s;
  await startRun(s, 'A2:A11', OWNER);
  // The emulator's clock: no slice for WAITING_AFTER_MS (the starter's sidebar closed).
  world.env.advanceClock(WAITING_AFTER_MS + 1000);
  await page.reload();
  await page.locator('#loading').waitFor({ state: 'hidden' });
  await waitForText(page.locator('#run-state'), "Paused: its starter's sidebar is closed");
  await expect(page.locator('#run-state').getAttribute('class')).resolves.toContain('paused');
  const seen = (await world.env.run('getEnrichmentProgress', [], world.as())) as {
    state: string;
    waiting?: boolean;
  };
  expect(seen).toMatchObject({ state: 'running', waiting: true });
  // The starter drives it again: the editor's sidebar follows it to the end.
  expect(await finishRun(world)).toBe('done');
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(s.pageErrors).toEqual([]);
});

test('a run out of credits pauses and says so; after a top-up Resume finishes it', async () => {
  const inputs = Array.from({ length: 12 }, (_, i) => url(`sam-lee-${i}`));
  const s = await open({
    ...RUN_OPTIONS,
    credits: 7,
    data: [['Profile URL'], ...inputs.map((input) => [input])],
  });
  const { page, world } = s;
  await startRun(s, 'A2:A13');
  await waitForText(page.locator('#run-state'), 'Paused: out of credits', 20_000);
  expect(await count(page, 'count-credits')).toBe(7);
  world.sandbox.service.addCredits('owner-org', 10);
  await page.getByRole('button', { name: 'Resume' }).click();
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(world.env.values(world.ss.id, 'B2:D13')).toEqual(inputs.map(expectedCells));
  expect(await count(page, 'count-credits')).toBe(12);
  expect(world.sandbox.service.totalCharged()).toBe(12);
  expect(s.pageErrors).toEqual([]);
});

test("another editor's sidebar shows the owner's run read-only, never drives it, and follows it to the end", async () => {
  const inputs = runRows(10);
  const s = await open({
    ...RUN_OPTIONS,
    user: EDITOR,
    data: [['Profile URL'], ...inputs.map((input) => [input])],
  });
  const { page, world } = s;
  world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
  await startRun(s, 'A2:A11', OWNER);
  await waitForText(
    page.locator('#run-owner'),
    `Started by ${OWNER}; only they can run, pause or resume it. It spends nothing of yours.`,
  );
  // Not theirs: no control they could not use.
  await expect(page.locator('#run-controls').isHidden()).resolves.toBe(true);
  // The owner's sidebar (here: the test) drives the run; the editor's page only looks now and then.
  expect(await finishRun(world)).toBe('done');
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  await settle(s);
  expect(s.runRequests).not.toContain('continueEnrichment');
  expect(s.runRequests).toContain('getEnrichmentProgress');
  expect(new Set(world.sandbox.service.ledger().map((entry) => entry.organization))).toEqual(
    new Set(['owner-org']),
  );
  expect(world.env.values(world.ss.id, 'B2:D11')).toEqual(inputs.map(expectedCells));
  expect(s.pageErrors).toEqual([]);
});

test('a run left waiting (its sidebar closed) goes on when its starter opens the sidebar again, on any view', async () => {
  const inputs = runRows(12);
  const s = await open({ ...RUN_OPTIONS, data: [['Profile URL'], ...inputs.map((input) => [input])] });
  const { page, world } = s;
  // Started from the menu, then the sidebar closed at once: nothing drives the run, which waits, running.
  world.env.select(world.ss.id, 'A2:A13');
  await world.env.run('enrichSelection', [], world.as());
  world.env.advanceClock(5 * 60_000);
  const waiting = (await world.env.run('getEnrichmentProgress', [], world.as())) as {
    state: string;
    waiting?: boolean;
  };
  expect(waiting).toMatchObject({ state: 'running', waiting: true });
  // Settings & API key from the menu: the sidebar opens on its settings view, and drives the run to its end.
  await openSettings(s);
  await waitForText(page.locator('#run-notice-text'), /A run is under way/);
  // Still on the settings view, the sidebar drives the run to its end (bounded wait on the stored job).
  for (let round = 0; round < 800 && storedJob(world).state !== 'done'; round++) await sleep(25);
  expect(storedJob(world).state).toBe('done');
  await expect(page.locator('#view-settings').isVisible()).resolves.toBe(true);
  await page.getByRole('tab', { name: 'Progress' }).click();
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(s.runRequests).toContain('continueEnrichment');
  expect(world.env.values(world.ss.id, 'B2:D13')).toEqual(inputs.map(expectedCells));
  expect(s.pageErrors).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------
// The key never reaches the page

test('the full key never reaches the sidebar, whatever the sidebar calls', async () => {
  // More rows than the run reaches: it is paused twice and cancelled, never finished.
  const inputs = runRows(80);
  const s = await open({
    ...RUN_OPTIONS,
    user: EDITOR,
    data: [['Profile URL'], ...inputs.map((input) => [input])],
  });
  const { page, world, bridge } = s;
  // The owner's key is in the same emulator (formulas would use it); the editor saves their own.
  await openSettings(s);
  await page.getByLabel('Your API key').fill(EDITOR_KEY);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('#masked-key').waitFor();
  await page.getByRole('button', { name: 'Check' }).click();
  await waitForText(keyMessage(s), /^The API key works/);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await waitForText(page.locator('#settings-message'), /^Settings saved/);

  // A run as the editor, with its progress view: running, paused, resumed, then cancelled. The service answers
  // the start's batch, then holds every lookup until the Cancel has landed: the run cannot end before.
  const release = world.sandbox.service.hold(5);
  try {
    await startRun(s, 'A2:A81');
    // A slice is at work (its batch held at the service) before the Pause: the Pause stops a run under way, and
    // Resume answers at once (the slice carries on).
    for (let round = 0; round < 800 && world.sandbox.service.held === 0; round++) await sleep(25);
    expect(world.sandbox.service.held).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Pause' }).click();
    await waitForText(page.locator('#run-state'), 'Paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await waitForText(page.locator('#run-state'), 'Running');
    await page.getByRole('button', { name: 'Pause' }).click();
    await waitForText(page.locator('#run-state'), 'Paused');
    await page.locator('#cancel').click();
    await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await waitForText(page.locator('#run-state'), 'Cancelled');
  } finally {
    release();
  }
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await page.getByRole('button', { name: 'Remove the API key' }).click();
  await waitForText(page.locator('#key-status'), 'No API key saved yet.');
  await settle(s);

  // The run used the editor's key (their organisation was charged), so the key was there to leak.
  expect(
    world.sandbox.service.ledger().some((entry) => entry.organization === EDITOR_ORG && entry.charged),
  ).toBe(true);
  const called = new Set(bridge.calls.map((c) => c.fn));
  for (const fn of [
    'getSidebarState',
    'saveApiKey',
    'checkApiKey',
    'saveSettings',
    'continueEnrichment',
    'pauseEnrichment',
    'resumeEnrichment',
    'cancelEnrichment',
    'removeApiKey',
  ]) {
    expect(called).toContain(fn);
  }
  // Neither the page, nor any answer to google.script.run, nor any HTML the bundle made holds either key
  // (the masked form did reach the page).
  expect(bridge.responses.some((r) => r.body.includes(`••••••••${EDITOR_KEY.slice(-4)}`))).toBe(true);
  for (const key of [EDITOR_KEY, OWNER_KEY]) {
    expectKeyNeverSent(s, key);
    for (const sidebar of world.env.ui.sidebars) expect(sidebar.html).not.toContain(key);
    for (const line of world.env.logs) expect(line.message).not.toContain(key);
    expect(await page.content()).not.toContain(key);
  }
  expect(s.pageErrors).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------
// The picture in the README

test('screenshot: the sidebar at 300 px with a saved, checked key', async () => {
  // The add-on's default settings, as a person first sees them.
  const s = await open({ user: OWNER, startsAtOnce: false });
  await openSettings(s);
  const { page } = s;
  await page.getByRole('button', { name: 'Check' }).click();
  await waitForText(keyMessage(s), /^The API key works/);
  // Nothing is wider than the sidebar: no horizontal scrolling at 300 px.
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1]);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.mouse.move(0, 700);
  await screenshot(page, SCREENSHOT);
  expect(s.requests.every((address) => address.startsWith(`${s.bridge.origin}/`))).toBe(true);
});

// ---------------------------------------------------------------------------------------------------------------
// The plan and the price before a run, what a run did, retry failed rows, the formulas' limit

const PLAN_SCREENSHOT = join(SHOTS_DIR, 'sidebar-plan.png');
const CONFIRM_SCREENSHOT = join(SHOTS_DIR, 'sidebar-confirm.png');
const SUMMARY_SCREENSHOT = join(SHOTS_DIR, 'sidebar-summary.png');

/** The menu's Find e-mails (or Retry failed rows), then the sidebar it opened. */
async function fromMenu(s: Session, fn: 'enrichSelection' | 'retryFailedRows', view: 'plan' | 'progress') {
  await s.world.env.run(fn, [], s.world.as());
  await s.page.goto(s.bridge.url(view));
  await s.page.locator('#loading').waitFor({ state: 'hidden' });
  await s.page.locator('#view-progress').waitFor({ state: 'visible' });
}

/** Nothing is wider than the sidebar. */
async function expectFits(page: Page): Promise<void> {
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1]);
}

test('the plan before a run: counts, a choice of columns and what moves; then the run, what it did, Retry failed rows', async () => {
  const inputs = [
    url('amy-lane'),
    url('broken-bob'),
    url('amy-lane'),
    '',
    'not a url',
    url('anonymous-cy'),
    url('dee-moss'),
  ];
  const s = await open({
    ...RUN_OPTIONS,
    data: [['Profile', 'Company'], ...inputs.map((input, i) => [input, input ? `Co ${i}` : ''])],
  });
  const { page, world } = s;
  const before = world.env.values(world.ss.id, 'A1:H8');
  // Two ranges selected: the plan says which one it uses.
  world.env.selectRanges(world.ss.id, ['B2:B3', 'A2:A8']);
  await fromMenu(s, 'enrichSelection', 'plan');
  await page.locator('#plan').waitFor({ state: 'visible' });
  await waitForText(page.locator('#plan-note'), '2 ranges are selected: using A2:A8, the last one selected.');
  await expect(page.locator('#plan-where').textContent()).resolves.toBe('Sheet1!A2:A8: results in B:E.');
  const planCounts = await Promise.all(
    ['plan-rows', 'plan-new', 'plan-known', 'plan-invalid', 'plan-blanks', 'plan-done'].map((id) =>
      count(page, id),
    ),
  );
  expect(planCounts).toEqual([7, 4, 0, 1, 1, 0]);
  await expect(page.locator('#plan-price').textContent()).resolves.toBe(
    'At most 4 credits (4 new profiles).',
  );
  // The Company column is beside the URLs: a choice, and Start waits for it.
  await expect(page.locator('#plan-start').isDisabled()).resolves.toBe(true);
  await expect(page.locator('label[for="placement-insert"]').textContent()).resolves.toMatch(
    /B and every column right of it move 4 to the right/,
  );
  await page.getByLabel(/^Use C:F, further right/).check();
  await waitForText(
    page.locator('label[for="placement-right"]'),
    /Results go into the empty columns C:F\. Nothing moves\.$/,
  );
  await expect(page.locator('#plan-unprocessable-row').isVisible()).resolves.toBe(false);
  await page.locator('#plan-start').waitFor({ state: 'visible' });
  await page.waitForFunction(() => !(document.getElementById('plan-start') as HTMLButtonElement).disabled);
  await expectFits(page);
  await page.mouse.move(0, 740);
  await screenshot(page, PLAN_SCREENSHOT);
  // Nothing in the sheet changed while the plan was shown, and nothing was sent.
  expect(world.env.values(world.ss.id, 'A1:H8')).toEqual(before);
  expect(world.sandbox.service.ledger()).toEqual([]);

  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(world.env.values(world.ss.id, 'B2:B8').map(([company]) => company)).toEqual(
    inputs.map((input, i) => (input ? `Co ${i}` : '')),
  );
  expect(world.env.values(world.ss.id, 'C2:E2')).toEqual([expectedCells(url('amy-lane'))]);

  // What the run did: every row in one counter.
  await page.locator('#summary').waitFor({ state: 'visible' });
  const summary = await Promise.all(
    [
      'sum-found',
      'sum-no-address',
      'sum-unprocessable',
      'sum-invalid',
      'sum-errors',
      'sum-done',
      'sum-credits',
    ].map((id) => count(page, id)),
  );
  expect(summary).toEqual([3, 0, 1, 1, 1, 0, world.sandbox.service.totalCharged()]);
  // The progress sentence beside the box says the same figures (one classifier, src/bulk/outcomes.ts).
  const sentence = sentenceFigures((await page.locator('#run-message').textContent()) ?? '');
  expect([...Object.values(figuresOf(sentence)), sentence.credits]).toEqual(summary);
  await expect(page.locator('#sum-time').textContent()).resolves.toMatch(/^\d+ s$/);
  // The summary replaces the running counters (the same figures, with what the run did in the end).
  await expect(page.locator('#run-counts').isVisible()).resolves.toBe(false);
  // The button names the kinds it selects: no error row alone would read as "failed" beside Errors 0.
  await expect(page.locator('#select-failed').textContent()).resolves.toBe(
    'Select the first row with an error, unprocessable or not a profile',
  );
  await page.locator('#select-failed').click();
  await waitForText(page.locator('#summary-message'), 'Row 3 is selected (ERROR).');
  expect(world.ss.activeRange).toMatchObject({ row: 3, col: 1 });

  // Retry failed rows: only the ERROR row, from the last run's range.
  await page.getByRole('button', { name: 'Retry failed rows' }).click();
  await waitForText(page.locator('#plan-title'), 'Retry failed rows');
  await expect(count(page, 'plan-new')).resolves.toBe(1);
  await expect(page.locator('#plan-unprocessable-row').isVisible()).resolves.toBe(true);
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#summary-title'), 'What the retry did', 20_000);
  await expect(page.locator('#history li').count()).resolves.toBe(2);
  await expect(page.locator('#history li').first().textContent()).resolves.toMatch(/^Sheet1!A2:A8 \(retry, /);
  // broken-bob fails every time (the sandbox's rule): charged never, retried once more.
  expect(world.env.values(world.ss.id, 'D3')[0][0]).toBe('ERROR');
  expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
  await expectFits(page);
  await page.mouse.move(0, 740);
  await screenshot(page, SUMMARY_SCREENSHOT);
  expect(s.pageErrors).toEqual([]);
});

test('a column without profile URLs is refused in the plan, and nothing changes', async () => {
  const s = await open({ data: [['Email'], ['ann@home.test'], ['bob@home.test']] });
  const { page, world } = s;
  world.env.select(world.ss.id, 'A1:A3');
  await fromMenu(s, 'enrichSelection', 'plan');
  await waitForText(page.locator('#plan-refusal'), /^Column A holds e-mail addresses, not profile URLs/);
  await expect(page.locator('#plan-start').isDisabled()).resolves.toBe(true);
  expect(world.env.values(world.ss.id, 'A1:E3')).toEqual([
    ['Email', '', '', '', ''],
    ['ann@home.test', '', '', '', ''],
    ['bob@home.test', '', '', '', ''],
  ]);
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await page.locator('#plan').waitFor({ state: 'hidden' });
  expect(s.pageErrors).toEqual([]);
});

test('"start runs under 3 credits at once": a run of 6 shows its plan first; re-checking is chosen for one run, never kept', async () => {
  const inputs = Array.from({ length: 6 }, (_, i) => url(`rex-stone-${i}`));
  const s = await open({ ...RUN_OPTIONS, data: [['Profile'], ...inputs.map((input) => [input])] });
  const { page, world } = s;
  world.env
    .userProperties(OWNER)
    .set({ PEF_SETTINGS: JSON.stringify({ startAtOnce: true, startAtOnceUnder: 3 }) });
  world.env.select(world.ss.id, 'A1:A7');
  await openSettings(s);
  await expect(page.getByLabel(/Start runs under a few credits at once/).isChecked()).resolves.toBe(true);
  await expect(page.getByLabel('Start at once runs under').inputValue()).resolves.toBe('3');
  await page.getByRole('tab', { name: 'Progress' }).click();

  // 6 new profiles: not under 3, so the sidebar's Find e-mails shows the price and waits.
  await page.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  await waitForText(
    page.locator('#plan-confirm'),
    /up to 6 credits: not under the 3 you set for starting at once/,
  );
  await expect(page.locator('#plan-start').textContent()).resolves.toBe('Start: up to 6 credits');
  expect(world.sandbox.service.ledger()).toEqual([]);
  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 20_000);
  expect(world.sandbox.service.totalCharged()).toBe(6);

  // Again: every row has its result, so the plan waits and offers re-checking, for this run only.
  await page.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  await waitForText(page.locator('#plan-price'), 'Free: no new profile to look up.');
  await expect(count(page, 'plan-done')).resolves.toBe(6);
  await page.getByLabel(/Also look up rows that already have a result/).check();
  await waitForText(page.locator('#plan-price'), 'At most 6 credits (6 new profiles).');
  await waitForText(page.locator('#plan-confirm'), /not under the 3 you set for starting at once\.$/);
  await page.mouse.move(0, 740);
  await screenshot(page, CONFIRM_SCREENSHOT);
  await page.locator('#plan-start').click();
  // The re-check is the second run in the history (the first summary read "Done" too).
  await page.waitForFunction(() => document.querySelectorAll('#history li').length === 2, undefined, {
    timeout: 20_000,
  });
  await waitForText(page.locator('#run-state'), 'Done');
  expect(world.sandbox.service.totalCharged()).toBe(12);
  // The next plan does not re-check: nothing stayed on.
  await page.getByRole('button', { name: 'Find e-mails for the selected column' }).click();
  await waitForText(page.locator('#plan-price'), 'Free: no new profile to look up.');
  await expect(page.getByLabel(/Also look up rows that already have a result/).isChecked()).resolves.toBe(
    false,
  );
  await page.locator('#plan-start').click();
  await page.waitForFunction(() => document.getElementById('sum-done')?.textContent === '6');
  expect(world.sandbox.service.totalCharged()).toBe(12);
  expect(world.env.userProperties(OWNER).get('PEF_SETTINGS')).not.toMatch(/recheck/);
  expect(s.pageErrors).toEqual([]);
});

test('by default Find e-mails on 21 rows shows the plan, its price and Try 10 rows first (11 new profiles); nothing changes until Start', async () => {
  const profiles = Array.from({ length: 11 }, (_, i) => url(`pia-nash-${i}`));
  // 21 rows: 11 profiles, 5 of them repeated, 2 texts that are no profile, 2 blanks, one more repeat.
  const inputs = [
    ...profiles,
    ...profiles.slice(0, 5),
    'not a url',
    'no profile either',
    '',
    '',
    profiles[5],
  ];
  expect(inputs).toHaveLength(21);
  const s = await open({
    ...RUN_OPTIONS,
    startsAtOnce: false,
    data: [['Profile'], ...inputs.map((i) => [i])],
  });
  const { page, world } = s;
  const before = world.env.values(world.ss.id, 'A1:F22');
  world.env.select(world.ss.id, 'A1:A22');
  await fromMenu(s, 'enrichSelection', 'plan');
  await page.locator('#plan').waitFor({ state: 'visible' });
  await waitForText(page.locator('#plan-price'), 'At most 11 credits (11 new profiles).');
  await expect(count(page, 'plan-rows')).resolves.toBe(21);
  await expect(count(page, 'plan-new')).resolves.toBe(11);
  await expect(count(page, 'plan-invalid')).resolves.toBe(2);
  await expect(count(page, 'plan-blanks')).resolves.toBe(2);
  await expect(page.locator('#plan-start').textContent()).resolves.toBe('Start: up to 11 credits');
  await expect(page.locator('#plan-trial').isVisible()).resolves.toBe(true);
  await expect(page.locator('#plan-confirm').isHidden()).resolves.toBe(true);
  // A quiet while: nothing starts by itself, nothing in the sheet or the service changed.
  await sleep(QUIET_MS);
  expect(s.runRequests).not.toContain('startRun');
  expect(storedJob(world)).toBeNull();
  expect(world.env.values(world.ss.id, 'A1:F22')).toEqual(before);
  expect(world.sandbox.service.ledger()).toEqual([]);

  await page.locator('#plan-start').click();
  await waitForText(page.locator('#run-state'), 'Done', 30_000);
  expect(world.sandbox.service.totalCharged()).toBe(11);
  await waitForText(
    page.locator('#sum-found'),
    String(inputs.filter((i) => predictLookup(i).kind === 'found').length),
  );
  expect(s.pageErrors).toEqual([]);
});

test('the progress counts rows as their answers come in, while the slice that drives the run is still on its way', async () => {
  const inputs = runRows(20);
  let world: World | undefined;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  const s = await open({
    ...RUN_OPTIONS,
    // One slice at a time: only the held call's slice moves the run.
    scriptProperties: { ...RUN_OPTIONS.scriptProperties, BULK_SLICES: '1' },
    data: [['Profile URL'], ...inputs.map((input) => [input])],
    overrides: {
      // The sidebar's first continueEnrichment works its slice, then its answer waits for the test: meanwhile
      // only the progress the slice saved can move the figures.
      continueEnrichment: async () => {
        const answer = await world?.env.run('continueEnrichment', [], world.as());
        if (held++ === 0) await gate;
        return answer;
      },
    },
  });
  world = s.world;
  const { page } = s;
  // The menu's start works a first slice; then the sidebar opens and drives, its first answer held.
  world.env.select(world.ss.id, 'A1:A21');
  await world.env.run('enrichSelection', [], world.as());
  const firstSlice = storedJob(world).counts.processed;
  expect(firstSlice).toBeLessThan(20);
  await page.goto(s.bridge.url('progress'));
  const until = Date.now() + 2 * WAIT_MS;
  while (held === 0 && Date.now() < until) await sleep(25);
  expect(held).toBe(1);
  const saved = storedJob(world).counts.processed;
  expect(saved).toBeGreaterThan(firstSlice);
  expect(storedJob(world).state).toBe('running');
  // Shown before the held answer comes back: the rows the slice saved, beside the credits charged for them.
  await waitForText(page.locator('#run-fraction'), new RegExp(`^${saved} of 20 rows processed`));
  await expect(page.locator('#run-state').textContent()).resolves.toBe('Running');
  await expect(count(page, 'count-credits')).resolves.toBe(world.sandbox.service.totalCharged());
  release();
  await waitForText(page.locator('#run-state'), 'Done', 30_000);
  await expect(page.locator('#run-fraction').textContent()).resolves.toBe('20 of 20 rows processed (100%)');
  expect(s.pageErrors).toEqual([]);
});

test("the owner's daily limit for formulas: saved in the sidebar, obeyed by =FINDEMAIL, shown as used", async () => {
  const inputs = Array.from({ length: 3 }, (_, i) => url(`uma-vale-${i}`));
  const s = await open({ data: [['Profile'], ...inputs.map((input) => [input])] });
  const { page, world } = s;
  await openSettings(s);
  await expect(page.getByLabel('Daily limit for formulas').inputValue()).resolves.toBe('500');
  await page.getByLabel('Daily limit for formulas').fill('2');
  await page.getByRole('button', { name: 'Save formula limit' }).click();
  await waitForText(page.locator('#formulas-message'), 'Formula limit saved for this spreadsheet.');
  await waitForText(
    page.locator('#formulas-used'),
    /^Used today \(\d{1,2} [A-Z][a-z]{2}\): 0 of 2 credits\.$/,
  );

  world.env.enter(world.ss.id, 'B2:B4', [['=FINDEMAIL(A2)'], ['=FINDEMAIL(A3)'], ['=FINDEMAIL(A4)']]);
  await world.env.recalculate(world.ss.id);
  const cells = world.env.values(world.ss.id, 'B2:B4').map(([value]) => String(value));
  expect(cells.filter((value) => value.includes('@'))).toHaveLength(2);
  expect(cells.filter((value) => /daily limit for =FINDEMAIL/.test(value))).toHaveLength(1);
  expect(world.sandbox.service.totalCharged()).toBe(2);

  await openSettings(s);
  await waitForText(
    page.locator('#formulas-used'),
    /^Used today \(\d{1,2} [A-Z][a-z]{2}\): 2 of 2 credits\.$/,
  );
  // Turned off: saved as such.
  await page.getByLabel('Let =FINDEMAIL look up new profiles').uncheck();
  await page.getByRole('button', { name: 'Save formula limit' }).click();
  await waitForText(page.locator('#formulas-used'), /^New lookups by formulas are off/);
  expect(s.pageErrors).toEqual([]);
});

test('google.script.run as in Apps Script: a Date argument fails without a request, a private function is not found', async () => {
  const s = await open();
  await openSettings(s);
  const before = s.runRequests.length;
  const failures = await s.page.evaluate(() => {
    type Run = Record<string, (...args: unknown[]) => void> & {
      withFailureHandler(f: (error: Error) => void): Run;
      withSuccessHandler(f: (value: unknown) => void): Run;
    };
    const run = (window as unknown as { google: { script: { run: Run } } }).google.script.run;
    const call = (fn: string, args: unknown[]) =>
      new Promise<string>((resolve) => {
        run
          .withSuccessHandler(() => resolve('succeeded'))
          .withFailureHandler((error) => resolve(error.message))
          [fn](...args);
      });
    return Promise.all([
      call('saveSettings', [{ when: new Date() }]),
      call('saveSettings', [[() => 1]]),
      call('getSidebarState_', []),
    ]);
  });
  expect(failures[0]).toMatch(/^Invalid argument: a Date, function or DOM element/);
  expect(failures[1]).toMatch(/^Invalid argument/);
  expect(failures[2]).toBe('Script function not found: getSidebarState_');
  // Only the private function's call reached the server (and was refused there).
  expect(s.runRequests.slice(before)).toEqual(['getSidebarState_']);
});

test('closing the sidebar pauses the run it drives (its pagehide call), and the sidebar open again resumes it to the end', async () => {
  const inputs = runRows(30);
  const s = await open({ ...RUN_OPTIONS, data: [['Profile URL'], ...inputs.map((input) => [input])] });
  const { page, world } = s;
  // The service answers the start's batch, then holds every lookup until the sidebar has gone.
  const release = world.sandbox.service.hold(5);
  try {
    await startRun(s, 'A2:A31');
    await waitForText(page.locator('#run-state'), 'Running');
    for (let round = 0; round < 400 && world.sandbox.service.held === 0; round++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(world.sandbox.service.held).toBeGreaterThan(0);
    // The person closes the sidebar: its page goes away (pagehide).
    await page.evaluate(() =>
      window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })),
    );
    for (let round = 0; round < 400 && storedJob(world).state !== 'paused'; round++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(s.runRequests).toContain('sidebarClosed');
    expect(storedJob(world).state).toBe('paused');
  } finally {
    release();
  }
  // The slice under way writes the batch it sent and takes no other: nothing more reaches the service.
  const leased = () =>
    (JSON.parse(world.env.documentProperties(world.ss.id).get('pef.job') ?? '{}').windows ?? []).filter(
      (window: { until: number }) => window.until > world.env.now(),
    ).length;
  for (let round = 0; round < 400 && (world.sandbox.service.inFlight > 0 || leased() > 0); round++)
    await new Promise((resolve) => setTimeout(resolve, 25));
  const sent = world.sandbox.service.ledger().length;
  const requests = s.runRequests.length;
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  expect(world.sandbox.service.ledger()).toHaveLength(sent);
  expect(s.runRequests.slice(requests)).not.toContain('continueEnrichment');
  expect(storedJob(world).state).toBe('paused');
  // The sidebar open again: it resumes the run and drives it to Done.
  await page.goto(s.bridge.url('progress'));
  await page.locator('#loading').waitFor({ state: 'hidden' });
  await waitForText(page.locator('#run-state'), 'Done', 2 * WAIT_MS);
  expect(world.env.values(world.ss.id, 'B2:D31')).toEqual(inputs.map(expectedCells));
  const charges = Object.values(world.charges());
  expect(charges.every((n) => n === 1)).toBe(true);
  expect(s.pageErrors).toEqual([]);
});
