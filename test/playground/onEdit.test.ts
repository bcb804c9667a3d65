/**
 * The playground runs the add-on's simple onEdit as Sheets does, after a person's typing: a URL typed over another
 * profile's clears the old result beside it, and a look-alike table the person types elsewhere stays as typed.
 */
import { SAMPLE_URLS } from '../../playground/sample';
import {
  ACTION_MS,
  cell,
  expectedRow,
  frameText,
  openPlayground,
  profile,
  runFromMenu,
  typeInCell,
  useBrowser,
  waitFor,
} from './helpers';

jest.setTimeout(60_000 + 8 * ACTION_MS);

describe('the playground’s onEdit', () => {
  const opened = useBrowser();

  test('editing a URL clears the old result beside it; the person’s own look-alike cells stay', async () => {
    const { pg, session } = await openPlayground(opened, { latencyMs: 0 });
    const { page } = session;
    await cell(page, 2, 1).click();
    await cell(page, 22, 1).click({ modifiers: ['Shift'] });
    await runFromMenu(page, 'Find e-mails for the selected column');
    await waitFor(
      () => frameText(page, '#run-state'),
      (state) => state === 'Done',
      30_000,
      'the run to finish',
    );
    const [email] = expectedRow(SAMPLE_URLS[0]);
    await waitFor(
      () => cell(page, 2, 2).textContent(),
      (text) => text === email,
      ACTION_MS,
      'the first result',
    );

    // A look-alike table of the person's, right of the add-on's columns.
    await typeInCell(page, 2, 8, 'ann@acme.test');
    await typeInCell(page, 2, 9, 'VALID');
    await typeInCell(page, 2, 7, 'Ann Lee');

    await typeInCell(page, 2, 1, profile('someone-else'));
    await waitFor(
      () => cell(page, 2, 2).textContent(),
      (text) => text === '',
      ACTION_MS,
      'the old result cleared',
    );
    const { env, spreadsheetId } = pg.workbook;
    expect(env.values(spreadsheetId, 'B2:E2')).toEqual([['', '', '', '']]);
    expect(env.values(spreadsheetId, 'G2:I2')).toEqual([['Ann Lee', 'ann@acme.test', 'VALID']]);
    // The other rows keep their results.
    expect(env.values(spreadsheetId, 'B3')[0][0]).toBe(expectedRow(SAMPLE_URLS[1])[0]);
  });
});
