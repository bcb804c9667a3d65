/**
 * The slips a person must never read in a note, a cell or a sidebar message: a doubled full stop,
 * a doubled word, an internal address (the sandbox's 127.0.0.1, the service's path), the service's words quoted
 * twice, or "recalculate" (Sheets has no recalculate for custom functions). test/support/harness.ts scans every
 * world's cells and every answer of its server functions with these, and fails the test on a slip.
 */
import type { SpreadsheetModel } from '../../emulator';
import { RESULTS_SHEET } from '../../src/core/propertyNames';

const CHECKS: Array<[string, RegExp]> = [
  ['a doubled full stop', /(?<![.])\.\.(?![.])/],
  ['a doubled word', /\b([A-Za-z]{2,})\s+\1\b/i],
  // The sandbox's (127.0.0.1) or any local address, and the service's own path.
  ['an internal address', /\b(?:https?:\/\/)?(?:127\.0\.0\.1|localhost):\d+|network_finder/i],
  ['"recalculate"', /recalculat/i],
  ["the service's words quoted twice", /The service said:[\s\S]*The service said:/],
];

/** What is wrong with `text`, as "a doubled word in: …" lines (none for a clean text). */
export function slipsIn(text: string): string[] {
  return CHECKS.filter(([, pattern]) => pattern.test(text)).map(([what]) => `${what} in: ${text}`);
}

/** Every string in a value a server function returned (progress, plan, summary, messages), recursively. */
export function stringsIn(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 6) return found;
  if (typeof value === 'string') found.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found, depth + 1);
  else if (value && typeof value === 'object')
    for (const item of Object.values(value as Record<string, unknown>)) stringsIn(item, found, depth + 1);
  return found;
}

/** Every text of the spreadsheet's cells a person reads (values, notes, formula errors); not the result store's. */
export function cellTexts(ss: SpreadsheetModel): string[] {
  const texts: string[] = [];
  // The result store's sheet holds encoded records, not words for a person.
  for (const sheet of ss.sheets.filter((candidate) => candidate.name !== RESULTS_SHEET)) {
    for (const { cell } of sheet.allCells()) {
      if (typeof cell.value === 'string') texts.push(cell.value);
      if (cell.note) texts.push(cell.note);
      if (cell.error) texts.push(cell.error);
    }
  }
  return texts;
}
