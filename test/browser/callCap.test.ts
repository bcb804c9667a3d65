/**
 * The emulator's page (emulator/html/shim.ts) runs at most 10 google.script.run calls at once: "The
 * google.script.run API allows 10 concurrent calls to server functions. If you make an 11th call while 10 are still
 * running, the server function will be delayed until one of the 10 spots is freed."
 * (apps-script/guides/html/communication). A bare page in headless Chromium; its calls are answered by the test
 * through Playwright's routing (Chromium's own limit of 6 connections to one host does not apply to them).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Route } from 'playwright-core';
import { injectShim } from '../../emulator';
import { launchChromium } from '../support/browser';

let browser: Browser;
let server: http.Server | undefined;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(check()).toBe(true);
}

it('an 11th call waits until one of the 10 under way ends, then runs; the calls keep their order', async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(injectShim('<!DOCTYPE html><html><head></head><body></body></html>'));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const context = await browser.newContext();
  const arrived: number[] = [];
  const waiting: Array<{ route: Route; call: number }> = [];
  let answered = 0;
  await context.route('**/run', (route) => {
    const call = (JSON.parse(route.request().postData() ?? '{}') as { args: number[] }).args[0];
    arrived.push(call);
    waiting.push({ route, call });
  });
  const answerOne = async () => {
    const next = waiting.shift();
    if (!next) return;
    await next.route.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({ ok: true, value: next.call }),
    });
    answered++;
  };
  try {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.evaluate(() => {
      const w = window as unknown as { done: number[]; google: { script: { run: unknown } } };
      const run = w.google.script.run as {
        withSuccessHandler(f: (v: number) => void): { slow(n: number): void };
      };
      w.done = [];
      for (let i = 0; i < 12; i++) run.withSuccessHandler((v) => w.done.push(v)).slow(i);
    });
    await until(() => arrived.length >= 10);
    // A while with ten under way: neither of the last two leaves the page.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(arrived).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await answerOne();
    await until(() => arrived.length === 11);
    expect(arrived[10]).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(arrived).toHaveLength(11);
    await answerOne();
    await until(() => arrived.length === 12);
    for (let i = 0; i < 12 && waiting.length > 0; i++) await answerOne();
    expect(answered).toBe(12);
    // Every success handler ran, with its own call's answer.
    await page.waitForFunction(() => (window as unknown as { done: number[] }).done.length === 12);
    const done = await page.evaluate(() => (window as unknown as { done: number[] }).done);
    expect([...done].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  } finally {
    await context.close();
  }
});
