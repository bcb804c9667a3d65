/**
 * Where a bulk run's results go: the add-on's own (or empty) columns beside the URLs, new columns inserted beside
 * them, the first empty columns further right, or the add-on's columns extended by the extra fields. Pure: computed
 * from one read of the column (the URL cell and every cell right of it).
 */

import type { Placement, PlacementKind } from '../api';
import { columnLetters } from '../core/a1';
import { outputHeaders } from '../core/cells';
import { countText } from '../core/text';
import { isBlankCell } from '../core/url';
import { type OwnedRows, ownedColumns } from './blocks';
import { isBlank } from './rowCells';

/** One read of the column: the header row and the URL rows, each from the URL cell to the last column read. */
export interface ColumnRead {
  sheetName: string;
  urlColumn: number;
  /** The sheet's column count (getMaxColumns). */
  maxColumns: number;
  headerRow: number | null;
  firstRow: number;
  lastRow: number;
  /** The header row's cells (URL cell first), or null. */
  header: unknown[] | null;
  /** Rows firstRow..lastRow, URL cell first. Shorter rows read as blank beyond their end. */
  rows: unknown[][];
  /**
   * The rows the add-on's recorded blocks own beside the URL column, by the first output column (src/bulk/blocks.ts):
   * the only cells of the person's sheet a run may write over.
   */
  owned: ReadonlyMap<number, readonly OwnedRows[]>;
}

/** Columns `first`..`first + count - 1` as Sheets names them ("B:D"). */
function span(first: number, count: number): string {
  return `${columnLetters(first)}:${columnLetters(first + count - 1)}`;
}

/** The cells of a row at `offset` (from the URL cell) for `width` columns, blank beyond the row's end. */
export function cellsAt(row: unknown[] | null, offset: number, width: number): unknown[] {
  const cells: unknown[] = [];
  for (let index = 0; index < width; index++) cells.push(row?.[offset + index] ?? '');
  return cells;
}

/** The output block at `offset`: the header row's cells first (when there is one), then the URL rows'. */
function blockAt(read: ColumnRead, offset: number, width: number): unknown[][] {
  const rows = read.rows.map((row) => cellsAt(row, offset, width));
  return read.header ? [cellsAt(read.header, offset, width), ...rows] : rows;
}

function columnsEmpty(block: unknown[][]): boolean {
  return block.every((row) => row.every(isBlank));
}

/**
 * The `width` columns at `offset` take a run's results: every URL row's cells there are empty or the add-on's own (a
 * recorded block's, src/bulk/blocks.ts), and the header's cells empty or the add-on's titles.
 */
export function canReuse(read: ColumnRead, offset: number, width: number): boolean {
  const owned = read.owned.get(read.urlColumn + offset) ?? [];
  const titles = outputHeaders(width > outputHeaders(false).length);
  const header = read.header ? cellsAt(read.header, offset, width) : [];
  if (!header.every((cell, index) => isBlank(cell) || cell === titles[index])) return false;
  // A row without a URL is never written: whatever its cells hold stays.
  return read.rows.every(
    (row, index) =>
      isBlankCell(row[0]) ||
      cellsAt(row, offset, width)
        .slice(ownedColumns(owned, read.firstRow + index))
        .every(isBlank),
  );
}

/** Where the results can go, from the cells right of the URLs. */
export function placementOptions(read: ColumnRead, extraFields: boolean): Placement[] {
  const width = outputHeaders(extraFields).length;
  const beside = read.urlColumn + 1;
  // Columns past the sheet's right edge read as empty: the sheet grows at its end rather than skipping a column.
  if (canReuse(read, 1, width)) return [reuse(read, width, false)];
  if (extraFields) {
    // The add-on's own four columns stay; only Account type and Name are added.
    const base = outputHeaders(false).length;
    if (!columnsEmpty(blockAt(read, 1, base)) && canReuse(read, 1, base)) {
      const after = read.urlColumn + base;
      if (columnsEmpty(blockAt(read, 1 + base, width - base))) return [reuse(read, width, true)];
      const count = width - base;
      return [
        {
          kind: 'extend',
          outputColumn: beside,
          insertAfter: after,
          insertCount: count,
          columns: span(beside, width),
          effect: `Your results stay in ${span(beside, base)}; ${countText(count, 'column')} for Account type and Name are inserted after ${columnLetters(after)}, so ${columnLetters(after + 1)} and every column right of it move ${count} to the right (on every row of the sheet).`,
        },
      ];
    }
  }
  return [insertBeside(read, width), firstFreeRight(read, width)];
}

/** The columns beside the URLs, empty or the add-on's own; those past the sheet's last column are added at its end. */
function reuse(read: ColumnRead, width: number, adding: boolean): Placement {
  const column = read.urlColumn + 1;
  const missing = columnsPastEdge(read, column, width);
  const added = missing > 0 ? `${countText(missing, 'column')} added at the sheet's end` : '';
  return {
    kind: 'reuse',
    outputColumn: column,
    insertAfter: missing > 0 ? read.maxColumns : null,
    insertCount: missing,
    columns: span(column, width),
    effect: adding
      ? `Results go into the add-on's columns ${span(column, width)} (Account type and Name are added in empty columns${added ? `; ${added}` : ''}). Nothing moves.`
      : `Results go into ${span(column, width)} beside the URLs${added ? ` (${added})` : ''}. Nothing moves.`,
  };
}

/** How many of the `width` columns from `column` lie past the sheet's last column. */
function columnsPastEdge(read: ColumnRead, column: number, width: number): number {
  return Math.max(0, column + width - 1 - read.maxColumns);
}

function insertBeside(read: ColumnRead, width: number): Placement {
  const beside = read.urlColumn + 1;
  return {
    kind: 'insert',
    outputColumn: beside,
    insertAfter: read.urlColumn,
    insertCount: width,
    columns: span(beside, width),
    effect: `${countText(width, 'column')} are inserted after ${columnLetters(read.urlColumn)}: ${columnLetters(beside)} and every column right of it move ${width} to the right, on every row of the sheet (other tables too).`,
  };
}

/** The first `width` adjacent columns right of the URLs that are empty (or the add-on's own) in the run's rows. */
function firstFreeRight(read: ColumnRead, width: number): Placement {
  let offset = 2;
  while (read.urlColumn + offset <= read.maxColumns && !canReuse(read, offset, width)) offset++;
  const column = read.urlColumn + offset;
  const missing = columnsPastEdge(read, column, width);
  return {
    kind: 'right',
    outputColumn: column,
    insertAfter: missing > 0 ? read.maxColumns : null,
    insertCount: missing,
    columns: span(column, width),
    effect:
      missing > 0
        ? `Results go into ${span(column, width)}, after the sheet's last column (${countText(missing, 'column')} added at the end). Nothing moves.`
        : `Results go into the empty columns ${span(column, width)}. Nothing moves.`,
  };
}

/**
 * The placement a run uses: the one chosen in the sidebar (or the first offered). A retry works where the results
 * are: the add-on's columns beside the URLs or further right, never new ones.
 */
export function choosePlacement(placements: Placement[], retry: boolean, chosen?: PlacementKind): Placement {
  const found = retry
    ? placements.find((candidate) => candidate.kind !== 'insert')
    : placements.find((candidate) => candidate.kind === chosen);
  return found ?? placements[0];
}
