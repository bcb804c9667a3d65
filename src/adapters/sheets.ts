/** SpreadsheetApp behind the ports of src/core/sheet.ts. */
import { a1Of } from '../core/a1';
import type { CellBlock, EditedCells, Selection, SheetPort, SpreadsheetPort } from '../core/sheet';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;
type Range = GoogleAppsScript.Spreadsheet.Range;
type Spreadsheet = GoogleAppsScript.Spreadsheet.Spreadsheet;

function rangeOf(sheet: Sheet, block: CellBlock): Range {
  return sheet.getRange(block.row, block.column, block.rows, block.columns);
}

function blockOf(range: Range): CellBlock {
  return {
    row: range.getRow(),
    column: range.getColumn(),
    rows: range.getNumRows(),
    columns: range.getNumColumns(),
  };
}

/** `knownId`: when the caller read it already (else read once, when first asked for). */
export function sheetPort(sheet: Sheet, knownId?: number): SheetPort {
  let sheetId = knownId;
  return {
    get id() {
      sheetId ??= sheet.getSheetId();
      return sheetId;
    },
    name: () => sheet.getName(),
    maxRows: () => sheet.getMaxRows(),
    maxColumns: () => sheet.getMaxColumns(),
    lastRow: () => sheet.getLastRow(),
    lastColumn: () => sheet.getLastColumn(),
    values: (block) => rangeOf(sheet, block).getValues(),
    formulas: (block) => rangeOf(sheet, block).getFormulas(),
    valuesAndFormulas(block) {
      const range = rangeOf(sheet, block);
      return { values: range.getValues(), formulas: range.getFormulas() };
    },
    write(row, column, values) {
      if (values.length === 0) return;
      sheet.getRange(row, column, values.length, values[0].length).setValues(values);
    },
    clear: (block) => void rangeOf(sheet, block).clearContent(),
    setFormula: (row, column, formula) => void sheet.getRange(row, column).setFormula(formula),
    formatAsText(blocks) {
      if (blocks.length === 0) return;
      sheet.getRangeList(blocks.map(a1Of)).setNumberFormat('@');
    },
    insertColumnsAfter: (column, count) => void sheet.insertColumnsAfter(column, count),
    select: (block) => void rangeOf(sheet, block).activate(),
  };
}

function selectionOf(ss: Spreadsheet): Selection | null {
  // With several selected, the last one (apps-script/reference/spreadsheet/spreadsheet#getactiverange).
  const range = ss.getActiveRange();
  if (!range) return null;
  return {
    sheet: sheetPort(range.getSheet()),
    block: blockOf(range),
    a1: () => range.getA1Notation(),
    rangeCount: () => ss.getActiveRangeList()?.getRanges().length ?? 1,
  };
}

export function spreadsheetPort(ss: Spreadsheet): SpreadsheetPort {
  return {
    id: () => ss.getId(),
    sheetById(sheetId) {
      const sheet = ss.getSheets().find((candidate) => candidate.getSheetId() === sheetId);
      return sheet ? sheetPort(sheet, sheetId) : undefined;
    },
    sheetByName(name) {
      const sheet = ss.getSheetByName(name);
      return sheet ? sheetPort(sheet) : undefined;
    },
    activeSheet: () => sheetPort(ss.getActiveSheet()),
    selection: () => selectionOf(ss),
    flush: () => SpreadsheetApp.flush(),
  };
}

/** null without a range or in AuthMode.NONE (nothing may be read then). */
export function editedCells(event: unknown): EditedCells | null {
  const e = (event ?? {}) as { authMode?: unknown; range?: Range; oldValue?: unknown };
  if (String(e.authMode) === 'NONE' || !e.range) return null;
  return { sheet: sheetPort(e.range.getSheet()), block: blockOf(e.range), oldValue: e.oldValue };
}

/** Asked once: it does not change during an execution. */
let active: Spreadsheet | undefined;

export function activeSpreadsheet(): Spreadsheet {
  active ??= SpreadsheetApp.getActiveSpreadsheet() ?? undefined;
  return active ?? SpreadsheetApp.getActiveSpreadsheet();
}

export function activeSpreadsheetOrNull(): Spreadsheet | null {
  try {
    return activeSpreadsheet();
  } catch {
    return null;
  }
}
