/** The spreadsheet as the features see it (src/adapters/sheets.ts). Types only. */

/** 1-based, as in Sheets. */
export interface CellBlock {
  row: number;
  column: number;
  rows: number;
  columns: number;
}

/** Every method but `id` is one call to Sheets. */
export interface SheetPort {
  /** Survives renames and moves. */
  readonly id: number;
  name(): string;
  maxRows(): number;
  maxColumns(): number;
  /** 0 in an empty sheet. */
  lastRow(): number;
  lastColumn(): number;
  values(block: CellBlock): unknown[][];
  /** '' for a cell without one. */
  formulas(block: CellBlock): string[][];
  valuesAndFormulas(block: CellBlock): { values: unknown[][]; formulas: string[][] };
  write(row: number, column: number, values: unknown[][]): void;
  /** Formats kept. */
  clear(block: CellBlock): void;
  setFormula(row: number, column: number, formula: string): void;
  /** Plain text ('@'), in one call. */
  formatAsText(blocks: CellBlock[]): void;
  insertColumnsAfter(column: number, count: number): void;
  select(block: CellBlock): void;
}

export interface Selection {
  sheet: SheetPort;
  block: CellBlock;
  a1(): string;
  rangeCount(): number;
}

export interface SpreadsheetPort {
  id(): string;
  sheetById(sheetId: number): SheetPort | undefined;
  /** Names change: a run keeps ids. */
  sheetByName(name: string): SheetPort | undefined;
  activeSheet(): SheetPort;
  selection(): Selection | null;
  /** Other executions and the sheet's formulas see pending writes. */
  flush(): void;
}

export interface EditedCells {
  sheet: SheetPort;
  block: CellBlock;
  /** A single cell's edit only. */
  oldValue?: unknown;
}
