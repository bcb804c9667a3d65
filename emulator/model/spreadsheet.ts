/** The host's spreadsheets: cells with values, formulas, number formats, notes and array-formula spills. */
import { cellName, parseA1, shiftFormulaRows } from './a1';

export type CellValue = string | number | boolean | Date;

export interface Cell {
  value: CellValue;
  formula?: string;
  format?: string;
  note?: string;
  /** The message of a formula's error (the cell's value is then `#ERROR!` or `#REF!`). */
  error?: string;
  /** For the cell holding an array formula: the size of its last spill. */
  spill?: { rows: number; cols: number };
  /** For a cell filled by another cell's array result. */
  spilledFrom?: { row: number; col: number };
}

export interface RangeBox {
  row: number;
  col: number;
  numRows: number;
  numCols: number;
}

export const DEFAULT_ROWS = 1000;
export const DEFAULT_COLUMNS = 26;
// "Your input contains more than the maximum of 50000 characters in a single cell." (Sheets' cell limit)
export const MAX_CELL_CHARS = 50000;
export const PLAIN_TEXT = '@';

export class SheetsError extends Error {}

type Line = Array<Cell | undefined>;

/**
 * A sheet's protection (Sheet.protect()). Its editors are the spreadsheet's until a script changes them, which the
 * add-on never does ("the permissions mirror those of the spreadsheet itself, which effectively means that the sheet
 * remains unprotected", apps-script/reference/spreadsheet/sheet#protect()); `warningOnly`: every user can edit, but a
 * person's edit prompts a warning first (apps-script/reference/spreadsheet/protection#setWarningOnly(Boolean)).
 */
export interface SheetProtection {
  warningOnly: boolean;
  description: string;
}

export class SheetModel {
  frozenRows = 0;
  protection?: SheetProtection;
  /** Sheet.hideSheet: no tab in Sheets' window (the values stay readable and writable). */
  hidden = false;
  private rows: Array<Line | undefined> = [];
  /**
   * For a copy (`clone()`): what it still shares with the sheet it was copied from. While `rows` is the source's
   * row array, the lines the copy changed are in `changed` (by index), so that a change costs the lines it touches,
   * not the sheet's size; a change of the rows' order (rows inserted, deleted, sorted) copies the row array. A line
   * is copied with its cells on the copy's first change of it (`ownLines`). A copy is valid while its source is
   * unchanged.
   */
  private shared?: { rows: boolean; changed: Map<number, Line>; ownLines: WeakSet<Line> };

  constructor(
    public id: number,
    public name: string,
    public maxRows = DEFAULT_ROWS,
    public maxCols = DEFAULT_COLUMNS,
  ) {}

  get(row: number, col: number): Cell | undefined {
    return this.lineAt(row - 1)?.[col - 1];
  }

  /** A cell to change in place, or undefined when it does not exist (`get` is for reading only). */
  getToChange(row: number, col: number): Cell | undefined {
    return this.lineToChange(row - 1, false)?.[col - 1];
  }

  ensure(row: number, col: number): Cell {
    const line = this.lineToChange(row - 1, true) as Line;
    let cell = line[col - 1];
    if (!cell) {
      cell = { value: '' };
      line[col - 1] = cell;
    }
    return cell;
  }

  hasContent(row: number, col: number): boolean {
    const cell = this.get(row, col);
    return !!cell && (cell.value !== '' || cell.formula !== undefined);
  }

  lastRow(): number {
    const changed = this.shared?.rows ? this.shared.changed : undefined;
    const length = Math.max(this.rows.length, ...(changed ? [...changed.keys()].map((i) => i + 1) : []));
    for (let r = length; r >= 1; r--) {
      const line = this.lineAt(r - 1);
      if (line?.some((cell) => cell && (cell.value !== '' || cell.formula !== undefined))) return r;
    }
    return 0;
  }

  lastColumn(): number {
    let last = 0;
    for (const line of this.lines()) {
      if (!line) continue;
      for (let c = line.length; c > last; c--) {
        const cell = line[c - 1];
        if (cell && (cell.value !== '' || cell.formula !== undefined)) {
          last = c;
          break;
        }
      }
    }
    return last;
  }

