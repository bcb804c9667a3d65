/**
 * Sidebar pages of several people at once in headless Chromium, each over its own bridge to the emulator: one
 * browser for the file, every page's context and bridge closed after each test, then the test's world.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { startWorld, type World, type WorldOptions } from '../support/harness';
import { type Bridge, type ServerOverride, type SidebarView, startBridge } from './bridge';

export interface SidebarPages {
  /**
   * A 300 px sidebar page of `user` opened on `view`, refusing any address but its bridge's; page errors go into
   * `errors`. `overrides`: server functions the bridge answers itself (./bridge.ts); `beforeOpen` runs on the
   * page before it loads (e.g. Playwright's clock installed).
   */
  open(
    w: World,
    user: string,
    errors: string[],
    view?: SidebarView,
    overrides?: Record<string, ServerOverride>,
    beforeOpen?: (page: Page) => Promise<void>,
  ): Promise<{ page: Page; bridge: Bridge }>;
  /** Waits (a bound, not a figure) until the locator's text is `expected` or matches it. */
  waitForText(locator: Locator, expected: string | RegExp, timeoutMs?: number): Promise<void>;
  /** The test's world (../support/harness.ts), closed after each test once its pages and bridges are. */
  startWorld(options?: WorldOptions): Promise<World>;
}

/** Registers the file's hooks. */
export function sidebarPages(waitMs: number): SidebarPages {
  let browser: Browser;
  let world: World | undefined;
  const bridges: Bridge[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(async () => {
    await Promise.allSettled(contexts.splice(0).map((context) => context.close()));
    await Promise.allSettled(bridges.splice(0).map((bridge) => bridge.close()));
    await world?.close();
    world = undefined;
  });

  return {
    async startWorld(options) {
      world = await startWorld(options);
      return world;
    },
    async open(w, user, errors, view = 'settings', overrides = {}, beforeOpen) {
      const bridge = await startBridge({ env: w.env, user, spreadsheetId: w.ss.id, overrides });
      bridges.push(bridge);
      const context = await browser.newContext({
        viewport: { width: 300, height: 760 },
        deviceScaleFactor: 1,
      });
      contexts.push(context);
      context.setDefaultTimeout(waitMs);
      await context.route('**/*', (route) =>
        route.request().url().startsWith(`${bridge.origin}/`) ? route.continue() : route.abort(),
      );
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(error.message));
      await beforeOpen?.(page);
      await page.goto(bridge.url(view));
      await page.locator('#loading').waitFor({ state: 'hidden' });
      return { page, bridge };
    },
    async waitForText(locator, expected, timeoutMs = waitMs) {
      const until = Date.now() + timeoutMs;
      let last: string | null = null;
      for (let round = 0; round < timeoutMs / 25 && Date.now() < until; round++) {
        last = await locator.textContent();
        if (typeof expected === 'string' ? last === expected : expected.test(last ?? '')) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`Expected the text ${String(expected)}, last seen ${JSON.stringify(last)}`);
    },
  };
}
