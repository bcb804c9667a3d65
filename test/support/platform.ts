/**
 * A platform (src/core/ports.ts) of plain objects, for unit tests of the features without the emulator:
 * properties in memory, a sheet over an array of rows, a lock that is always free (or busy), a clock the test moves.
 * A member a test did not give throws when used, so a test states everything its code reaches.
 */

import { columnNumber } from '../../src/core/a1';
import type {
  Clock,
  DocumentCache,
  HiddenSheet,
  HiddenSheetRows,
  Platform,
  Properties,
  RawAnswer,
  Transport,
} from '../../src/core/ports';
import type { CellBlock, SheetPort } from '../../src/core/sheet';

/** Properties in memory; `calls` counts every call, as the quota does. */
export class MemoryProperties implements Properties {
  readonly values = new Map<string, string>();
  calls = 0;

  getProperty(key: string): string | null {
    this.calls++;
    return this.values.get(key) ?? null;
  }
  setProperty(key: string, value: string): this {
    this.calls++;
    this.values.set(key, value);
    return this;
  }
  deleteProperty(key: string): this {
    this.calls++;
    this.values.delete(key);
    return this;
  }
  getProperties(): Record<string, string> {
    this.calls++;
    return Object.fromEntries(this.values);
  }
  getKeys(): string[] {
    this.calls++;
    return [...this.values.keys()];
  }
  setProperties(values: Record<string, string>, deleteAllOthers = false): this {
    this.calls++;
    if (deleteAllOthers) this.values.clear();
    for (const [key, value] of Object.entries(values)) this.values.set(key, value);
    return this;
  }
}

/** A document cache over `entries` (no expiry, no size limit). */
export function memoryCache(entries = new Map<string, string>()): DocumentCache {
  return {
    get: (key) => entries.get(key) ?? null,
    put: (key, value) => {
      entries.set(key, value);
    },
    remove: (key) => {
      entries.delete(key);
    },
  };
}

/** A clock the test moves; sleeping moves it. */
export function testClock(start = Date.UTC(2026, 10, 27, 9)): Clock & { at: number } {
  const clock = {
    at: start,
    now: () => clock.at,
    sleep: (ms: number) => {
      clock.at += ms;
    },
    timeText: (ms: number) => new Date(ms).toISOString().slice(11, 16),
    day: (ms: number) => new Date(ms).toISOString().slice(0, 10),
  };
  return clock;
}

/**
 * A sheet over rows of cells in memory (row 1 is `rows[0]`), growing as it is written. A cell holding a string
 * that starts with "=" is a formula: it reads as '' in values. `reads` and `writes` count calls.
 */
export class MemorySheet implements SheetPort {
  readonly id: number;
  reads = 0;
  writes = 0;
  /** The blocks formatted as plain text, in order. */
  readonly textBlocks: CellBlock[] = [];
  private readonly title: string;
  private columns: number;

  constructor(
    readonly rows: unknown[][],
    { id = 1, name = 'Sheet1', columns }: { id?: number; name?: string; columns?: number } = {},
  ) {
    this.id = id;
    this.title = name;
    this.columns = columns ?? Math.max(26, ...rows.map((row) => row.length));
  }

  name(): string {
    return this.title;
  }
  maxRows(): number {
    return Math.max(1000, this.rows.length);
  }
  maxColumns(): number {
    return this.columns;
  }
  lastRow(): number {
    for (let r = this.rows.length; r > 0; r--) if (this.rows[r - 1].some((cell) => cell !== '')) return r;
    return 0;
  }
  lastColumn(): number {
    let last = 0;
    for (const row of this.rows) {
      row.forEach((cell, index) => {
        if (cell !== '') last = Math.max(last, index + 1);
      });
    }
    return last;
  }
  private cell(row: number, column: number): unknown {
    return this.rows[row - 1]?.[column - 1] ?? '';
  }
  private block<T>(block: CellBlock, read: (cell: unknown) => T): T[][] {
    this.reads++;
    return Array.from({ length: block.rows }, (_, r) =>
      Array.from({ length: block.columns }, (_, c) => read(this.cell(block.row + r, block.column + c))),
    );
  }
  values(block: CellBlock): unknown[][] {
    return this.block(block, (cell) => (isFormula(cell) ? '' : cell));
  }
  formulas(block: CellBlock): string[][] {
    return this.block(block, (cell) => (isFormula(cell) ? cell : ''));
  }
  valuesAndFormulas(block: CellBlock): { values: unknown[][]; formulas: string[][] } {
    return { values: this.values(block), formulas: this.formulas(block) };
  }
  write(row: number, column: number, values: unknown[][]): void {
    this.writes++;
    values.forEach((line, r) => {
      line.forEach((value, c) => {
        this.put(row + r, column + c, value);
      });
    });
  }
  private put(row: number, column: number, value: unknown): void {
    while (this.rows.length < row) this.rows.push([]);
    const line = this.rows[row - 1];
    while (line.length < column) line.push('');
    line[column - 1] = value;
  }
  clear(block: CellBlock): void {
    this.write(
      block.row,
      block.column,
      Array.from({ length: block.rows }, () => Array(block.columns).fill('')),
    );
  }
  setFormula(row: number, column: number, formula: string): void {
    this.write(row, column, [[formula]]);
  }
  formatAsText(blocks: CellBlock[]): void {
    this.writes++;
    this.textBlocks.push(...blocks);
  }
  insertColumnsAfter(column: number, count: number): void {
    this.writes++;
    for (const line of this.rows) if (line.length > column) line.splice(column, 0, ...Array(count).fill(''));
    this.columns += count;
  }
  select(): void {}
}

