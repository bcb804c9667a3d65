/** Inserted or deleted rows and columns move the job: the sheet's size tells that, the end cells and header where. */
import { CELL } from '../core/cells';
import type { SheetPort } from '../core/sheet';
import type { Job } from './job';
import { cellHash, readJobCells } from './rowCells';

/** What a job's frame holds: where its cells are, and what tells where they went. */
export const FRAME_FIELDS = [
  'sheetId',
  'urlColumn',
  'outputColumn',
  'extraFields',
  'headerRow',
  'firstRow',
  'lastRow',
  'maxRows',
  'maxColumns',
  'topValue',
  'bottomValue',
  'headerTexts',
] as const;

export type Frame = Pick<Job, (typeof FRAME_FIELDS)[number]>;

type Placed = Frame & { cursor?: number };

export const COLUMNS_MOVED =
  'Columns were inserted or deleted in this sheet during the run, so the add-on can no longer tell where the URLs and its result columns are. Nothing more was written. Start the run again on the URL column: rows with a result are skipped.';

/** False when the job can no longer be sure where its cells are: then it must not write anything. */
export function relocate(job: Placed, sheet: SheetPort, width: number): boolean {
  if (!followColumns(job, sheet, width)) return false;
  followRows(job, sheet);
  return true;
}

/** The header's marks, unshifted, or shifted with the output columns alone or with both, locate the columns. */
function followColumns(job: Placed, sheet: SheetPort, width: number): boolean {
  const maxColumns = sheet.maxColumns();
  if (maxColumns === job.maxColumns) return true;
  const moved = maxColumns - job.maxColumns;
  const header = job.headerTexts;
  const matches = ([urlShift, outputShift]: [number, number]) => {
    if (!header || job.headerRow === null || job.urlColumn + urlShift < 1) return false;
    if (job.outputColumn + outputShift + width - 2 > maxColumns) return false;
    const shifted = { urlColumn: job.urlColumn + urlShift, outputColumn: job.outputColumn + outputShift };
    const row = readJobCells(sheet, shifted, job.headerRow, 1, width)[0];
    return row.every((value, index) => cellHash(value) === header[index]);
  };
  const blank = cellHash('');
  const titled = header?.slice(CELL.email).every((mark) => mark !== blank) ?? false;
  const shifts: Array<[number, number]> = [
    [0, 0],
    [0, moved],
    [moved, moved],
  ];
  const shift = titled ? shifts.find(matches) : undefined;
  if (!shift) return false;
  job.urlColumn += shift[0];
  job.outputColumn += shift[1];
  job.maxColumns = maxColumns;
  return true;
}

function followRows(job: Placed, sheet: SheetPort): void {
  const maxRows = sheet.maxRows();
  if (maxRows === job.maxRows) return;
  const moved = maxRows - job.maxRows;
  const from = Math.max(1, Math.min(job.firstRow, job.firstRow + moved));
  const to = Math.min(maxRows, Math.max(job.lastRow, job.lastRow + moved));
  const column =
    to >= from ? sheet.values({ row: from, column: job.urlColumn, rows: to - from + 1, columns: 1 }) : [];
  const at = (row: number) => (row >= from && row <= to ? cellHash(column[row - from][0]) : undefined);
  const topMoved = at(job.firstRow + moved) === job.topValue;
  const topStayed = at(job.firstRow) === job.topValue;
  const bottomMoved = at(job.lastRow + moved) === job.bottomValue;
  const bottomStayed = at(job.lastRow) === job.bottomValue;
  if (topMoved && !topStayed) {
    job.firstRow += moved;
    job.lastRow += moved;
    if (job.cursor !== undefined) job.cursor += moved;
    if (job.headerRow !== null) job.headerRow += moved;
  } else if (bottomMoved || !bottomStayed) {
    // Inside the rows, or the ends edited too (a sort): rather keep rows than skip them; a later pass re-reads.
    job.lastRow = Math.max(job.firstRow - 1, job.lastRow + moved);
    if (job.cursor !== undefined) job.cursor = Math.min(job.cursor, job.lastRow + 1);
  }
  job.maxRows = maxRows;
}

export function noteEnds(job: Placed, sheet: SheetPort): void {
  if (job.lastRow < job.firstRow) return;
  const cell = (row: number) => sheet.values({ row, column: job.urlColumn, rows: 1, columns: 1 })[0][0];
  job.topValue = cellHash(cell(job.firstRow));
  job.bottomValue = cellHash(cell(job.lastRow));
}
