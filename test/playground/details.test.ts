import { SAMPLE_SHEET_NAME, SAMPLE_URLS } from '../../playground/sample';
import { EXPORT_HEADER } from '../../src/credits/exportRows';
import {
  ACTION_MS,
  cell,
  chooseMenu,
  expectedRow,
  frameText,
  openPage,
  tempStateDir,
  testPlayground,
  typeInCell,
  useBrowser,
  waitFor,
} from './helpers';

// Starting the playground and the page (≈ 30 s at most), then about fifteen bounded waits of ACTION_MS.
jest.setTimeout(60_000 + 16 * ACTION_MS);

describe('the playground’s details', () => {
  const opened = useBrowser();

  test('the restored key in Settings, "1 request", the ledger’s whole URL, a refused edit of the exported log said plainly', async () => {
    opened.stateDir = tempStateDir();
    opened.playground = await testPlayground(opened.stateDir, { credits: 500, latencyMs: 0 });
    opened.session = await openPage(opened.browser, opened.playground);
    const { page, sidebar } = opened.session;
    await expect(page.locator('#requests').textContent()).resolves.toBe('0 requests');

    // Settings shows the demo key masked; another key saved there shows as another masked key.
    await chooseMenu(page, 'Settings & API key');
    const masked = () => frameText(page, '#masked-key');
    const demoMasked = await waitFor(masked, (text) => text !== '', ACTION_MS, 'the saved key');
    await sidebar.locator('#api-key').fill('another-key-0000001234');
    await sidebar.locator('#save-key').click();
    const otherMasked = await waitFor(
      masked,
      (text) => text !== '' && text !== demoMasked,
      ACTION_MS,
      'the other key saved',
    );
    expect(otherMasked).not.toContain('another');
    // "Restore as the user's key" in the panel: the sidebar shows the demo key's masked form again.
    await page.locator('#key-restore').click();
    await waitFor(masked, (text) => text === demoMasked, ACTION_MS, 'the restored key in Settings');

    // One lookup: the panel says "1 request", and its ledger row shows the profile URL whole.
    await typeInCell(page, 2, 7, '=FINDEMAIL(A2)');
    await waitFor(
      () => cell(page, 2, 7).textContent(),
      (text) => text === expectedRow(SAMPLE_URLS[0])[0],
      ACTION_MS,
      'the formula’s answer',
    );
    await waitFor(
      () => page.locator('#requests').textContent(),
      (text) => text === '1 request',
      ACTION_MS,
      '"1 request"',
    );
    await expect(page.locator('#charged').textContent()).resolves.toBe('1');
    const url = page.locator('#ledger-body td.url').first();
    const sent = (await url.getAttribute('title')) ?? '';
    expect(sent.startsWith(SAMPLE_URLS[0])).toBe(true);
    await expect(url.textContent()).resolves.toBe(sent.replace(/^https:\/\/www\./, ''));
    const fits = await url.evaluate((td) => td.scrollWidth <= td.clientWidth);
    expect(fits).toBe(true);

    // The credits log exported: its tab is read-only. Typing there is refused at once with a plain message (no
    // editor opens, nothing is sent), and the cell keeps its value.
    await sidebar.locator('#tab-credits').click();
    await sidebar.locator('#credits-export').click();
    await waitFor(
      () => frameText(page, '#credits-export-status'),
      (text) => text.startsWith('Exported '),
      ACTION_MS,
      'the export',
    );
    const logTab = page.locator('#sheet-tab-list .sheet-tab', { hasText: 'Credits log' });
    await logTab.waitFor({ state: 'visible', timeout: ACTION_MS });
    await logTab.click();
    await waitFor(
      () => cell(page, 1, 1).textContent(),
      (text) => text === EXPORT_HEADER[0],
      ACTION_MS,
      'the log',
    );
    await typeInCell(page, 1, 1, 'my own text');
    const refusal = await waitFor(
      () => page.locator('#notice-text').textContent(),
      (text) => (text ?? '').includes('Open its tab below to edit it'),
      ACTION_MS,
      'the refusal',
    );
    expect(refusal).toBe(
      `"Credits log" is shown read-only: the playground edits only the sheet "${SAMPLE_SHEET_NAME}". Open its tab below to edit it.`,
    );
    await expect(page.locator('.cell-editor').isHidden()).resolves.toBe(true);
    await waitFor(
      () => cell(page, 1, 1).textContent(),
      (text) => text === EXPORT_HEADER[0],
      ACTION_MS,
      'the stored value shown again',
    );
    expect(opened.session.refused).toEqual([]);
  });
});
