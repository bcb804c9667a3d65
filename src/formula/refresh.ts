/** "Refresh =FINDEMAIL cells": pending or #ERROR! formulas entered again, in the selection if it holds some. */
import type { SingleCellsState } from '../api';
import { SINGLE_CELLS_LOOK_MAX_CELLS, USER_SIMULTANEOUS_EXECUTIONS } from '../core/limits';
import type { Platform } from '../core/ports';
import { REFRESH_PATH } from '../core/product';
import type { CellBlock, SheetPort } from '../core/sheet';
import { foldFormulas } from '../store/store';
import {
  longestSingleCellColumn,
  rangeFormula,
  replaceWithRange,
  runA1,
  runBlock,
  runStillThere,
  type SingleCellColumn,
} from './columnOffer';
import { capMessage, readFormulaCapState } from './dailyLimit';
import { findEmailCells } from './freeze';
import { isPendingText } from './messages';

interface Unfinished {
  row: number;
  column: number;
  formula: string;
}

function unfinished(value: unknown): boolean {
  return value === '#ERROR!' || isPendingText(value);
}

/** Results may spill past `block`. `atLimit`: cells left, the daily limit would refuse them again. */
function unfinishedIn(sheet: SheetPort, block: CellBlock, limitText?: string) {
  const { row: top, column: left } = block;
  const candidates = findEmailCells(sheet.formulas(block), top, left).map((cell) => ({
    ...cell,
    area: cell.area ?? { row: cell.row, column: cell.column, rows: 1, columns: 1 },
  }));
  if (candidates.length === 0) return { cells: [], atLimit: 0 };
  const areas = candidates.map(({ area }) => area);
  const bottom = Math.min(sheet.maxRows(), Math.max(...areas.map((area) => area.row + area.rows)) - 1);
  const right = Math.min(
    sheet.maxColumns(),
    Math.max(...areas.map((area) => area.column + area.columns)) - 1,
  );
  const values = sheet.values({ row: top, column: left, rows: bottom - top + 1, columns: right - left + 1 });
  const found = { cells: [] as Unfinished[], atLimit: 0 };
  for (const { row, column, area, formula } of candidates) {
    let open = false;
    let refused = false;
    for (let r = area.row; r < area.row + area.rows; r++)
      for (let c = area.column; c < area.column + area.columns; c++) {
        const value = values[r - top]?.[c - left];
        if (limitText && typeof value === 'string' && value.includes(limitText)) refused = true;
        else if (unfinished(value)) open = true;
      }
    if (open) found.cells.push({ row, column, formula });
    else if (refused) found.atLimit++;
  }
  return found;
}

/** As getDataRange: A1 alone on an empty sheet. */
function dataBlock(sheet: SheetPort): CellBlock {
  return { row: 1, column: 1, rows: Math.max(1, sheet.lastRow()), columns: Math.max(1, sheet.lastColumn()) };
}

/** A column of single cells, and how many of them are not done. */
type Offer = { run: SingleCellColumn; unfinished: number };

/** Undefined on No. */
function askAndReplace(
  platform: Platform,
  sheet: SheetPort,
  found: Offer,
  ifNo: string,
  again: string,
): string | undefined {
  const { run } = found;
  const count = run.last - run.first + 1;
  const presses = Math.ceil(found.unfinished / USER_SIMULTANEOUS_EXECUTIONS);
  const offer = `${runA1(run)} holds ${count} single =FINDEMAIL cells, ${found.unfinished} of them not done. Sheets runs at most ${USER_SIMULTANEOUS_EXECUTIONS} formulas at once for one person, so they need about ${presses} Refreshes.\n\nReplace them with one range formula, ${rangeFormula(run)} in the first cell, which looks them up together? Results already paid for show again at no cost; column ${run.input} is not changed.\n\nNo: ${ifNo}`;
  if (!platform.ui.confirm(offer)) return undefined;
  // Collaborators may edit while the dialog waits.
  if (!runStillThere(sheet, run))
    return `Nothing changed: ${runA1(run)} changed while the question was open (someone edited, sorted or inserted rows). Use ${again} again to be asked about the column as it is now.`;
  const formula = replaceWithRange(sheet, run);
  platform.spreadsheet().flush();
  return `Replaced the ${count} single =FINDEMAIL cells of ${runA1(run)} with one range formula, ${formula}: Sheets runs it now; results already paid for cost nothing. If some cells still say they were not looked up, use ${REFRESH_PATH} again.`;
}

