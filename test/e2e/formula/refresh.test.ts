/**
 * Formulas that cannot write document properties send nothing and point to the bulk run; the
 * menu item "Refresh =FINDEMAIL cells" enters unfinished formulas again (Sheets has no recalculate for custom
 * functions); a column of single-cell formulas past Apps Script's 30 simultaneous executions gets done through it;
 * onOpen and onEdit move the formula buffer into the results sheet.
 */
import { propertyCalls, TOO_MANY_SIMULTANEOUS_MESSAGE } from '../../../emulator';
import {
  CLAIM_PREFIX,
  FORMULA_SPEND_PROPERTY,
  FORMULA_WRITES_PROPERTY,
  PENDING_PREFIX,
} from '../../../src/core/propertyNames';
import type { CellBlock, Selection, SpreadsheetPort } from '../../../src/core/sheet';
import { capMessage, DEFAULT_FORMULA_POLICY } from '../../../src/formula/dailyLimitPolicy';
import { PENDING_MESSAGES } from '../../../src/formula/messages';
import { refreshFormulas } from '../../../src/formula/refresh';
import { chargedTwice, drive } from '../../bulk/helpers';
import { cellError, column, emailOf, fillDown, lookups } from '../../formula/helpers';
import { startWorld, url, type World } from '../../support/harness';
import { MemoryProperties, MemorySheet, testClock, testPlatform } from '../../support/platform';

const REFRESH = 'Extensions › Profile Email Finder › Refresh =FINDEMAIL cells';
const BULK = 'Extensions › Profile Email Finder › Find e-mails for the selected column';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

/** Runs the menu item as the owner with `a1` selected, then lets Sheets evaluate the formulas it entered. */
async function refresh(w: World, a1: string): Promise<string> {
  w.env.select(w.ss.id, a1);
  const message = (await w.env.run('refreshFormulas', [], w.as())) as string;
  await w.env.formulasSettled();
  return message;
}

function claimsLeft(w: World): string[] {
  return [...w.env.documentCache(w.ss.id).dump(w.env.now()).keys()].filter((key) =>
    key.startsWith(CLAIM_PREFIX),
  );
}

describe('formulas where custom functions may not write document properties', () => {
  it('send nothing and say so, leave no claim; the bulk run completes; Refresh shows its results', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(10, 'wren-ash')],
      env: { customFunctionDocumentWrites: 'refused' },
    });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A11)']]);
    world.env.enter(world.ss.id, 'I2', [['=FINDEMAIL(A3)']]);
    const checks = await world.env.recalculate(world.ss.id);
    // Each cell tried one write at most (both may check at once), and failed safe.
    const tried = checks.results.map((r) => r.counts['Properties.setProperty'] ?? 0);
    expect(tried.every((n) => n <= 1) && tried.some((n) => n === 1)).toBe(true);
    expect(checks.results.every((r) => r.ok)).toBe(true);
    expect(lookups(world)).toHaveLength(0);
    expect(world.sandbox.service.ledger()).toHaveLength(0);
    for (const value of [...column(world, 'H2:H11'), ...column(world, 'I2:I2')]) {
      expect(value).toMatch(
        /^ERROR: Not looked up \(no credit spent\): Apps Script does not let formulas save/,
      );
      expect(value).toContain(BULK);
      expect(value).toContain(REFRESH);
    }
    expect(claimsLeft(world)).toEqual([]);
    expect(world.env.documentProperties(world.ss.id).all()[FORMULA_WRITES_PROPERTY]).toBeUndefined();

    // Evaluated again: the refusal is remembered in the document cache, no property is written again.
    const before = world.env.executions.length;
    await world.env.recalculate(world.ss.id, { cells: [{ a1: 'I2' }] });
    const again = world.env.executions.slice(before);
    expect(again.map((r) => r.counts['Properties.setProperty'] ?? 0)).toEqual([0]);
    expect(again.map((r) => r.ok)).toEqual([true]);

    world.env.select(world.ss.id, 'A1:A11');
    expect((await world.env.run('enrichSelection', [], world.as())) as { state: string }).toBeDefined();
    expect((await drive(world)).state).toBe('done');
    expect(Object.keys(world.charges())).toHaveLength(10);

    // The formulas show the bulk run's results once entered again, for free.
    world.env.select(world.ss.id, 'A1');
    const message = await refresh(world, 'A1');
    expect(message).toMatch(/^Entered 2 unfinished =FINDEMAIL formulas of this sheet again/);
    expect(column(world, 'H2:H11')).toEqual(urls(10, 'wren-ash').map(([link]) => emailOf(link)));
    expect(column(world, 'I2:I2')).toEqual([emailOf(url('wren-ash-1'))]);
    expect(world.env.formulas(world.ss.id, 'H2:I2')).toEqual([['=FINDEMAIL(A2:A11)', '=FINDEMAIL(A3)']]);
    expect(chargedTwice(world)).toEqual([]);
    expect(lookups(world)).toHaveLength(10);
  });
});

