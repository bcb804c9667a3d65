/**
 * The job's cells as one read: the URL cell, then the output cells. The output columns may lie further right than
 * the URL column (the plan's "first empty columns to the right"): the columns between are read and left out.
 */
import type { Job } from './job';
import { withFormulaCells } from './rowCells';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * `count` rows from `row`, each the URL cell then `width - 1` output cells; with `formulas`, an output cell holding
 * a formula reads as its formula (user data, never written over).
 */
export function readJobCells(
  sheet: Sheet,
  job: Pick<Job, 'urlColumn' | 'outputColumn'>,
  row: number,
  count: number,
  width: number,
  formulas = false,
): unknown[][] {
  if (count <= 0) return [];
  const gap = Math.max(0, job.outputColumn - job.urlColumn - 1);
  const range = sheet.getRange(row, job.urlColumn, count, width + gap);
  const values = formulas ? withFormulaCells(range.getValues(), range.getFormulas()) : range.getValues();
  return gap === 0 ? values : values.map((cells) => [cells[0], ...cells.slice(1 + gap)]);
}