  /** Throws like Apps Script when a range does not fit the sheet. */
  check(box: RangeBox): void {
    if (box.row < 1) throw new SheetsError('The starting row of the range is too small.');
    if (box.col < 1) throw new SheetsError('The starting column of the range is too small.');
    if (box.numRows < 1) throw new SheetsError('The number of rows in the range must be at least 1.');
    if (box.numCols < 1) throw new SheetsError('The number of columns in the range must be at least 1.');
    if (box.row + box.numRows - 1 > this.maxRows || box.col + box.numCols - 1 > this.maxCols) {
      throw new SheetsError('The coordinates of the range are outside the dimensions of the sheet.');
    }
  }

  /** Every cell that exists (a value, a formula, a format or a note), with its position: to save a sheet. */
  allCells(): Array<{ row: number; col: number; cell: Cell }> {
    const found: Array<{ row: number; col: number; cell: Cell }> = [];
    this.lines().forEach((line, r) => {
      line?.forEach((cell, c) => {
        if (cell) found.push({ row: r + 1, col: c + 1, cell });
      });
    });
    return found;
  }

  /**
   * A copy that changes without changing this sheet (an execution's own view of the sheet while its writes are not
   * flushed). Copy-on-write: it costs nothing until changed, then the lines it changes; valid while this sheet is
   * unchanged.
   */
  clone(): SheetModel {
    const copy = new SheetModel(this.id, this.name, this.maxRows, this.maxCols);
    copy.frozenRows = this.frozenRows;
    if (this.protection) copy.protection = { ...this.protection };
    copy.hidden = this.hidden;
    copy.rows = this.lines();
    copy.shared = { rows: true, changed: new Map(), ownLines: new WeakSet() };
    return copy;
  }

  /** The line at `index` (0-based), to read. */
  private lineAt(index: number): Line | undefined {
    return (this.shared?.rows && this.shared.changed.get(index)) || this.rows[index];
  }

  /** The row array, this sheet's own, every changed line in place (to change or read every row). */
  private lines(): Array<Line | undefined> {
    const shared = this.shared;
    if (shared?.rows) {
      this.rows = this.rows.slice();
      for (const [index, line] of shared.changed) this.rows[index] = line;
      shared.changed.clear();
      shared.rows = false;
    }
    return this.rows;
  }

  /** `line`, or its copy (cells copied) when it is still shared with the source of this copy. */
  private owned(line: Line): Line {
    if (!this.shared || this.shared.ownLines.has(line)) return line;
    const copy = line.map((cell) => (cell ? cloneCell(cell) : undefined));
    this.shared.ownLines.add(copy);
    return copy;
  }

  /** The line at `index` (0-based), this sheet's own, to change; a new one when `create` and there is none. */
  private lineToChange(index: number, create: boolean): Line | undefined {
    const shared = this.shared;
    const current = this.lineAt(index);
    if (!current && !create) return undefined;
    const own = current ? this.owned(current) : [];
    if (own === current) return own;
    shared?.ownLines.add(own);
    if (shared?.rows) shared.changed.set(index, own);
    else this.rows[index] = own;
    return own;
  }

  /** Every line, this sheet's own (a change of every row: columns inserted or deleted). */
  private allLinesToChange(): Array<Line | undefined> {
    const rows = this.lines();
    if (this.shared) for (let i = 0; i < rows.length; i++) this.lineToChange(i, false);
    return rows;
  }

  /** Every formula cell, with its position. */
  formulaCells(): Array<{ row: number; col: number; cell: Cell }> {
    const found: Array<{ row: number; col: number; cell: Cell }> = [];
    this.lines().forEach((line, r) => {
      line?.forEach((cell, c) => {
        if (cell?.formula !== undefined) found.push({ row: r + 1, col: c + 1, cell });
      });
    });
    return found;
  }

  insertRows(before: number, count: number, sheetsForFormulas: SheetModel[]): void {
    const mapRow = (row: number) => (row >= before ? row + count : row);
    const rows = this.lines();
    if (rows.length >= before) rows.splice(before - 1, 0, ...new Array<undefined>(count));
    this.maxRows += count;
    this.moveSpills(mapRow);
    for (const sheet of sheetsForFormulas) sheet.rewriteFormulas(this.name, mapRow);
  }

