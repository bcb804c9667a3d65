/**
 * The picture of Refresh's question for a long column of single =FINDEMAIL cells (docs/refresh-offer.png, rewritten
 * only with UPDATE_SCREENSHOTS): the built bundle asks it in the emulator over a dragged column of 900; its title,
 * text and buttons are drawn as Sheets draws an alert (a white dialog, the title, the text, No and Yes).
 */
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { fillDown } from '../e2e/formula/helpers';
import { launchChromium } from '../support/browser';
import { startWorld, url, type World } from '../support/harness';

/** The harness's spreadsheet has 1,000 rows: a column of 900 below its header. */
const ROWS = 900;
let world: World | undefined;
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await world?.close();
  world = undefined;
});

const asHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');

test('Refresh asks, with the numbers, whether one range formula should take the place of 900 single cells', async () => {
  world = await startWorld({
    data: [['Profile URL'], ...Array.from({ length: ROWS }, (_, i) => [url(`ofr-${i}`)])],
  });
  fillDown(world, 'B', 'A', 2, ROWS + 1);
  await world.env.recalculate(world.ss.id);
  world.env.select(world.ss.id, `B2:B${ROWS + 1}`);
  world.env.ui.answers.push({ button: 'NO' });
  await world.env.run('refreshFormulas', [], world.as());
  await world.env.formulasSettled();
  const asked = world.env.ui.alerts.at(-1);
  expect(asked?.buttons).toBe('YES_NO');
  expect(asked?.prompt).toMatch(
    /^B2:B901 holds 900 single =FINDEMAIL cells, 870 of them not done\. Sheets runs at most 30 formulas at once for one person, so they need about 29 Refreshes\./,
  );
  expect(asked?.prompt).toContain('=FINDEMAIL(A2:A901) in the first cell');
  // No: the formulas stay as the person wrote them.
  expect(world.env.formulas(world.ss.id, 'B2:B3')).toEqual([['=FINDEMAIL(A2)'], ['=FINDEMAIL(A3)']]);

  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 560, height: 360 }, deviceScaleFactor: 1 });
  await page.route('**/*', (route) => route.abort());
  await page.setContent(`<!doctype html><html><body style="margin:0;background:#7f7f7f;font-family:Arial,sans-serif">
<div id="dialog" style="margin:24px;background:#fff;border-radius:8px;box-shadow:0 4px 16px rgba(0,0,0,.3);padding:24px;width:464px">
<div style="font-size:18px;color:#202124;margin-bottom:16px">${asHtml(asked?.title ?? '')}</div>
<div id="prompt" style="font-size:14px;line-height:20px;color:#3c4043">${asHtml(asked?.prompt ?? '')}</div>
<div style="text-align:right;margin-top:24px">
<button style="font-size:14px;color:#1a73e8;background:#fff;border:1px solid #dadce0;border-radius:4px;padding:8px 20px;margin-right:8px">No</button>
<button style="font-size:14px;color:#fff;background:#1a73e8;border:0;border-radius:4px;padding:9px 21px">Yes</button>
</div></div></body></html>`);
  await expect(page.locator('#prompt').textContent()).resolves.toContain('one range formula');
  const box = await page.locator('#dialog').boundingBox();
  const shot = join(
    process.env.UPDATE_SCREENSHOTS ? join(__dirname, '..', '..', 'docs') : tmpdir(),
    'refresh-offer.png',
  );
  await page.screenshot({
    path: shot,
    clip: { x: 0, y: 0, width: 560, height: Math.ceil((box?.y ?? 0) + (box?.height ?? 300) + 24) },
  });
  expect(statSync(shot).size).toBeLessThan(150 * 1024);
}, 240_000);
