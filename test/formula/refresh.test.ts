/**
 * The menu item "Refresh =FINDEMAIL cells" over a sheet port: it enters unfinished formulas again (Sheets has no
 * recalculate for custom functions), says what it did, offers one range formula for a column of single cells past
 * Apps Script's 30 simultaneous executions, and leaves what the daily limit refused. The same menu item in the
 * emulator: test/e2e/formula/refresh.test.ts.
 */
import { a1Of } from '../../src/core/a1';
import { FORMULA_SPEND_PROPERTY } from '../../src/core/propertyNames';
import type { CellBlock, Selection, SpreadsheetPort } from '../../src/core/sheet';
import { capMessage, DEFAULT_FORMULA_CAP_SETTING } from '../../src/formula/dailyLimit';
import { PENDING_MESSAGES } from '../../src/formula/messages';
import { refreshFormulas } from '../../src/formula/refresh';
import {
  freeLock,
  MemoryProperties,
  MemorySheet,
  memoryHiddenSheet,
  testClock,
  testPlatform,
} from '../support/platform';

/** A profile URL as a person pastes it. */
function url(slug: string): string {
  return `https://www.network.com/in/${slug}`;
}

/**
 * A sheet whose formula cells show a result (MemorySheet's show ''), and a log of the clears, formulas and flushes
 * in their order.
 */
class SheetWithResults extends MemorySheet {
  readonly shown = new Map<string, unknown>();
  readonly log: string[] = [];

  show(row: number, column: number, value: unknown): void {
    this.shown.set(`${row},${column}`, value);
  }
  values(block: CellBlock): unknown[][] {
    return super.values(block).map((line, r) =>
      line.map((value, c) => {
        const key = `${block.row + r},${block.column + c}`;
        return this.shown.has(key) ? this.shown.get(key) : value;
      }),
    );
  }
  clear(block: CellBlock): void {
    this.log.push(`clear ${block.row},${block.column} ${block.rows}x${block.columns}`);
    super.clear(block);
  }
  setFormula(row: number, column: number, formula: string): void {
    this.log.push(`enter ${row},${column} ${formula}`);
    super.setFormula(row, column, formula);
  }
}

/**
 * A platform over one sheet, with `block` selected (or nothing selected); `spent`, what formulas spent today under
 * the default daily limit.
 */
function onSheet(sheet: SheetWithResults, block?: CellBlock, spent = 0, answer = false) {
  const a1 = () => (block ? a1Of(block) : '');
  const selection: Selection | null = block ? { sheet, block, a1, rangeCount: () => 1 } : null;
  const spreadsheet: SpreadsheetPort = {
    id: () => 'spreadsheet-1',
    sheetById: (id) => (id === sheet.id ? sheet : undefined),
    sheetByName: (name) => (name === sheet.name() ? sheet : undefined),
    selection: () => selection,
    activeSheet: () => sheet,
    flush: () => void sheet.log.push('flush'),
  };
  const user = new MemoryProperties();
  const document = new MemoryProperties();
  document.values.set(FORMULA_SPEND_PROPERTY, JSON.stringify({ day: '2026-11-27', used: spent }));
  return testPlatform({
    spreadsheet: () => spreadsheet,
    lock: freeLock,
    resultsSheet: memoryHiddenSheet(),
    userProperties: () => user,
    documentProperties: () => document,
    clock: testClock(Date.UTC(2026, 10, 27, 9)),
    ui: {
      showSidebar: () => undefined,
      showAlert: () => undefined,
      confirm: (message: string) => {
        sheet.log.push(`asked: ${message}`);
        return answer;
      },
    },
  });
}

const cell = (row: number, column: number): CellBlock => ({ row, column, rows: 1, columns: 1 });
const NOT_IN_TIME = `ERROR: ${PENDING_MESSAGES.notInTime}`;

