/** Sheet, Spreadsheet, Selection and SpreadsheetApp (answered by services/spreadsheet.ts and services/sheet.ts). */
import type { RangeD, SheetD, SpreadsheetD } from '../protocol';
import { call, count, delegate, makeUser } from './core';
import { Range, RangeList } from './range';
import { Ui } from './ui';

export class Sheet {
  constructor(readonly _d: SheetD) {}
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  _call(method: string, ...args: unknown[]): any {
    return call(`Sheet.${method}`, [this._d, ...args]);
  }
  getSheetName(): string {
    return this._call('getName');
  }
  getSheetId(): number {
    count('Sheet.getSheetId');
    return this._d.sheet;
  }
  getParent(): Spreadsheet {
    count('Sheet.getParent');
    return new Spreadsheet({ ss: this._d.ss });
  }
  getRange(a: string | number, b?: number, c?: number, d?: number): Range {
    if (typeof a === 'string') return new Range(this._call('getRange', a));
    return new Range(this._call('getRange', a, b, c, d));
  }
  getDataRange(): Range {
    return new Range(this._call('getDataRange'));
  }
  getRangeList(a1s: Iterable<unknown>): RangeList {
    return new RangeList(this._call('getRangeList', Array.from(a1s, String)));
  }
  setFrozenRows(rows: number): void {
    this._call('setFrozenRows', rows);
  }
  getActiveRange(): Range | null {
    const d = this._call('getActiveRange');
    return d ? new Range(d) : null;
  }
  sort(column: number, ascending?: boolean): this {
    this._call('sort', column, ascending);
    return this;
  }
  protect(): Protection {
    return new Protection(this._call('protect'));
  }
  toString(): string {
    return 'Sheet';
  }
}

/** A sheet's protection (services/sheet.ts). */
export class Protection {
  constructor(readonly _d: SheetD) {}
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  _call(method: string, ...args: unknown[]): any {
    return call(`Protection.${method}`, [this._d, ...args]);
  }
  setWarningOnly(warningOnly: boolean): this {
    this._call('setWarningOnly', warningOnly);
    return this;
  }
  setDescription(description: string): this {
    this._call('setDescription', description);
    return this;
  }
  isWarningOnly(): boolean {
    return this._call('isWarningOnly');
  }
  getDescription(): string {
    return this._call('getDescription');
  }
  remove(): void {
    this._call('remove');
  }
  toString(): string {
    return 'Protection';
  }
}

delegate(
  Sheet,
  [
    'getName',
    'getIndex',
    'getLastRow',
    'getLastColumn',
    'getMaxRows',
    'getMaxColumns',
    'getFrozenRows',
    'isSheetHidden',
  ],
  [
    'activate',
    'clear',
    'clearContents',
    'setName',
    'appendRow',
    'insertColumnsAfter',
    'insertColumnsBefore',
    'insertColumns',
    'insertColumnAfter',
    'insertColumnBefore',
    'insertRowsAfter',
    'insertRowsBefore',
    'insertRows',
    'insertRowAfter',
    'insertRowBefore',
    'deleteRows',
    'deleteRow',
    'deleteColumns',
    'deleteColumn',
    'hideSheet',
    'showSheet',
    // Layout: no effect on values.
    'setColumnWidth',
    'setColumnWidths',
    'autoResizeColumns',
    'autoResizeColumn',
    'hideColumns',
    'showColumns',
    'setRowHeight',
  ],
);

