/** The credits log's sheet over its port: appended to holding the document lock. */
import { CREDITS_LOG_GROW_ROWS } from '../core/limits';
import type { CreditsLogSheet, HiddenSheet, HiddenSheetRows } from '../core/ports';
import { CREDITS_COLUMNS, CREDITS_FIRST_ROW, OUTCOME_COLUMN } from './credits';

export type CreditsLog = Omit<CreditsLogSheet, 'createExport' | 'writeExport'>;

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

function logBlock(sheet: HiddenSheetRows, column: number, columns: number): unknown[][] {
  const last = sheet.lastRow();
  if (last < CREDITS_FIRST_ROW) return [];
  return sheet.values({ row: CREDITS_FIRST_ROW, column, rows: last - CREDITS_FIRST_ROW + 1, columns });
}

function appenderOn(hidden: HiddenSheet): (rows: string[][]) => void {
  /** As last seen (it only grows): a batch's append costs its last row and one write. */
  let known: { sheet: HiddenSheetRows; maxRows: number } | null = null;

  const append = (rows: string[][]) => {
    if (!known) {
      const sheet = hidden.findOrCreate();
      known = { sheet, maxRows: sheet.maxRows() };
    }
    const { sheet } = known;
    const first = Math.max(CREDITS_FIRST_ROW, sheet.lastRow() + 1);
    const last = first + rows.length - 1;
    // Another execution may have grown it.
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
      // Deleted or changed meanwhile: look it up (or create it) again, once.
      known = null;
      append(rows);
    }
  };
}
