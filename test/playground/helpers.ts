/** The playground driven as a person would: Chromium (playwright-core), the page, its menu and the sidebar's frame. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';
import { columnName } from '../../emulator/model/a1';
import { type Playground, type PlaygroundOptions, startPlayground } from '../../playground/server';
import { normalizeProfileUrl, predictLookup } from '../../sandbox/profiles';
import { launchChromium } from '../support/browser';

/** The bound of each Playwright action and wait on the page (the context's default timeout). */
export const ACTION_MS = 10_000;

/** The browser test/support/browser.ts finds (CHROME_PATH, then the installed Chrome/Chromium). */
export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

export function tempStateDir(): string {
  return mkdtempSync(join(tmpdir(), 'playground-state-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Short runs: batches of 5, slices of 0.5 s, 100 ms per request. A slice then handles at most 6 batches (30 rows),
 * so a longer run always goes on in the slices the open sidebar asks for.
 */
export function testPlayground(stateDir: string, extra: PlaygroundOptions = {}): Promise<Playground> {
  return startPlayground({
    port: 0,
    stateDir,
    latencyMs: 100,
    ...extra,
    scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '500', ...extra.scriptProperties },
  });
}

export const profile = (slug: string) => `https://www.network.com/in/${slug}`;

const FIRST = ['alice', 'bruno', 'carla', 'dmitri', 'elena', 'farid', 'grace', 'hugo', 'ines', 'jonas'];
const LAST = ['lopez', 'meyer', 'novak', 'okafor', 'petrov'];

/** Distinct people who all have an address. */
export function people(count: number, offset = 0): string[] {
  const urls: string[] = [];
  for (let i = offset; i < offset + count; i++) {
    urls.push(profile(`${FIRST[i % FIRST.length]}-${LAST[Math.floor(i / FIRST.length) % LAST.length]}-${i}`));
  }
  return urls;
}

/** What the add-on writes in Email and Email status for an entry (the sandbox's answers are deterministic). */
export function expectedRow(entry: string): [string, string] {
  if (!/^https?:\/\//.test(entry)) return ['', 'INVALID_URL'];
  const answer = predictLookup(entry);
  if (answer.kind === 'found') return [answer.email, 'VALID'];
  if (answer.kind === 'not_found') return ['', 'NOT_FOUND'];
  return ['', 'UNPROCESSABLE'];
}

/** The distinct profiles a run over these entries may charge for: each once. */
export function chargeableProfiles(entries: string[]): string[] {
  return [...new Set(entries.filter((e) => /^https?:\/\//.test(e)).map(normalizeProfileUrl))].sort();
}

export interface Session {
  context: BrowserContext;
  page: Page;
  sidebar: FrameLocator;
  /** Every address the page or its frames asked for outside the playground's own origins (all refused). */
  refused: string[];
}

/**
 * A page on the playground that may reach only the playground's own loopback origins: the sheet's server and the
 * sidebar's host (another port, known once a sidebar is open). Anything else is refused and listed.
 */
export async function openPage(browser: Browser, playground: Playground): Promise<Session> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    context.setDefaultTimeout(ACTION_MS);
    const origins = new Set([new URL(playground.url).origin]);
    const refused: string[] = [];
    const allowed = (address: string) => [...origins].some((origin) => address.startsWith(`${origin}/`));
    await context.route('**/*', (route) => {
      const address = route.request().url();
      if (!allowed(address)) {
        const sidebar = playground.workbook.sidebar().url;
        if (sidebar) origins.add(new URL(sidebar).origin);
      }
      if (allowed(address)) return route.continue();
      refused.push(address);
      return route.abort();
    });
    // The page pastes from the system clipboard as Sheets does; the test writes to it first.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: playground.url.replace(/\/$/, ''),
    });
    const page = await context.newPage();
    await page.goto(playground.url);
    await menuEntries(page);
    return { context, page, sidebar: page.frameLocator('#sidebar-frame'), refused };
  } catch (error) {
    await Promise.allSettled([context.close()]);
    throw error;
  }
}

/** The add-on menu's entries as the page shows them (once onOpen has built it). */
export async function menuEntries(page: Page): Promise<string[]> {
  await page.locator('#addon-menu button.menu-entry').first().waitFor({ state: 'attached', timeout: 20_000 });
  return page.locator('#addon-menu button.menu-entry').allTextContents();
}

export function cell(page: Page, r: number, c: number) {
  return page.locator(`td[data-r="${r}"][data-c="${c}"]`);
}

/** Puts the lines on the clipboard, clicks the cell and presses Ctrl+V. */
export async function pasteColumn(page: Page, r: number, c: number, lines: string[]): Promise<void> {
  await cell(page, r, c).click();
  await page.evaluate((text) => navigator.clipboard.writeText(text), lines.join('\n'));
  await page.keyboard.press('Control+V');
}

export async function typeInCell(page: Page, r: number, c: number, text: string): Promise<void> {
  await cell(page, r, c).click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

export async function chooseMenu(page: Page, label: string): Promise<void> {
  await page.locator('#menu-extensions').click();
  await page.locator('#addon-entry').hover();
  await page.locator('#addon-menu button.menu-entry', { hasText: label }).click();
}

/**
 * Find e-mails (or Retry) from the menu, then Start in the plan it opens: the plan's price and Start are shown first,
 * nothing starts before. Returns the plan's price line.
 */
export async function runFromMenu(page: Page, label: string): Promise<string> {
  await chooseMenu(page, label);
  const start = page.frameLocator('#sidebar-frame').locator('#plan-start');
  await start.waitFor({ state: 'visible', timeout: ACTION_MS });
  const price = await frameText(page, '#plan-price');
  await page
    .frameLocator('#sidebar-frame')
    .locator('#plan-start:not([disabled])')
    .click({ timeout: ACTION_MS });
  return price;
}

/** The page shows `text` in cell (r, c) within ACTION_MS. */
export function cellShows(
  page: Page,
  r: number,
  c: number,
  text: string,
  what: string,
): Promise<string | null> {
  return waitFor(
    () => cell(page, r, c).textContent(),
    (shown) => shown === text,
    ACTION_MS,
    what,
  );
}

/**
 * Ends what a test opened: the page first, then the servers, then the saved state; every step runs even if one
 * before it fails, and the first failure is thrown at the end.
 */
export async function closeAll(open: { session?: Session; playground?: Playground; stateDir: string }) {
  const results = [
    ...(await Promise.allSettled([open.session?.context.close()])),
    ...(await Promise.allSettled([open.playground?.close()])),
  ];
  removeDir(open.stateDir);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** What a describe's tests open in a browser: the tests set playground, session and stateDir; the hooks end them. */
export interface OpenedInBrowser {
  browser: Browser;
  playground?: Playground;
  session?: Session;
  stateDir: string;
}

/**
 * Starts a playground for one test of a `useBrowser` describe (in a new state folder) and opens a page on it; the
 * describe's hooks end both.
 */
export async function openPlayground(
  opened: OpenedInBrowser,
  extra: PlaygroundOptions = {},
): Promise<{ pg: Playground; session: Session }> {
  opened.stateDir = tempStateDir();
  opened.playground = await testPlayground(opened.stateDir, extra);
  opened.session = await openPage(opened.browser, opened.playground);
  return { pg: opened.playground, session: opened.session };
}

/** Pastes the lines into column `c` from row `r` and waits until the server's sheet holds the last of them. */
export async function pasteOnServer(
  page: Page,
  pg: Playground,
  r: number,
  c: number,
  lines: string[],
): Promise<void> {
  await pasteColumn(page, r, c, lines);
  const { env, spreadsheetId } = pg.workbook;
  const last = r + lines.length - 1;
  await waitFor(
    () => env.values(spreadsheetId, a1Cell(last, c))[0][0],
    (value) => value === lines[lines.length - 1],
    ACTION_MS,
    `the pasted cells on the server, down to row ${last}`,
  );
}

const a1Cell = (r: number, c: number) => `${columnName(c)}${r}`;

/**
 * Registers the hooks of a describe whose tests drive the playground in Chromium: one browser for all its tests,
 * and after each test, closeAll over what it opened.
 */
export function useBrowser(): OpenedInBrowser {
  const opened = { stateDir: '' } as OpenedInBrowser;

  beforeAll(async () => {
    opened.browser = await launchBrowser();
  });

  afterAll(async () => {
    await opened.browser?.close();
  });

  afterEach(async () => {
    const open = { session: opened.session, playground: opened.playground, stateDir: opened.stateDir };
    opened.session = undefined;
    opened.playground = undefined;
    await closeAll(open);
  });

  return opened;
}

/** Waits until `read` returns a value that `done` accepts; every value seen is kept. Bounded by `timeoutMs`. */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs: number,
  what: string,
  seen: T[] = [],
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (let round = 0; round < Math.ceil(timeoutMs / 50) && Date.now() < end; round++) {
    last = await read();
    if (seen[seen.length - 1] !== last) seen.push(last);
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

/** Resolves as `promise` does, or fails once `timeoutMs` have passed. */
export async function bounded<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The sidebar's frame, for reading its text without throwing while it reloads. */
export async function frameText(page: Page, selector: string): Promise<string> {
  const frame: Frame | null | undefined = await page
    .locator('#sidebar-frame')
    .elementHandle()
    .then((handle) => handle?.contentFrame());
  if (!frame) return '';
  try {
    return (await frame.locator(selector).textContent({ timeout: 500 })) ?? '';
  } catch {
    return '';
  }
}