  deleteRows(start: number, count: number, sheetsForFormulas: SheetModel[]): void {
    if (start < 1 || start + count - 1 > this.maxRows) {
      throw new SheetsError('Those rows are out of bounds.');
    }
    if (count >= this.maxRows) throw new SheetsError('You can\u2019t delete all the rows on the sheet.');
    const mapRow = (row: number) => (row < start ? row : row >= start + count ? row - count : undefined);
    this.lines().splice(start - 1, count);
    this.maxRows -= count;
    this.moveSpills(mapRow);
    for (const sheet of sheetsForFormulas) sheet.rewriteFormulas(this.name, mapRow);
  }

  insertColumns(before: number, count: number): void {
    const rows = this.allLinesToChange();
    for (const line of rows)
      if (line && line.length >= before) line.splice(before - 1, 0, ...new Array(count));
    this.maxCols += count;
    for (const line of rows) {
      line?.forEach((cell) => {
        if (cell?.spilledFrom && cell.spilledFrom.col >= before) cell.spilledFrom.col += count;
      });
    }
  }

  deleteColumns(start: number, count: number): void {
    if (start < 1 || start + count - 1 > this.maxCols)
      throw new SheetsError('Those columns are out of bounds.');
    for (const line of this.allLinesToChange()) line?.splice(start - 1, count);
    this.maxCols -= count;
  }

  /** Sorts the rows below the frozen rows by one column, as Sheet.sort and the Data › Sort menu do. */
  sort(column: number, ascending: boolean, firstRow = this.frozenRows + 1): void {
    const last = this.lastRow();
    if (last < firstRow) return;
    const block = this.lines().slice(firstRow - 1, last);
    while (block.length < last - firstRow + 1) block.push(undefined);
    const indexed = block.map((line, index) => ({ line, index }));
    indexed.sort((a, b) => {
      const order = compareCells(a.line?.[column - 1]?.value ?? '', b.line?.[column - 1]?.value ?? '');
      return (ascending ? order : -order) || a.index - b.index;
    });
    const rows = this.lines();
    indexed.forEach(({ line: moved, index }, position) => {
      const delta = position - index;
      const line = moved && delta !== 0 && moved.some((cell) => cell?.formula) ? this.owned(moved) : moved;
      rows[firstRow - 1 + position] = line;
      line?.forEach((cell) => {
        if (cell?.formula && delta !== 0) {
          cell.formula = shiftFormulaRows(cell.formula, {
            sheetName: this.name,
            formulaSheet: this.name,
            mapRow: (row) => row,
            relativeDelta: delta,
          });
        }
      });
    });
  }

  rewriteFormulas(movedSheet: string, mapRow: (row: number) => number | undefined): void {
    this.lines().forEach((line, index) => {
      line?.forEach((cell, col) => {
        if (!cell?.formula) return;
        const formula = shiftFormulaRows(cell.formula, {
          sheetName: movedSheet,
          formulaSheet: this.name,
          mapRow,
        });
        if (formula === cell.formula) return;
        const own = this.lineToChange(index, false)?.[col];
        if (own) own.formula = formula;
      });
    });
  }

  private moveSpills(mapRow: (row: number) => number | undefined): void {
    this.lines().forEach((line, index) => {
      line?.forEach((cell, col) => {
        if (!cell?.spilledFrom) return;
        const own = this.lineToChange(index, false)?.[col];
        if (!own?.spilledFrom) return;
        const row = mapRow(own.spilledFrom.row);
        if (row === undefined) own.spilledFrom = undefined;
        else own.spilledFrom.row = row;
      });
    });
  }
}

function cloneCell(cell: Cell): Cell {
  const copy = { ...cell };
  if (cell.spill) copy.spill = { ...cell.spill };
  if (cell.spilledFrom) copy.spilledFrom = { ...cell.spilledFrom };
  return copy;
}

/** Sheets' sort order: numbers, then text (case-insensitive), then booleans; empty cells last. */
function compareCells(a: CellValue, b: CellValue): number {
  const rank = (v: CellValue) => (v === '' ? 3 : typeof v === 'boolean' ? 2 : typeof v === 'string' ? 1 : 0);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 1) return (a as string).localeCompare(b as string, 'en', { sensitivity: 'base' });
  const na = a instanceof Date ? a.getTime() : Number(a);
  const nb = b instanceof Date ? b.getTime() : Number(b);
  return na - nb;
}