describe('Refresh =FINDEMAIL cells', () => {
  it('60 single-cell formulas at once: those past 30 show the platform error; Refresh gets all done, each profile paid once', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(60, 'kit-moss')] });
    fillDown(world, 'H', 'A', 2, 61);
    await world.env.recalculate(world.ss.id);
    const refused = column(world, 'H2:H61').filter((value) => value === '#ERROR!');
    expect(refused.length).toBeGreaterThan(0);
    const notes = new Set(
      Array.from({ length: 60 }, (_, i) => cellError(world as World, `H${i + 2}`)).filter(Boolean),
    );
    expect(notes).toEqual(new Set([TOO_MANY_SIMULTANEOUS_MESSAGE]));

    const want = urls(60, 'kit-moss').map(([link]) => emailOf(link));
    // The first refresh enters only the refused cells again.
    const first = await refresh(world, 'H2:H61');
    expect(first).toMatch(
      new RegExp(`^Entered ${refused.length} unfinished =FINDEMAIL formulas? of the selection again`),
    );
    for (let round = 0; round < 2 && column(world, 'H2:H61').some((v, i) => v !== want[i]); round++)
      await refresh(world, 'H2:H61');
    expect(column(world, 'H2:H61')).toEqual(want);
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(60);
    expect(world.env.formulas(world.ss.id, 'H2:H3')).toEqual([['=FINDEMAIL(A2)'], ['=FINDEMAIL(A3)']]);
  });

  it('enters only unfinished formulas again; none unfinished: says so and changes nothing', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(3, 'ivy-lane')] });
    fillDown(world, 'H', 'A', 2, 4);
    await world.env.recalculate(world.ss.id);
    const runs = world.env.executions.length;
    const message = await refresh(world, 'H2:H4');
    expect(message).toBe('No unfinished =FINDEMAIL cells in the selection or on this sheet.');
    expect(world.env.executions.length).toBe(runs + 1);
    expect(lookups(world)).toHaveLength(3);
  });
});