function singleCellsOf(sheet: SheetPort, maxCells = Number.POSITIVE_INFINITY): Offer | undefined {
  const block = dataBlock(sheet);
  if (block.rows * block.columns > maxCells) return undefined;
  const run = longestSingleCellColumn(sheet.formulas(block), USER_SIMULTANEOUS_EXECUTIONS);
  if (!run) return undefined;
  const values = sheet.values(runBlock(run));
  return { run, unfinished: values.filter((line) => unfinished(line[0])).length };
}

/** A cell cannot tell: it sees its own input only. */
export function singleCellColumnState(platform: Platform): SingleCellsState | undefined {
  const found = singleCellsOf(platform.spreadsheet().activeSheet(), SINGLE_CELLS_LOOK_MAX_CELLS);
  if (!found || found.unfinished === 0) return undefined;
  const { run } = found;
  return {
    range: runA1(run),
    cells: run.last - run.first + 1,
    unfinished: found.unfinished,
    formula: rangeFormula(run),
    atOnce: USER_SIMULTANEOUS_EXECUTIONS,
  };
}

export function replaceSingleCells(platform: Platform): string {
  const sheet = platform.spreadsheet().activeSheet();
  const found = singleCellsOf(sheet);
  if (!found)
    return `No column of more than ${USER_SIMULTANEOUS_EXECUTIONS} single =FINDEMAIL cells on this sheet: open the sheet that holds them, then use this button again.`;
  const again = 'Replace with one range formula in the Settings tab';
  return (
    askAndReplace(platform, sheet, found, 'nothing changes.', again) ??
    `Nothing changed. ${REFRESH_PATH} enters the unfinished cells again, about ${USER_SIMULTANEOUS_EXECUTIONS} at a time.`
  );
}

export function refreshFormulas(platform: Platform): string {
  // Folded first, so the cells entered again find room to pay for more.
  foldFormulas(platform);
  const spreadsheet = platform.spreadsheet();
  const selection = spreadsheet.selection();
  const sheet = selection?.sheet ?? spreadsheet.activeSheet();
  const { setting, usedToday } = readFormulaCapState(platform);
  const limitText = !setting.enabled || usedToday >= setting.dailyCap ? capMessage(setting) : undefined;
  // One cell selected is where the person happens to be, not a range they chose.
  const chosen = selection && selection.block.rows * selection.block.columns > 1 ? selection : null;
  let found = chosen ? unfinishedIn(sheet, chosen.block, limitText) : { cells: [], atLimit: 0 };
  let where = chosen ? `the selected range ${chosen.a1()}` : '';
  if (found.cells.length === 0 && found.atLimit === 0) {
    found = unfinishedIn(sheet, dataBlock(sheet), limitText);
    where = `the sheet ${sheet.name()}`;
  }
  const { cells, atLimit } = found;
  const limitNote =
    atLimit > 0
      ? `${atLimit} cell${atLimit === 1 ? '' : 's'} of ${where} wait for the daily limit of =FINDEMAIL (reached today; the owner can raise it in the add-on's Settings tab): not entered again.`
      : '';
  if (cells.length === 0)
    return (
      limitNote ||
      `No unfinished =FINDEMAIL cells ${chosen ? `in the selected range ${chosen.a1()} or ` : ''}on the sheet ${sheet.name()}.`
    );
  const count = cells.length;
  if (count > USER_SIMULTANEOUS_EXECUTIONS) {
    const run = longestSingleCellColumn(sheet.formulas(dataBlock(sheet)), USER_SIMULTANEOUS_EXECUTIONS);
    const ifNo = 'Refresh enters the unfinished cells again as they are.';
    const replaced = run && askAndReplace(platform, sheet, { run, unfinished: count }, ifNo, REFRESH_PATH);
    if (replaced) return replaced;
  }
  // A custom function reruns only when its text or an input changes (apps-script/guides/sheets/functions).
  for (const { row, column } of cells) sheet.clear({ row, column, rows: 1, columns: 1 });
  spreadsheet.flush();
  for (const { row, column, formula } of cells) sheet.setFormula(row, column, formula);
  spreadsheet.flush();
  const parts = [
    `Entered ${count} unfinished =FINDEMAIL formula${count === 1 ? '' : 's'} of ${where} again: Sheets runs ${count === 1 ? 'it' : 'them'} now; results already paid for cost nothing.`,
  ];
  if (limitNote) parts.push(limitNote);
  if (count > USER_SIMULTANEOUS_EXECUTIONS)
    parts.push(
      `Sheets runs at most ${USER_SIMULTANEOUS_EXECUTIONS} formulas at once for one person: one range formula such as =FINDEMAIL(A2:A200) instead of a column of single-cell formulas gets them done together. Cells still unfinished can be refreshed again.`,
    );
  return parts.join(' ');
}
