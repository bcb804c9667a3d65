import type { Job } from '../../src/bulk/job';
import { noteEnds, relocate } from '../../src/bulk/relocate';
import { cellHash } from '../../src/bulk/rowCells';
import { testJob } from '../support/job';
import { MemorySheet } from '../support/platform';

const WIDTH = 5;
const HEADER = ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'];
const url = (n: number) => `https://network.com/in/p${n}`;

/** A sheet whose row count the test sets, as a person inserting or deleting rows changes it. */
class SizedSheet extends MemorySheet {
  rowCount = 100;
  maxRows(): number {
    return this.rowCount;
  }
  insertRowsBefore(row: number, count: number): void {
    this.rows.splice(row - 1, 0, ...Array.from({ length: count }, () => ['']));
    this.rowCount += count;
  }
  deleteRows(row: number, count: number): void {
    this.rows.splice(row - 1, count);
    this.rowCount -= count;
  }
}

/** Column B holds the URLs of rows 2..9 under a header; the results go into C:F. */
function world(): { sheet: SizedSheet; job: Job } {
  const rows: unknown[][] = [['Name', ...HEADER]];
  for (let n = 2; n <= 9; n++) rows.push([`person ${n}`, url(n), '', '', '', '']);
  const sheet = new SizedSheet(rows, { columns: 10 });
  const job = testJob('running', {
    urlColumn: 2,
    outputColumn: 3,
    firstRow: 2,
    lastRow: 9,
    cursor: 5,
    maxRows: 100,
    maxColumns: 10,
    headerTexts: HEADER.map(cellHash),
  });
  noteEnds(job, sheet);
  return { sheet, job };
}

function insertColumnsBefore(sheet: MemorySheet, column: number, count: number): void {
  sheet.insertColumnsAfter(column - 1, count);
}

describe('relocate: columns', () => {
  it('leaves the job where it is when nothing changed', () => {
    const { sheet, job } = world();
    const before = { ...job };
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toEqual(before);
  });

  it('follows a column inserted left of the URLs', () => {
    const { sheet, job } = world();
    insertColumnsBefore(sheet, 1, 1);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ urlColumn: 3, outputColumn: 4, maxColumns: 11 });
  });

  it('stays where it is when the column was inserted right of its columns', () => {
    const { sheet, job } = world();
    insertColumnsBefore(sheet, 8, 2);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ urlColumn: 2, outputColumn: 3, maxColumns: 12 });
  });

  it('refuses to write anywhere when a column was inserted among its output columns', () => {
    const { sheet, job } = world();
    insertColumnsBefore(sheet, 4, 1);
    expect(relocate(job, sheet, WIDTH)).toBe(false);
    expect(job).toMatchObject({ urlColumn: 2, outputColumn: 3, maxColumns: 10 });
  });

  it('refuses when the columns moved and the header cannot tell where (untitled output columns)', () => {
    const { sheet, job } = world();
    job.headerTexts = ['Profile', '', '', '', ''].map(cellHash);
    insertColumnsBefore(sheet, 1, 1);
    expect(relocate(job, sheet, WIDTH)).toBe(false);
  });

  it('refuses when the columns moved and the job has no header row', () => {
    const { sheet, job } = world();
    job.headerRow = null;
    job.headerTexts = null;
    insertColumnsBefore(sheet, 1, 1);
    expect(relocate(job, sheet, WIDTH)).toBe(false);
  });
});

describe('relocate: rows', () => {
  it('moves everything with rows inserted above the job', () => {
    const { sheet, job } = world();
    sheet.insertRowsBefore(1, 3);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ headerRow: 4, firstRow: 5, lastRow: 12, cursor: 8, maxRows: 103 });
  });

  it('moves everything with rows deleted above the job', () => {
    const { sheet, job } = world();
    job.headerRow = null;
    sheet.deleteRows(1, 1);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ firstRow: 1, lastRow: 8, cursor: 4, maxRows: 99 });
  });

  it('grows the job with rows inserted inside it, so none is skipped', () => {
    const { sheet, job } = world();
    sheet.insertRowsBefore(4, 2);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ firstRow: 2, lastRow: 11, cursor: 5, maxRows: 102 });
  });

  it('shrinks the job with rows deleted inside it, its cursor within it', () => {
    const { sheet, job } = world();
    job.cursor = 9;
    sheet.deleteRows(5, 3);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ firstRow: 2, lastRow: 6, cursor: 7 });
  });

  it('stays where it is when rows changed below it', () => {
    const { sheet, job } = world();
    sheet.insertRowsBefore(20, 5);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    expect(job).toMatchObject({ firstRow: 2, lastRow: 9, cursor: 5, maxRows: 105 });
  });

  it('keeps rows rather than skip them when the ends were edited too (a sort in the same pause)', () => {
    const { sheet, job } = world();
    sheet.rows[1][1] = url(99);
    sheet.rows[8][1] = url(98);
    sheet.insertRowsBefore(1, 1);
    expect(relocate(job, sheet, WIDTH)).toBe(true);
    // The job cannot tell the rows moved: it keeps its first row and takes one row more at its end.
    expect(job).toMatchObject({ firstRow: 2, lastRow: 10, cursor: 5 });
  });
});

describe('noteEnds', () => {
  it('notes the URL cells at both ends of the job as the slice leaves them', () => {
    const { sheet, job } = world();
    sheet.rows[1][1] = url(50);
    noteEnds(job, sheet);
    expect(job.topValue).toBe(cellHash(url(50)));
    expect(job.bottomValue).toBe(cellHash(url(9)));
  });

  it('reads nothing for a job without rows', () => {
    const { sheet, job } = world();
    job.lastRow = job.firstRow - 1;
    const reads = sheet.reads;
    noteEnds(job, sheet);
    expect(sheet.reads).toBe(reads);
  });
});
