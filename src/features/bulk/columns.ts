/**
 * The job's cells as one read: the URL cell, then the output cells. The output columns may lie further right than
 * the URL column (the plan's "first empty columns to the right"): the columns between are read and left out.
 */
import type { Job } from '../../core/job';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** `count` rows from `row`, each the URL cell then `width - 1` output cells. */
export function readJobCells(
  sheet: Sheet,
  job: Pick<Job, 'urlColumn' | 'outputColumn'>,
  row: number,
  count: number,
  width: number,
): unknown[][] {
  if (count <= 0) return [];
  const gap = Math.max(0, job.outputColumn - job.urlColumn - 1);
  const values = sheet.getRange(row, job.urlColumn, count, width + gap).getValues();
  return gap === 0 ? values : values.map((cells) => [cells[0], ...cells.slice(1 + gap)]);
}
