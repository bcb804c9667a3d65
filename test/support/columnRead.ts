/** A bulk run's read of its URL column, for tests. */
import type { ColumnRead } from '../../src/bulk/placement';

/** A read of column A of sheet "Leads": `rows` start at the URL cell, under `header` (null: no header row). */
export function columnRead(
  rows: unknown[][],
  header: unknown[] | null = ['Profile'],
  maxColumns = 26,
): ColumnRead {
  return {
    sheetName: 'Leads',
    urlColumn: 1,
    maxColumns,
    headerRow: header ? 1 : null,
    firstRow: header ? 2 : 1,
    lastRow: (header ? 1 : 0) + rows.length,
    header,
    rows,
  };
}