describe('the formula buffer', () => {
  it('is moved into the results sheet by onEdit (AuthMode.LIMITED), not in AuthMode.NONE', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(3, 'oak-reed')] });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A4)']]);
    await world.env.recalculate(world.ss.id);
    const buffered = () =>
      Object.keys(world?.env.documentProperties(world.ss.id).all() ?? {}).filter((k) =>
        k.startsWith(PENDING_PREFIX),
      );
    expect(buffered()).toHaveLength(3);

    await world.env.edit(world.ss.id, 'K1', [['a note']], { authMode: 'NONE' });
    expect(buffered()).toHaveLength(3);
    const edit = await world.env.edit(world.ss.id, 'K1', [['another note']]);
    expect(edit.ok).toBe(true);
    expect(buffered()).toHaveLength(0);
    // Kept in the sheet: evaluated again, the formula reads them there, for free.
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A4)']]);
    await world.env.recalculate(world.ss.id);
    expect(column(world, 'H2:H4')).toEqual(urls(3, 'oak-reed').map(([link]) => emailOf(link)));
    expect(lookups(world)).toHaveLength(3);

    // An edit with nothing buffered: one read of the property names, no write.
    const quiet = await world.env.edit(world.ss.id, 'K1', [['a third note']]);
    expect(propertyCalls(quiet.counts)).toBe(1);
    expect(quiet.counts['Properties.getKeys']).toBe(1);
    expect(quiet.counts['Lock.tryLock'] ?? 0).toBe(0);
  });

  it('is moved by onOpen when it runs with authority (LIMITED), and onOpen in AuthMode.NONE still builds the menu', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(2, 'elm-ford')] });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A3)']]);
    await world.env.recalculate(world.ss.id);
    const buffered = () =>
      Object.keys(world?.env.documentProperties(world.ss.id).all() ?? {}).filter((k) =>
        k.startsWith(PENDING_PREFIX),
      );
    expect(buffered()).toHaveLength(2);
    const none = await world.env.execute('onOpen', [], world.as(undefined, { authMode: 'NONE', event: {} }));
    expect(none.ok).toBe(true);
    expect(buffered()).toHaveLength(2);
    const limited = await world.env.execute(
      'onOpen',
      [],
      world.as(undefined, { authMode: 'LIMITED', event: {} }),
    );
    expect(limited.ok).toBe(true);
    expect(buffered()).toHaveLength(0);
    const items = (world.env.ui.menus.at(-1)?.items ?? []) as Array<{ caption?: string; fn?: string }>;
    expect(items.map((item) => item.caption)).toContain('Refresh =FINDEMAIL cells');
  });
});

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
  const selection: Selection | null = block ? { sheet, block, a1: () => '', rangeCount: () => 1 } : null;
  const spreadsheet: SpreadsheetPort = {
    id: () => 'spreadsheet-1',
    sheetById: (id) => (id === sheet.id ? sheet : undefined),
    toast: () => {},
    selection: () => selection,
    activeSheet: () => sheet,
    flush: () => void sheet.log.push('flush'),
  };
  const user = new MemoryProperties();
  const document = new MemoryProperties();
  document.values.set(FORMULA_SPEND_PROPERTY, JSON.stringify({ day: '2026-11-27', used: spent }));
  return testPlatform({
    spreadsheet: () => spreadsheet,
    keepPendingResults: () => 0,
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
    expect(message).toMatch(/^Entered 3 unfinished =FINDEMAIL formulas of the selection again/);
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
    expect(refreshFormulas(onSheet(sheet, cell(2, 5)))).toMatch(
      /^Entered 1 unfinished =FINDEMAIL formula of the selection again/,
    );
    expect(sheet.log.filter((line) => line.startsWith('enter'))).toEqual(['enter 2,5 =FINDEMAIL(A2:A4)']);
  });

  it('with no unfinished formula in the selection, refreshes the whole sheet; with none there either, writes nothing', () => {
    const sheet = sheetOfFormulas();
    expect(refreshFormulas(onSheet(sheet, cell(3, 2)))).toMatch(
      /^Entered 3 unfinished .* of this sheet again/,
    );
    expect(sheet.log.filter((line) => line.startsWith('enter'))).toHaveLength(3);

    const finished = new SheetWithResults([[url('a'), '=FINDEMAIL(A1)', '=LEN(A1)']]);
    finished.show(1, 2, 'a@example.com');
    finished.show(1, 3, '#ERROR!');
    expect(refreshFormulas(onSheet(finished))).toBe(
      'No unfinished =FINDEMAIL cells in the selection or on this sheet.',
    );
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
    const limitText = `ERROR: ${capMessage(DEFAULT_FORMULA_POLICY)}`;
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
    const message = refreshFormulas(onSheet(reached, block, DEFAULT_FORMULA_POLICY.dailyCap));
    expect(message).toMatch(/^Entered 1 unfinished =FINDEMAIL formula of the selection again/);
    expect(message).toContain('3 cells of the selection wait for the daily limit of =FINDEMAIL');
    expect(message).toContain('Settings tab');
    expect(reached.log.filter((line) => line.startsWith('enter'))).toEqual(['enter 1,2 =FINDEMAIL(A1)']);
    // A new day (or a raised limit): they are entered again.
    const newDay = sheetAt();
    expect(refreshFormulas(onSheet(newDay, block, 0))).toMatch(/^Entered 4 unfinished/);
  });
});
