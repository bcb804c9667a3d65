/**
 * What every execution of an environment shares: the clock, the spreadsheets (and how a person edits them), the
 * property stores, the caches and the locks.
 */
import { rangeName } from '../model/a1';
import { CacheStore } from '../model/cache';
import { mapBox, writeValues } from '../model/cells';
import { LockManager } from '../model/locks';
import { PropertyStore } from '../model/properties';
import {
  type Cell,
  type CellValue,
  type RangeBox,
  type SheetModel,
  SpreadsheetModel,
  type SpreadsheetSnapshot,
} from '../model/spreadsheet';
import { displayValue } from '../model/values';

export class SharedState {
  readonly scriptProperties = new PropertyStore();
  readonly scriptCache: CacheStore;
  readonly locks = new LockManager();
  private readonly spreadsheets = new Map<string, SpreadsheetModel>();
  private readonly documentStores = new Map<string, PropertyStore>();
  private readonly userStores = new Map<string, PropertyStore>();
  private readonly documentCaches = new Map<string, CacheStore>();
  private readonly userCaches = new Map<string, CacheStore>();
  private nextSpreadsheet = 1;
  private clockOffset = 0;

  /** `evict`: the best-effort cache mode (EnvironmentOptions.cacheEviction), shared by every cache. */
  constructor(
    readonly timeZone: string,
    private readonly evict?: () => boolean,
  ) {
    this.scriptCache = new CacheStore(evict);
  }

  /** Entries every cache dropped early in the best-effort mode. */
  get cacheEvictions(): number {
    let total = this.scriptCache.evictions;
    for (const cache of [...this.documentCaches.values(), ...this.userCaches.values()])
      total += cache.evictions;
    return total;
  }

  now(): number {
    return Date.now() + this.clockOffset;
  }

  /** Moves the environment's clock (Date in the bundle, cache expiry) forward. */
  advanceClock(ms: number): void {
    this.clockOffset += ms;
  }

  documentProperties(spreadsheetId: string): PropertyStore {
    return getOrCreate(this.documentStores, spreadsheetId, () => new PropertyStore());
  }

  userProperties(user: string): PropertyStore {
    return getOrCreate(this.userStores, user, () => new PropertyStore());
  }

  documentCache(spreadsheetId: string): CacheStore {
    return getOrCreate(this.documentCaches, spreadsheetId, () => new CacheStore(this.evict));
  }

  userCache(user: string): CacheStore {
    return getOrCreate(this.userCaches, user, () => new CacheStore(this.evict));
  }

  // ------------------------------------------------------------------ spreadsheets, as a person edits them

  createSpreadsheet(
    options: {
      id?: string;
      name?: string;
      owner?: string;
      sheetName?: string;
      rows?: number;
      cols?: number;
      data?: unknown[][];
    } = {},
  ): SpreadsheetModel {
    const id = options.id ?? `spreadsheet-${this.nextSpreadsheet++}`;
    const model = new SpreadsheetModel(
      id,
      options.name ?? 'Leads',
      options.owner ?? 'owner@example.com',
      this.timeZone,
    );
    const sheet = model.addSheet(options.sheetName ?? 'Sheet1', options.rows, options.cols);
    this.spreadsheets.set(id, model);
    if (options.data?.length) {
      const width = Math.max(...options.data.map((row) => row.length));
      const rows = options.data.map((row) => [...row, ...new Array(width - row.length).fill('')]);
      this.enter(id, rangeName(1, 1, rows.length, width), rows, sheet.name);
    }
    return model;
  }

  /** A spreadsheet saved with SpreadsheetModel.snapshot, as it was (sheet ids, hidden sheets, selection). */
  restoreSpreadsheet(snapshot: SpreadsheetSnapshot): SpreadsheetModel {
    if (this.spreadsheets.has(snapshot.id)) throw new Error(`Spreadsheet ${snapshot.id} exists already`);
    const model = SpreadsheetModel.fromSnapshot(snapshot, this.timeZone);
    this.spreadsheets.set(model.id, model);
    return model;
  }

  spreadsheet(id: string): SpreadsheetModel {
    const model = this.spreadsheets.get(id);
    if (!model) throw new Error(`No spreadsheet ${id}`);
    return model;
  }

  private locate(
    spreadsheetId: string,
    a1: string,
    sheetName?: string,
  ): { sheet: SheetModel; box: RangeBox } {
    const ss = this.spreadsheet(spreadsheetId);
    const sheet = sheetName ? ss.sheetByName(sheetName) : undefined;
    return ss.resolve(a1, sheet ?? ss.activeSheet());
  }

  /** Types values into cells as a person would (strings parsed as entered; `=` starts a formula). */
  enter(spreadsheetId: string, a1: string, values: unknown[][], sheetName?: string): void {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    writeValues(sheet, box, values, 'setValues');
  }

  /** Sets the selection (the active range) of a spreadsheet, as a click or a drag does. */
  select(spreadsheetId: string, a1: string, sheetName?: string): void {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    const ss = this.spreadsheet(spreadsheetId);
    ss.activeSheetId = sheet.id;
    ss.activeRange = { sheetId: sheet.id, ...box };
    ss.activeRanges = undefined;
  }

  /** Selects several ranges of one sheet, as Ctrl-click does: the last one is the active range. */
  selectRanges(spreadsheetId: string, a1s: string[], sheetName?: string): void {
    if (a1s.length === 0) throw new Error('selectRanges needs at least one range');
    const ranges = a1s.map((a1) => {
      const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
      return { sheetId: sheet.id, ...box };
    });
    const ss = this.spreadsheet(spreadsheetId);
    ss.activeSheetId = ranges[ranges.length - 1].sheetId;
    ss.activeRange = ranges[ranges.length - 1];
    ss.activeRanges = ranges;
  }

  values(spreadsheetId: string, a1: string, sheetName?: string): CellValue[][] {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return mapBox(box, (r, c) => sheet.get(r, c)?.value ?? '');
  }

  displayValues(spreadsheetId: string, a1: string, sheetName?: string): string[][] {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return mapBox(box, (r, c) => displayValue(sheet.get(r, c), this.timeZone));
  }

  formulas(spreadsheetId: string, a1: string, sheetName?: string): string[][] {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return mapBox(box, (r, c) => sheet.get(r, c)?.formula ?? '');
  }

  cell(spreadsheetId: string, a1: string, sheetName?: string): Cell | undefined {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return sheet.get(box.row, box.col);
  }

  hasSpreadsheet(id: string): boolean {
    return this.spreadsheets.has(id);
  }
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
