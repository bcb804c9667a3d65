/** A bulk run's read of its URL column, for tests. */
import type { ColumnRead } from '../../src/bulk/placement';

/**
 * A read of column A of sheet "Leads": `rows` start at the URL cell, under `header` (null: no header row). No cell
 * beside the URLs is the add-on's unless `owned` says so (see `owning`).
 */
export function columnRead(
  rows: unknown[][],
  header: unknown[] | null = ['Profile'],
  maxColumns = 26,
  owned: ColumnRead['owned'] = new Map(),
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
    owned,
  };
}

/**
 * The read with every row of it owned by a recorded block of the add-on whose output starts at `column` (by default
 * beside the URLs): the cells an earlier run wrote there.
 */
export function owning(read: ColumnRead, column = read.urlColumn + 1, width = 4): ColumnRead {
  const owned = new Map(read.owned);
  owned.set(column, [...(owned.get(column) ?? []), [read.firstRow, read.lastRow, width]]);
  return { ...read, owned };
}
