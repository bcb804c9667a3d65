import type { SheetPort } from '../core/sheet';
import type { Job } from './job';
import { withFormulaCells } from './rowCells';

/** `count` rows from `row`: the URL cell, then `width - 1` output cells (columns between the two are left out). */
export function readJobCells(
  sheet: SheetPort,
  job: Pick<Job, 'urlColumn' | 'outputColumn'>,
  row: number,
  count: number,
  width: number,
  formulas = false,
): unknown[][] {
  if (count <= 0) return [];
  const gap = Math.max(0, job.outputColumn - job.urlColumn - 1);
  const block = { row, column: job.urlColumn, rows: count, columns: width + gap };
  let values: unknown[][];
  if (formulas) {
    const read = sheet.valuesAndFormulas(block);
    values = withFormulaCells(read.values, read.formulas);
  } else values = sheet.values(block);
  return gap === 0 ? values : values.map((cells) => [cells[0], ...cells.slice(1 + gap)]);
}
