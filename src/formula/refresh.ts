/**
 * "Refresh =FINDEMAIL cells": enters again the =FINDEMAIL formulas that have not finished — a cell showing one of
 * the add-on's "not looked up yet" texts (PENDING_MESSAGES in src/formula/messages.ts) or #ERROR! (the platform's time
 * limit, "too many scripts running simultaneously", a paused formula) — in the selection, or on the whole sheet
 * when the selection holds none, so that Sheets runs them again. What was paid for is read back for free.
 */
import { enterFormulasAgain } from '../adapters/formulaCells';
import { activeRange, activeSheet } from '../adapters/spreadsheet';
import { type Area, resultArea, USES_FINDEMAIL } from './freeze';
import { isPendingText } from './messages';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;
type Range = GoogleAppsScript.Spreadsheet.Range;

/** Apps Script runs at most 30 executions at once for one user (apps-script/guides/services/quotas). */
const SIMULTANEOUS_EXECUTIONS = 30;

interface Unfinished {
  row: number;
  col: number;
  formula: string;
}

function unfinished(value: unknown): boolean {
  return value === '#ERROR!' || isPendingText(value);
}

/** The unfinished =FINDEMAIL formulas of `range` (their results may spill past it). */
function unfinishedIn(sheet: Sheet, range: Range): Unfinished[] {
  const top = range.getRow();
  const left = range.getColumn();
  const formulas = range.getFormulas();
  const candidates: Array<{ area: Area; formula: string }> = [];
  for (let r = 0; r < formulas.length; r++) {
    for (let c = 0; c < formulas[r].length; c++) {
      const formula = formulas[r][c];
      if (!formula || !USES_FINDEMAIL.test(formula)) continue;
      const area = resultArea(formula, top + r, left + c) ?? {
        row: top + r,
        col: left + c,
        rows: 1,
        cols: 1,
      };
      candidates.push({ area, formula });
    }
  }
  if (candidates.length === 0) return [];
  const bottom = Math.min(
    sheet.getMaxRows(),
    Math.max(...candidates.map(({ area }) => area.row + area.rows)) - 1,
  );
  const right = Math.min(
    sheet.getMaxColumns(),
    Math.max(...candidates.map(({ area }) => area.col + area.cols)) - 1,
  );
  const values = sheet.getRange(top, left, bottom - top + 1, right - left + 1).getValues();
  const found: Unfinished[] = [];
  for (const { area, formula } of candidates) {
    let open = false;
    for (let r = area.row; r < area.row + area.rows && !open; r++)
      for (let c = area.col; c < area.col + area.cols && !open; c++)
        open = unfinished(values[r - top]?.[c - left]);
    if (open) found.push({ row: area.row, col: area.col, formula });
  }
  return found;
}

export function refreshFormulas(): string {
  const selection = activeRange();
  const sheet = selection?.getSheet() ?? activeSheet();
  let cells = selection ? unfinishedIn(sheet, selection) : [];
  let where = 'the selection';
  if (cells.length === 0) {
    cells = unfinishedIn(sheet, sheet.getDataRange());
    where = 'this sheet';
  }
  if (cells.length === 0) return 'No unfinished =FINDEMAIL cells in the selection or on this sheet.';
  enterFormulasAgain(sheet, cells);
  const count = cells.length;
  const parts = [
    `Entered ${count} unfinished =FINDEMAIL formula${count === 1 ? '' : 's'} of ${where} again: Sheets runs ${count === 1 ? 'it' : 'them'} now; results already paid for cost nothing.`,
  ];
  // Each formula is its own execution: past 30 some are refused again before they run.
  if (count > SIMULTANEOUS_EXECUTIONS)
    parts.push(
      'Sheets runs at most 30 formulas at once for one person: one range formula such as =FINDEMAIL(A2:A200) instead of a column of single-cell formulas gets them done together. Cells still unfinished can be refreshed again.',
    );
  return parts.join(' ');
}