describe('Refresh =FINDEMAIL cells over a sheet port', () => {
  /** Column A the URLs; B single-cell formulas; C the person's own formulas; E a range formula of 3 rows. */
  function sheetOfFormulas(): SheetWithResults {
    const sheet = new SheetWithResults([
      ['Profile', 'Email', 'Length', '', 'Range'],
      [url('a'), '=FINDEMAIL(A2)', '=LEN(A2)', '', '=FINDEMAIL(A2:A4)'],
      [url('b'), '=FINDEMAIL(A3)', '=FINDEMAIL_COUNT(A3)', '', 'b@example.com'],
      [url('c'), '=findemail( A4 )', '=IFERROR(1/0)', '', NOT_IN_TIME],
    ]);
    sheet.show(2, 2, NOT_IN_TIME);
    sheet.show(3, 2, 'b@example.com');
    sheet.show(4, 2, '#ERROR!');
    sheet.show(2, 3, '#ERROR!');
    sheet.show(3, 3, PENDING_MESSAGES.otherCell);
    sheet.show(4, 3, '#ERROR!');
    sheet.show(2, 5, 'a@example.com');
    return sheet;
  }

  it("enters only the unfinished =FINDEMAIL formulas again (cleared, flushed, entered, flushed); the person's other formulas stay", () => {
    const sheet = sheetOfFormulas();
    const message = refreshFormulas(onSheet(sheet, { row: 2, column: 2, rows: 3, columns: 4 }));
    expect(message).toMatch(/^Entered 3 unfinished =FINDEMAIL formulas of the selected range B2:E4 again/);
    // E2's result spills into E3:E4; E4 is unfinished, so the range formula runs again (its anchor only).
    expect(sheet.log).toEqual([
      'clear 2,2 1x1',
      'clear 2,5 1x1',
      'clear 4,2 1x1',
      'flush',
      'enter 2,2 =FINDEMAIL(A2)',
      'enter 2,5 =FINDEMAIL(A2:A4)',
      'enter 4,2 =findemail( A4 )',
      'flush',
    ]);
    expect(sheet.formulas({ row: 2, column: 2, rows: 3, columns: 4 })).toEqual([
      ['=FINDEMAIL(A2)', '=LEN(A2)', '', '=FINDEMAIL(A2:A4)'],
      ['=FINDEMAIL(A3)', '=FINDEMAIL_COUNT(A3)', '', ''],
      ['=findemail( A4 )', '=IFERROR(1/0)', '', ''],
    ]);
  });

  it("reads a range formula's result past the selection", () => {
    const sheet = sheetOfFormulas();
    expect(refreshFormulas(onSheet(sheet, { row: 2, column: 5, rows: 2, columns: 1 }))).toMatch(
      /^Entered 1 unfinished =FINDEMAIL formula of the selected range E2:E3 again/,
    );
    expect(sheet.log.filter((line) => line.startsWith('enter'))).toEqual(['enter 2,5 =FINDEMAIL(A2:A4)']);
  });

  it('one cell selected (an unfinished one too) is not a range the person chose: the whole sheet is refreshed', () => {
    const sheet = sheetOfFormulas();
    expect(refreshFormulas(onSheet(sheet, cell(4, 2)))).toMatch(
      /^Entered 3 unfinished =FINDEMAIL formulas of the sheet Sheet1 again/,
    );
    expect(sheet.log.filter((line) => line.startsWith('enter'))).toHaveLength(3);
  });

  it('with no unfinished formula in the selected range, refreshes the whole sheet; with none there either, writes nothing', () => {
    const sheet = sheetOfFormulas();
    expect(refreshFormulas(onSheet(sheet, { row: 3, column: 2, rows: 1, columns: 2 }))).toMatch(
      /^Entered 3 unfinished .* of the sheet Sheet1 again/,
    );
    expect(sheet.log.filter((line) => line.startsWith('enter'))).toHaveLength(3);

    const finished = new SheetWithResults([[url('a'), '=FINDEMAIL(A1)', '=LEN(A1)']]);
    finished.show(1, 2, 'a@example.com');
    finished.show(1, 3, '#ERROR!');
    expect(refreshFormulas(onSheet(finished))).toBe('No unfinished =FINDEMAIL cells on the sheet Sheet1.');
    expect(finished.log).toEqual([]);
    expect(finished.writes).toBe(0);
  });

  it('past 30 formulas, says that Sheets runs 30 at once and a range formula does better', () => {
    const rows = Array.from({ length: 31 }, (_, i) => [url(`p${i}`), `=FINDEMAIL(A${i + 1})`]);
    const sheet = new SheetWithResults(rows);
    rows.forEach((_, i) => {
      sheet.show(i + 1, 2, i % 2 ? '#ERROR!' : NOT_IN_TIME);
    });
    const message = refreshFormulas(onSheet(sheet, { row: 1, column: 2, rows: 31, columns: 1 }));
    expect(message).toMatch(/^Entered 31 unfinished/);
    expect(message).toContain('at most 30 formulas at once');
    expect(sheet.log.filter((line) => line === 'flush')).toHaveLength(2);
    // It asked first whether one range formula should take their place; the answer was No.
    expect(sheet.log[0]).toMatch(/^asked: B1:B31 holds 31 single =FINDEMAIL cells, 31 of them not done/);
    expect(sheet.log[0]).toContain('=FINDEMAIL(A1:A31) in the first cell');
  });

  it('past 30, a column of single cells becomes one range formula when the person says Yes; the inputs stay', () => {
    const rows = Array.from({ length: 40 }, (_, i) => [url(`r${i}`), `=FINDEMAIL(A${i + 2})`]);
    const sheet = new SheetWithResults([['Profile', 'Email'], ...rows]);
    rows.forEach((_, i) => {
      sheet.show(i + 2, 2, i < 5 ? `r${i}@example.com` : '#ERROR!');
    });
    const message = refreshFormulas(onSheet(sheet, undefined, 0, true));
    expect(message).toMatch(
      /^Replaced the 40 single =FINDEMAIL cells of B2:B41 with one range formula, =FINDEMAIL\(A2:A41\)/,
    );
    expect(message).toContain('Extensions › Profile Email Finder › Refresh =FINDEMAIL cells');
    expect(sheet.formulas({ row: 1, column: 1, rows: 41, columns: 2 })).toEqual([
      ['', ''],
      ['', '=FINDEMAIL(A2:A41)'],
      ...rows.slice(1).map(() => ['', '']),
    ]);
    expect(sheet.values({ row: 2, column: 1, rows: 40, columns: 1 })).toEqual(rows.map(([link]) => [link]));
    expect(sheet.log.slice(1)).toEqual(['clear 2,2 40x1', 'enter 2,2 =FINDEMAIL(A2:A41)', 'flush']);
  });

  it('leaves the cells the daily limit refused while it is still reached, and says how many; enters them once it is not', () => {
    const limitText = `ERROR: ${capMessage(DEFAULT_FORMULA_CAP_SETTING)}`;
    const rows = Array.from({ length: 4 }, (_, i) => [url(`q${i}`), `=FINDEMAIL(A${i + 1})`]);
    const sheetAt = () => {
      const sheet = new SheetWithResults(rows);
      rows.forEach((_, i) => {
        sheet.show(i + 1, 2, i === 0 ? NOT_IN_TIME : limitText);
      });
      return sheet;
    };
    const reached = sheetAt();
    const block = { row: 1, column: 2, rows: 4, columns: 1 };
    const message = refreshFormulas(onSheet(reached, block, DEFAULT_FORMULA_CAP_SETTING.dailyCap));
    expect(message).toMatch(/^Entered 1 unfinished =FINDEMAIL formula of the selected range B1:B4 again/);
    expect(message).toContain('3 cells of the selected range B1:B4 wait for the daily limit of =FINDEMAIL');
    expect(message).toContain('Settings tab');
    expect(reached.log.filter((line) => line.startsWith('enter'))).toEqual(['enter 1,2 =FINDEMAIL(A1)']);
    // A new day (or a raised limit): they are entered again.
    const newDay = sheetAt();
    expect(refreshFormulas(onSheet(newDay, block, 0))).toMatch(/^Entered 4 unfinished/);
  });
});
