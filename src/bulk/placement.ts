/** Where a bulk run's results go, from one read of the column (the URL cell and every cell right of it). Pure. */
import type { Placement, PlacementKind } from '../api';
import { columnLetters } from '../core/a1';
import { outputHeaders } from '../core/cells';
import { countText } from '../core/text';
import { isBlankCell } from '../core/url';
import { type OwnedRows, ownedColumns } from './blocks';
import { isBlank } from './rowCells';

/** Each row from the URL cell to the last column read. */
export interface ColumnRead {
  sheetName: string;
  urlColumn: number;
  maxColumns: number;
  headerRow: number | null;
  firstRow: number;
  lastRow: number;
  header: unknown[] | null;
  /** Shorter rows read as blank beyond their end. */
  rows: unknown[][];
  /** What the add-on's blocks own, by first output column (./blocks.ts): the only cells a run may write over. */
  owned: ReadonlyMap<number, readonly OwnedRows[]>;
}

/** "B:D" */
function span(first: number, count: number): string {
  return `${columnLetters(first)}:${columnLetters(first + count - 1)}`;
}

export function cellsAt(row: unknown[] | null, offset: number, width: number): unknown[] {
  const cells: unknown[] = [];
  for (let index = 0; index < width; index++) cells.push(row?.[offset + index] ?? '');
  return cells;
}

/** Those columns empty in the header and in every row. */
function emptyAt(read: ColumnRead, offset: number, width: number): boolean {
  return [read.header, ...read.rows].every((row) => cellsAt(row, offset, width).every(isBlank));
}

/** Every URL row's cells there empty or the add-on's own, and the header's empty or the add-on's titles. */
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

export function placementOptions(read: ColumnRead, extraFields: boolean): Placement[] {
  const width = outputHeaders(extraFields).length;
  const beside = read.urlColumn + 1;
  // Columns past the sheet's right edge read as empty: the sheet grows at its end rather than skipping a column.
  if (canReuse(read, 1, width)) return [reuse(read, width, false)];
  if (extraFields) {
    // The add-on's own four columns stay; only Account type and Name are added.
    const base = outputHeaders(false).length;
    if (!emptyAt(read, 1, base) && canReuse(read, 1, base)) {
      const after = read.urlColumn + base;
      if (emptyAt(read, 1 + base, width - base)) return [reuse(read, width, true)];
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

/** A retry works where the results are, never in new columns. */
export function choosePlacement(placements: Placement[], retry: boolean, chosen?: PlacementKind): Placement {
  const found = retry
    ? placements.find((candidate) => candidate.kind !== 'insert')
    : placements.find((candidate) => candidate.kind === chosen);
  return found ?? placements[0];
}
