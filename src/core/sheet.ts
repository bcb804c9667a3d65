/**
 * The spreadsheet as the features see it: blocks of cells, sheets by id, the selection. src/adapters/sheets.ts
 * makes these over SpreadsheetApp; tests may pass plain objects. Types only.
 */

/** A block of cells: its top-left cell and its size, 1-based as in Sheets. */
export interface CellBlock {
  row: number;
  column: number;
  rows: number;
  columns: number;
}

/** One sheet of the spreadsheet. Every method but `id` is one call to Sheets. */
export interface SheetPort {
  /** The sheet's id: it survives renames and moves. */
  readonly id: number;
  name(): string;
  maxRows(): number;
  maxColumns(): number;
  /** The last row (column) holding data, 0 in an empty sheet. */
  lastRow(): number;
  lastColumn(): number;
  /** The cells' values (getValues: numbers, dates, booleans, text). */
  values(block: CellBlock): unknown[][];
  /** The cells' formulas, '' for a cell without one. */
  formulas(block: CellBlock): string[][];
  /** Both of one block, as one range read twice. */
  valuesAndFormulas(block: CellBlock): { values: unknown[][]; formulas: string[][] };
  /** Writes `values` (a rectangle) with its top-left cell at `row`, `column` (setValues). */
  write(row: number, column: number, values: unknown[][]): void;
  /** Empties the cells' contents, formats kept (clearContent). */
  clear(block: CellBlock): void;
  setFormula(row: number, column: number, formula: string): void;
  /** Sets these blocks' number format to plain text ('@') in one call. */
  formatAsText(blocks: CellBlock[]): void;
  insertColumnsAfter(column: number, count: number): void;
  /** Selects the block for the person (activate). */
  select(block: CellBlock): void;
}

/** What the person has selected: the last range they selected, and how many ranges they selected. */
export interface Selection {
  sheet: SheetPort;
  block: CellBlock;
  /** The selection in A1 notation, as Sheets writes it ("B2:B40"). */
  a1(): string;
  /** Ranges selected at once (1 for a plain selection). */
  rangeCount(): number;
}

/** The spreadsheet of this execution. */
export interface SpreadsheetPort {
  id(): string;
  /** The sheet with this id, or undefined when it was deleted. */
  sheetById(sheetId: number): SheetPort | undefined;
  /** The sheet named `name` now (names change: a run keeps ids), or undefined. */
  sheetByName(name: string): SheetPort | undefined;
  activeSheet(): SheetPort;
  /** The selection, or null when there is none. */
  selection(): Selection | null;
  /** Applies pending writes at once (SpreadsheetApp.flush): other executions and the sheet's formulas see them. */
  flush(): void;
  /** A short message in the corner of the spreadsheet. */
  toast(message: string): void;
}

/** An edit as the simple trigger onEdit reports it. */
export interface EditedCells {
  sheet: SheetPort;
  block: CellBlock;
  /** The cell's value before the edit (a single cell's edit only). */
  oldValue?: unknown;
}
