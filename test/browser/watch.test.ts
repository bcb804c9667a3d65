/**
 * The Watch tab in headless Chromium, two people at once: the owner starts watching a column with a daily limit,
 * an editor pastes new rows (the owner's change trigger looks them up on the owner's key), both sidebars say who
 * pays and what was used today, and the editor stops the watch with one click.
 */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { EDITOR, OWNER, url, type World } from '../support/harness';
import type { Bridge } from './bridge';
import { sidebarPages } from './pages';

// Two pages of two people: generous on a busy machine (a bound, not a figure).
const WAIT_MS = 20_000;
jest.setTimeout(60_000 + 8 * WAIT_MS);

const pages = sidebarPages(WAIT_MS);
const { waitForText } = pages;

/** A 300 px sidebar page of `user` on its Watch tab, refusing any address but its bridge's. */
async function watchTabOf(w: World, user: string, errors: string[]): Promise<{ page: Page; bridge: Bridge }> {
  const opened = await pages.open(w, user, errors);
  await opened.page.getByRole('tab', { name: 'Watch' }).click();
  return opened;
}

test('the owner starts a watch; an editor’s paste is looked up on the owner’s key; both see who pays; the editor stops it', async () => {
  const world = await pages.startWorld({ data: [['Profile URL'], [url('bw-first-lead')]] });
  const errors: string[] = [];
  const owner = await watchTabOf(world, OWNER, errors);
  const editor = await watchTabOf(world, EDITOR, errors);
  await waitForText(owner.page.locator('#watch-status'), 'No column is watched in this spreadsheet.');
  // The editor has no key: no Start for them, and the tab says why.
  await expect(editor.page.locator('#watch-form').isHidden()).resolves.toBe(true);
  await waitForText(editor.page.locator('#watch-start-message'), /Save your API key in the Settings tab/);

  world.env.select(world.ss.id, 'A1');
  await owner.page.locator('#watch-limit').fill('25');
  await owner.page.getByRole('button', { name: 'Start watching' }).click();
  await waitForText(
    owner.page.locator('#watch-status'),
    new RegExp(
      `^Watching Sheet1!A:A for new rows — paid by ${OWNER} \\(you\\), up to 25 credits a day, 0 used today \\(\\d{1,2} [A-Z][a-z]{2}\\), not checked yet\\.$`,
    ),
  );
  await waitForText(
    owner.page.locator('#watch-start-message'),
    /1 row of the column has no result yet: it is looked up at the first change or opening/,
  );
  expect(world.env.triggers.map((t) => t.user)).toEqual([OWNER, OWNER, OWNER]);

  // The editor pastes 4 rows: the owner's change trigger looks up those and the row already there.
  const rows = Array.from({ length: 4 }, (_, i) => [url(`bw-${i}-lead`)]);
  const fired = await world.env.change(world.ss.id, 'A3:A6', rows, { user: EDITOR });
  expect(fired.installable.map((r) => [r.user, r.value])).toEqual([[OWNER, 'up to date']]);
  expect(world.sandbox.service.totalCharged()).toBe(5);
  await owner.page.locator('#watch-refresh').click();
  await waitForText(
    owner.page.locator('#watch-status'),
    /, 5 used today \(\d{1,2} [A-Z][a-z]{2}\), last checked \d\d:\d\d\.$/,
  );
  // The picture of the Watch tab in docs/ (rewritten only by `npm run screenshots`).
  const shot = join(
    process.env.UPDATE_SCREENSHOTS ? join(__dirname, '..', '..', 'docs') : tmpdir(),
    'sidebar-watch.png',
  );
  const bottom = await owner.page.evaluate(
    () => document.querySelector('.sidebar')?.getBoundingClientRect().bottom ?? 0,
  );
  await owner.page.screenshot({
    path: shot,
    fullPage: true,
    clip: { x: 0, y: 0, width: 300, height: Math.ceil(bottom) },
  });
  expect(statSync(shot).size).toBeLessThan(150 * 1024);

  await editor.page.locator('#watch-refresh').click();
  await waitForText(
    editor.page.locator('#watch-status'),
    /^Watching Sheet1!A:A for new rows — paid by owner@example.com, up to 25 credits a day, 5 used today/,
  );
  await editor.page.getByRole('button', { name: 'Stop watching' }).click();
  await waitForText(
    editor.page.locator('#watch-status'),
    'The watch of Sheet1!A:A is stopped (it was paid by owner@example.com).',
  );
  await waitForText(editor.page.locator('#watch-message'), /^Stopped by editor@example.com at \d\d:\d\d\.$/);
  await owner.page.locator('#watch-refresh').click();
  await waitForText(owner.page.locator('#watch-status'), /is stopped/);
  // The owner may start a new one: Start shows again for them.
  await expect(owner.page.locator('#watch-form').isVisible()).resolves.toBe(true);
  // No page ever received a key.
  for (const { bridge } of [owner, editor]) {
    expect(bridge.responses.some((r) => r.body.includes('owner-key-'))).toBe(false);
  }
  expect(errors).toEqual([]);
});

test('the Watch tab, left open, shows a form response’s row at its next look, without Refresh', async () => {
  const w = await pages.startWorld({ data: [['Timestamp', 'Name', 'Profile URL']] });
  w.env.select(w.ss.id, 'C1');
  await w.env.run('startWatch', [{ limit: 100 }], w.as(OWNER));
  const errors: string[] = [];
  const owner = await watchTabOf(w, OWNER, errors);
  await waitForText(owner.page.locator('#watch-status'), /, 0 used today \(\d+ \w+\), not checked yet\.$/);

  const fired = await w.env.submitForm(w.ss.id, ['11/27/2026 9:00:00', 'Jane', url('bw-form-lead')]);
  expect(fired.row).toBe(2);
  expect(w.sandbox.service.totalCharged()).toBe(1);
  // The tab's next look after the response (no click) says what the watch did; a look already on its way when the
  // response came may answer as before, so the one after it at the latest.
  const looks = () => owner.bridge.calls.filter((c) => c.fn === 'getWatchState');
  const before = looks().length;
  const shows = (index: number) => (looks()[index]?.value as { usedToday?: number })?.usedToday === 1;
  const until = Date.now() + 3 * WAIT_MS;
  while (!shows(before) && looks().length < before + 2 && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const look = looks()
    .slice(before, before + 2)
    .find((c) => (c.value as { usedToday?: number }).usedToday === 1);
  expect(look?.value).toMatchObject({ usedToday: 1, message: expect.stringMatching(/looked up C2\.$/) });
  await waitForText(
    owner.page.locator('#watch-status'),
    /, 1 used today \(\d+ \w+\), last checked \d\d:\d\d\.$/,
    2000,
  );
  await waitForText(owner.page.locator('#watch-message'), /The last check looked up C2\.$/, 2000);
  expect(errors).toEqual([]);
});