export class Spreadsheet {
  constructor(readonly _d: SpreadsheetD) {}
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  _call(method: string, ...args: unknown[]): any {
    return call(`Spreadsheet.${method}`, [this._d, ...args]);
  }
  getId(): string {
    count('Spreadsheet.getId');
    return this._d.ss;
  }
  getUrl(): string {
    count('Spreadsheet.getUrl');
    return `https://docs.google.com/spreadsheets/d/${this._d.ss}/edit`;
  }
  getSheets(): Sheet[] {
    return (this._call('getSheets') as SheetD[]).map((d) => new Sheet(d));
  }
  getSheetByName(name: string): Sheet | null {
    const d = this._call('getSheetByName', name);
    return d ? new Sheet(d) : null;
  }
  getActiveSheet(): Sheet {
    return new Sheet(this._call('getActiveSheet'));
  }
  setActiveSheet(sheet: Sheet): Sheet {
    this._call('setActiveSheet', sheet._d);
    return sheet;
  }
  getActiveRange(): Range | null {
    const d = this._call('getActiveRange');
    return d ? new Range(d) : null;
  }
  getActiveCell(): Range | null {
    const d = this._call('getActiveCell');
    return d ? new Range(d) : null;
  }
  getActiveRangeList(): RangeList | null {
    const ds = this._call('getActiveRangeList') as RangeD[];
    return ds.length > 0 ? new RangeList(ds) : null;
  }
  getSelection(): Selection {
    count('Spreadsheet.getSelection');
    return new Selection(this);
  }
  getRange(a1: string): Range {
    return new Range(this._call('getRange', a1));
  }
  getRangeList(a1s: string[]): RangeList {
    return new RangeList(this._call('getRangeList', a1s));
  }
  insertSheet(name?: string): Sheet {
    return new Sheet(this._call('insertSheet', name));
  }
  deleteSheet(sheet: Sheet): void {
    this._call('deleteSheet', sheet._d);
  }
  toast(message?: unknown, title?: unknown, timeoutSeconds?: number): void {
    this._call(
      'toast',
      message === undefined ? '' : String(message),
      title === undefined ? '' : String(title),
      timeoutSeconds,
    );
  }
  getSpreadsheetLocale(): string {
    count('Spreadsheet.getSpreadsheetLocale');
    return 'en_US';
  }
  getOwner(): ReturnType<typeof makeUser> {
    return makeUser(this._call('getOwner'));
  }
  toString(): string {
    return 'Spreadsheet';
  }
}

delegate(Spreadsheet, ['getName', 'getNumSheets', 'getSpreadsheetTimeZone'], []);

export class Selection {
  constructor(private readonly _ss: Spreadsheet) {}
  getActiveRange(): Range | null {
    return this._ss.getActiveRange();
  }
  getCurrentCell(): Range | null {
    return this._ss.getActiveCell();
  }
  getActiveSheet(): Sheet {
    return this._ss.getActiveSheet();
  }
  getActiveRangeList(): RangeList | null {
    return this._ss.getActiveRangeList();
  }
}

function maybe<T, D>(d: D | null, make: (d: D) => T): T | null {
  return d ? make(d) : null;
}

export const SpreadsheetApp = {
  getActive(): Spreadsheet | null {
    return SpreadsheetApp.getActiveSpreadsheet();
  },
  getActiveSpreadsheet(): Spreadsheet | null {
    return maybe(call<SpreadsheetD | null>('SpreadsheetApp.getActiveSpreadsheet'), (d) => new Spreadsheet(d));
  },
  getActiveSheet(): Sheet | null {
    return maybe(call<SheetD | null>('SpreadsheetApp.getActiveSheet'), (d) => new Sheet(d));
  },
  getActiveRange(): Range | null {
    return maybe(call<RangeD | null>('SpreadsheetApp.getActiveRange'), (d) => new Range(d));
  },
  getCurrentCell(): Range | null {
    return maybe(call<RangeD | null>('SpreadsheetApp.getCurrentCell'), (d) => new Range(d));
  },
  getActiveRangeList(): RangeList | null {
    const ds = call<RangeD[] | null>('SpreadsheetApp.getActiveRangeList');
    return ds && ds.length > 0 ? new RangeList(ds) : null;
  },
  getSelection(): Selection | null {
    const d = call<SpreadsheetD | null>('SpreadsheetApp.getActiveSpreadsheet');
    return maybe(d, (ss) => new Selection(new Spreadsheet(ss)));
  },
  openById(id: string): Spreadsheet {
    return new Spreadsheet(call('SpreadsheetApp.openById', [String(id)]));
  },
  getUi(): typeof Ui {
    call('SpreadsheetApp.getUi');
    return Ui;
  },
  flush(): void {
    call('SpreadsheetApp.flush');
  },
};
