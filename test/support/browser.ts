/**
 * The one way the tests start a browser: the Chrome/Chromium that test/support/find-browser.mjs found (the browser
 * project's globalSetup puts it in CHROME_PATH), headless, driven by playwright-core.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

/**
 * CHROME_PATH as the globalSetup left it; a test file run outside the browser project (see jest.config.cjs) asks the
 * finder itself, in a child process because the finder is an ES module (chrome-launcher is ESM only).
 */
export function browserExecutable(): string {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  const finder = spawnSync(process.execPath, [join(__dirname, 'find-browser.mjs')], { encoding: 'utf8' });
  if (finder.status !== 0) throw new Error(finder.stderr.trim() || 'test/support/find-browser.mjs failed');
  return finder.stdout.trim();
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: browserExecutable(), args: CHROMIUM_ARGS });
}