function isFormula(cell: unknown): cell is string {
  return typeof cell === 'string' && cell.startsWith('=');
}

/** A platform whose members are the given ones; any other member throws when the code under test reaches it. */
export function testPlatform(given: Partial<Platform>): Platform {
  return new Proxy(given as Platform, {
    get(target, name) {
      if (name in target) return target[name as keyof Platform];
      if (typeof name === 'symbol' || name === 'then') return undefined;
      throw new Error(`The test's platform has no ${String(name)}: give it to testPlatform.`);
    },
  });
}

/** A document lock that is always free. */
export const freeLock: Platform['lock'] = {
  with: (work) => work(),
  withRetried: (work) => work(),
  tryWith: (work) => ({ value: work() }),
};

/** One of the add-on's hidden sheets in memory: `sheet` is null until it is made. */
export function memoryHiddenSheet(): HiddenSheet & { sheet: MemorySheet | null; rows: unknown[][] } {
  const rows: unknown[][] = [];
  const hidden = {
    sheet: null as MemorySheet | null,
    rows,
    reader: () => (a1: string) => {
      if (!hidden.sheet) return null;
      const match = /^([A-Z]*)(\d+):([A-Z]*)(\d+)$/.exec(a1);
      if (!match) throw new Error(`The test's hidden sheet reads no range ${a1}.`);
      const first = match[1] ? columnNumber(match[1]) : 1;
      const last = match[3] ? columnNumber(match[3]) : hidden.sheet.maxColumns();
      const top = Number(match[2]);
      const bottom = Math.min(Number(match[4]), hidden.sheet.maxRows());
      return hidden.sheet.values({
        row: top,
        column: first,
        rows: bottom - top + 1,
        columns: last - first + 1,
      });
    },
    find: () => hidden.sheet && rowsOf(hidden.sheet),
    findOrCreate: () => {
      hidden.sheet ??= new MemorySheet(rows);
      return rowsOf(hidden.sheet);
    },
  };
  return hidden;
}

function rowsOf(sheet: MemorySheet): HiddenSheetRows {
  return {
    lastRow: () => sheet.lastRow(),
    maxRows: () => sheet.maxRows(),
    maxColumns: () => sheet.maxColumns(),
    values: (block) => sheet.values(block),
    write: (row, column, values) => sheet.write(row, column, values),
    clear: (block) => sheet.clear(block),
    addRows: () => {},
    addColumns: (after, count) => sheet.insertColumnsAfter(after, count),
  };
}

/**
 * A service in memory: each URL's answer is `answer(url)` (a 200 finding `<name>@example.test` unless given);
 * `sent` lists every URL sent, in order; `before` sees each batch before it goes out (it may throw).
 */
export function memoryTransport(
  options: { answer?: (url: string) => RawAnswer; before?: (urls: string[]) => void; clock?: Clock } = {},
): Transport & { sent: string[] } {
  const sent: string[] = [];
  const answer =
    options.answer ??
    ((url: string) => ({
      status: 200,
      body: JSON.stringify({
        status: 'success',
        network_url: url,
        email_address: `${url.split('/in/')[1]?.replace(/\/$/, '')}@example.test`,
        email_status: 'VALID',
        account_type: 'professional',
        is_catch_all: false,
        profile: { network_url: url },
      }),
    }));
  return {
    sent,
    fetchAll: (urls) => {
      options.before?.([...urls]);
      sent.push(...urls);
      return { answers: urls.map(answer), at: options.clock?.now() ?? 0 };
    },
    checkKey: () => ({ status: 400, body: '{"message":"network_url is required"}' }),
  };
}
