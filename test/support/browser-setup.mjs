// Jest globalSetup of the browser tests' project (jest.config.cjs): finds Chrome/Chromium once, before any test
// starts, and hands its path to the test workers through CHROME_PATH. Without one the whole run stops here, with
// one message saying how to install one.
import { findBrowser } from './find-browser.mjs';

export default function findBrowserForTests() {
  let browser;
  try {
    browser = findBrowser();
  } catch (error) {
    // Only the message: a stack trace into this file would not help whoever has no browser installed.
    const stop = new Error(`\n\n${error.message}\n`);
    stop.stack = stop.message;
    throw stop;
  }
  process.env.CHROME_PATH = browser.path;
}
