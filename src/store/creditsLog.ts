/**
 * The credits log's sheet (layout: ./credits.ts) over its port: appended to holding the document lock, read in one
 * read of its rows.
 */
import { CREDITS_LOG_GROW_ROWS } from '../core/limits';
import { CREDITS_COLUMNS, CREDITS_FIRST_ROW, OUTCOME_COLUMN } from './credits';
import type { CreditsLog, HiddenSheet, HiddenSheetRows } from './ports';

export function creditsLogOn(hidden: HiddenSheet): CreditsLog {
  return {
    append: appenderOn(hidden),
    readRows: () => {
      try {
        const sheet = hidden.find();
        return sheet && logBlock(sheet, 1, CREDITS_COLUMNS);
      } catch {
        return null;
      }
    },
    lastRow: () => {
      const sheet = hidden.find();
      return sheet ? Math.max(1, sheet.lastRow()) : 0;
    },
    readRowsBetween: (first, last) => {
      const sheet = hidden.find();
      if (!sheet || last < first) return [];
      return sheet.values({ row: first, column: 1, rows: last - first + 1, columns: CREDITS_COLUMNS });
    },
    readOutcomes: () => {
      const sheet = hidden.find();
      return sheet && logBlock(sheet, OUTCOME_COLUMN, 1).map((row) => row[0]);
    },
  };
}

/** The log's rows below its header, `columns` columns from `column`, in one read. */
function logBlock(sheet: HiddenSheetRows, column: number, columns: number): unknown[][] {
  const last = sheet.lastRow();
  if (last < CREDITS_FIRST_ROW) return [];
  return sheet.values({ row: CREDITS_FIRST_ROW, column, rows: last - CREDITS_FIRST_ROW + 1, columns });
}

/** Appends rows at the log's end, creating the sheet when missing. */
function appenderOn(hidden: HiddenSheet): (rows: string[][]) => void {
  /**
   * The log sheet and its row count as this execution last saw them: a batch's append then costs its last row and
   * one write. The row count only grows (the add-on inserts rows, never deletes them): a stale one is read again
   * before rows are inserted.
   */
  let known: { sheet: HiddenSheetRows; maxRows: number } | null = null;

  const append = (rows: string[][]) => {
    if (!known) {
      const sheet = hidden.findOrCreate();
      known = { sheet, maxRows: sheet.maxRows() };
    }
    const { sheet } = known;
    const first = Math.max(CREDITS_FIRST_ROW, sheet.lastRow() + 1);
    const last = first + rows.length - 1;
    // Rows go in at the sheet's end only: read its size again first (another execution may have grown it).
    if (last > known.maxRows) known.maxRows = sheet.maxRows();
    const { maxRows } = known;
    if (last > maxRows) {
      const added = last - maxRows + CREDITS_LOG_GROW_ROWS;
      sheet.addRows(maxRows, added);
      known.maxRows = maxRows + added;
    }
    sheet.write(first, 1, rows);
  };

  return (rows) => {
    if (rows.length === 0) return;
    try {
      append(rows);
    } catch (error) {
      if (!known) throw error;
      // The sheet this execution knew was deleted or changed meanwhile: look it up (or create it) again, once.
      known = null;
      append(rows);
    }
  };
}