export class SpreadsheetModel {
  sheets: SheetModel[] = [];
  activeSheetId: number;
  activeRange?: { sheetId: number } & RangeBox;
  /** With several ranges selected (Ctrl-click): all of them, the last one being `activeRange`. */
  activeRanges?: Array<{ sheetId: number } & RangeBox>;
  private nextSheetId = 0;

  constructor(
    public id: string,
    public name: string,
    public owner: string,
    public timeZone: string,
  ) {
    this.activeSheetId = 0;
  }

  addSheet(name: string, rows = DEFAULT_ROWS, cols = DEFAULT_COLUMNS): SheetModel {
    if (this.sheets.some((sheet) => sheet.name.toLowerCase() === name.toLowerCase())) {
      throw new SheetsError(`A sheet with the name "${name}" already exists. Please enter another name.`);
    }
    const sheet = new SheetModel(
      this.nextSheetId === 0 ? 0 : 1000 + this.nextSheetId * 7919,
      name,
      rows,
      cols,
    );
    this.nextSheetId++;
    this.sheets.push(sheet);
    if (this.sheets.length === 1) this.activeSheetId = sheet.id;
    return sheet;
  }

  /**
   * A copy that changes without changing this spreadsheet (an execution's own view while its writes are not
   * flushed): its sheets are copy-on-write copies (SheetModel.clone), valid while this spreadsheet is unchanged.
   */
  clone(): SpreadsheetModel {
    const copy = new SpreadsheetModel(this.id, this.name, this.owner, this.timeZone);
    copy.sheets = this.sheets.map((sheet) => sheet.clone());
    copy.activeSheetId = this.activeSheetId;
    copy.activeRange = this.activeRange && { ...this.activeRange };
    copy.activeRanges = this.activeRanges?.map((range) => ({ ...range }));
    copy.nextSheetId = this.nextSheetId;
    return copy;
  }

  /** Every sheet with its cells, formats and notes, hidden or not, and the selection: JSON to save and restore. */
  snapshot(): SpreadsheetSnapshot {
    return {
      id: this.id,
      name: this.name,
      owner: this.owner,
      sheets: this.sheets.map((sheet) => ({
        id: sheet.id,
        name: sheet.name,
        rows: sheet.maxRows,
        cols: sheet.maxCols,
        frozenRows: sheet.frozenRows,
        hidden: sheet.hidden,
        ...(sheet.protection ? { protection: { ...sheet.protection } } : {}),
        cells: sheet
          .allCells()
          .map(({ row, col, cell }) => cellSnapshot(row, col, cell))
          .filter((cell): cell is CellSnapshot => cell !== undefined),
      })),
      activeSheetId: this.activeSheetId,
      ...(this.activeRange ? { activeRange: { ...this.activeRange } } : {}),
      ...(this.activeRanges ? { activeRanges: this.activeRanges.map((range) => ({ ...range })) } : {}),
      nextSheetId: this.nextSheetId,
    };
  }

  /** The spreadsheet `snapshot()` described, sheet ids included (the add-on keeps them, e.g. a run's sheet). */
  static fromSnapshot(snapshot: SpreadsheetSnapshot, timeZone: string): SpreadsheetModel {
    if (snapshot.sheets.length === 0) throw new Error('A spreadsheet has at least one sheet.');
    const ss = new SpreadsheetModel(snapshot.id, snapshot.name, snapshot.owner, timeZone);
    for (const saved of snapshot.sheets) {
      const sheet = new SheetModel(saved.id, saved.name, saved.rows, saved.cols);
      sheet.frozenRows = saved.frozenRows;
      sheet.hidden = saved.hidden;
      if (saved.protection) sheet.protection = { ...saved.protection };
      for (const cell of saved.cells) {
        if (cell.r < 1 || cell.c < 1 || cell.r > sheet.maxRows || cell.c > sheet.maxCols) continue;
        Object.assign(sheet.ensure(cell.r, cell.c), restoredCell(cell));
      }
      ss.sheets.push(sheet);
    }
    const ids = new Set(ss.sheets.map((sheet) => sheet.id));
    const names = new Set(ss.sheets.map((sheet) => sheet.name.toLowerCase()));
    if (ids.size !== ss.sheets.length || names.size !== ss.sheets.length)
      throw new Error('Two sheets of the snapshot share an id or a name.');
    if (!ids.has(snapshot.activeSheetId)) throw new Error('The snapshot has no active sheet.');
    ss.activeSheetId = snapshot.activeSheetId;
    ss.activeRange = snapshot.activeRange && { ...snapshot.activeRange };
    ss.activeRanges = snapshot.activeRanges?.map((range) => ({ ...range }));
    ss.nextSheetId = snapshot.nextSheetId;
    return ss;
  }

