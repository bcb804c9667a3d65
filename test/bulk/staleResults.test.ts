import { saveJob } from '../../src/bulk/jobStore';
import { clearStaleResults } from '../../src/bulk/staleResults';
import type { ScriptConfig } from '../../src/core/config';
import type { EditedCells } from '../../src/core/sheet';
import { parseNetworkHosts } from '../../src/core/url';
import type { Platform } from '../../src/platform/platform';
import { testJob } from '../support/job';
import { MemoryProperties, MemorySheet, testPlatform } from '../support/platform';

const HOSTS = parseNetworkHosts('network.com');
const A = 'https://network.com/in/a';
const B = 'https://network.com/in/b';

/** A platform whose onEdit reports `edit` (row, column, rows, columns of the edited block) on `sheet`. */
function platformFor(sheet: MemorySheet, block: EditedCells['block'] | null, oldValue?: unknown) {
  const properties = new MemoryProperties();
  const platform: Platform = testPlatform({
    editedCells: () => (block ? { sheet, block, ...(oldValue === undefined ? {} : { oldValue }) } : null),
    config: () => ({ networkHosts: HOSTS }) as ScriptConfig,
    documentProperties: () => properties,
  });
  return { platform, properties };
}

const one = (row: number, column = 1) => ({ row, column, rows: 1, columns: 1 });

describe('clearStaleResults', () => {
  it("clears the add-on's result beside a URL edited to another profile", () => {
    const sheet = new MemorySheet([[B, 'a@acme.test', 'VALID', true, 'n', 'mine']]);
    const { platform } = platformFor(sheet, one(1), A);
    expect(clearStaleResults(platform, {})).toBe(1);
    expect(sheet.rows[0]).toEqual([B, '', '', '', '', 'mine']);
  });

  it('keeps the result when the new URL is another spelling of the same profile', () => {
    const sheet = new MemorySheet([['https://www.network.com/in/A/', 'a@acme.test', 'VALID', true, '']]);
    const { platform } = platformFor(sheet, one(1), A);
    expect(clearStaleResults(platform, {})).toBe(0);
    expect(sheet.rows[0][1]).toBe('a@acme.test');
  });

  it("never clears cells that are not the add-on's output", () => {
    const sheet = new MemorySheet([[B, 'my note', 'YES', 'x', 'y']]);
    const { platform } = platformFor(sheet, one(1), A);
    expect(clearStaleResults(platform, {})).toBe(0);
    expect(sheet.rows[0]).toEqual([B, 'my note', 'YES', 'x', 'y']);
    expect(sheet.writes).toBe(0);
  });

  it("clears only the rows of a pasted block that hold the add-on's results, in adjacent runs", () => {
    const sheet = new MemorySheet([
      [A, 'a@acme.test', 'VALID', false, ''],
      [B, '', 'NOT_FOUND', '', ''],
      [A, 'mine', '', '', ''],
      [B, '', 'ERROR', '', 'timeout'],
    ]);
    const { platform } = platformFor(sheet, { row: 1, column: 1, rows: 4, columns: 1 });
    expect(clearStaleResults(platform, {})).toBe(3);
    expect(sheet.rows.map((row) => row.slice(1).join('|'))).toEqual(['|||', '|||', 'mine|||', '|||']);
    expect(sheet.writes).toBe(2);
  });

  it("takes the last edited column as the URL column (the columns edited with it are the person's)", () => {
    const sheet = new MemorySheet([['Ann', B, 'a@acme.test', 'VALID', false, '']]);
    const { platform } = platformFor(sheet, { row: 1, column: 1, rows: 1, columns: 2 });
    expect(clearStaleResults(platform, {})).toBe(1);
    expect(sheet.rows[0]).toEqual(['Ann', B, '', '', '', '']);
  });

  it('clears Account type and Name too when the last run on this column wrote them', () => {
    const sheet = new MemorySheet([[B, 'a@acme.test', 'VALID', false, '', 'professional', 'Ann', 'mine']]);
    const { platform } = platformFor(sheet, one(1), A);
    saveJob(
      platform,
      testJob('done', { sheetId: sheet.id, urlColumn: 1, outputColumn: 2, extraFields: true }),
    );
    expect(clearStaleResults(platform, {})).toBe(1);
    expect(sheet.rows[0]).toEqual([B, '', '', '', '', '', '', 'mine']);
  });

  it('leaves the extra columns when the last run wrote them elsewhere', () => {
    const sheet = new MemorySheet([[B, 'a@acme.test', 'VALID', false, '', 'their data', 'x']]);
    const { platform } = platformFor(sheet, one(1), A);
    saveJob(
      platform,
      testJob('done', { sheetId: sheet.id, urlColumn: 3, outputColumn: 4, extraFields: true }),
    );
    clearStaleResults(platform, {});
    expect(sheet.rows[0].slice(5)).toEqual(['their data', 'x']);
  });

  it("does nothing without edited cells (AuthMode.NONE), at the sheet's right edge, or for a huge paste", () => {
    const sheet = new MemorySheet([[B, 'a@acme.test', 'VALID', false, '']], { columns: 5 });
    expect(clearStaleResults(platformFor(sheet, null).platform, {})).toBe(0);
    expect(clearStaleResults(platformFor(sheet, one(1, 2)).platform, {})).toBe(0);
    expect(
      clearStaleResults(platformFor(sheet, { row: 1, column: 1, rows: 5001, columns: 1 }).platform, {}),
    ).toBe(0);
    expect(sheet.writes).toBe(0);
  });
});