  /** Deletes a sheet; the selection on it goes, and the first sheet becomes active when it was. */
  removeSheet(id: number): void {
    this.sheets = this.sheets.filter((sheet) => sheet.id !== id);
    if (this.activeRange?.sheetId === id) this.activeRange = undefined;
    this.activeRanges = this.activeRanges?.filter((range) => range.sheetId !== id);
    if (this.activeRanges?.length === 0) this.activeRanges = undefined;
    if (this.activeSheetId === id) this.activeSheetId = this.sheets[0]?.id ?? 0;
  }

  sheetById(id: number): SheetModel {
    const sheet = this.sheets.find((s) => s.id === id);
    if (!sheet) throw new SheetsError('Sheet not found.');
    return sheet;
  }

  sheetByName(name: string): SheetModel | undefined {
    return this.sheets.find((sheet) => sheet.name === name);
  }

  activeSheet(): SheetModel {
    return this.sheets.find((s) => s.id === this.activeSheetId) ?? this.sheets[0];
  }

  /** Resolves A1 notation (with or without a sheet name) against this spreadsheet. */
  resolve(a1: string, defaultSheet: SheetModel = this.activeSheet()): { sheet: SheetModel; box: RangeBox } {
    const parsed = parseA1(a1);
    if (!parsed) throw new SheetsError(`Range not found`);
    const sheet = parsed.sheetName === undefined ? defaultSheet : this.sheetByName(parsed.sheetName);
    if (!sheet) throw new SheetsError(`Range not found`);
    const lastRow = parsed.lastRow ?? sheet.maxRows;
    const lastCol = parsed.lastCol ?? sheet.maxCols;
    const box = {
      row: parsed.row,
      col: parsed.col,
      numRows: lastRow - parsed.row + 1,
      numCols: lastCol - parsed.col + 1,
    };
    sheet.check(box);
    return { sheet, box };
  }
}

/** A cell as JSON: its fields as they are, a date value as `{ date: ms }`. */
export type CellSnapshot = Omit<Cell, 'value'> & {
  r: number;
  c: number;
  value?: string | number | boolean | { date: number };
};

export interface SheetSnapshot {
  id: number;
  name: string;
  rows: number;
  cols: number;
  frozenRows: number;
  hidden: boolean;
  protection?: SheetProtection;
  cells: CellSnapshot[];
}

/** A whole spreadsheet as JSON (SpreadsheetModel.snapshot): every sheet, hidden or not, in order, and the selection. */
export interface SpreadsheetSnapshot {
  id: string;
  name: string;
  owner: string;
  sheets: SheetSnapshot[];
  activeSheetId: number;
  activeRange?: { sheetId: number } & RangeBox;
  activeRanges?: Array<{ sheetId: number } & RangeBox>;
  nextSheetId: number;
}

function cellSnapshot(row: number, col: number, cell: Cell): CellSnapshot | undefined {
  const { value, ...rest } = cell;
  const fields = structuredClone(
    Object.fromEntries(Object.entries(rest).filter(([, field]) => field !== undefined)),
  );
  if (value === '' && Object.keys(fields).length === 0) return undefined;
  const snapshot: CellSnapshot = { r: row, c: col, ...fields };
  if (value !== '') snapshot.value = value instanceof Date ? { date: value.getTime() } : value;
  return snapshot;
}

function restoredCell({ r: _r, c: _c, value, ...rest }: CellSnapshot): Cell {
  const cell: Cell = { ...structuredClone(rest), value: '' };
  if (value !== undefined) cell.value = typeof value === 'object' ? new Date(value.date) : value;
  return cell;
}

export function describeCell(row: number, col: number): string {
  return cellName(row, col);
}
