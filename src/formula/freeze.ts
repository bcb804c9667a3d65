/** "Freeze results": replaces =FINDEMAIL formulas in the selection with their values, so they never run again. */
import { activeRange } from '../adapters/spreadsheet';
import { reinterpretedBySheets } from '../core/cells';

export const USES_FINDEMAIL = /\bFINDEMAIL\s*\(/i;
/** `=FINDEMAIL(ref)` or `=FINDEMAIL(ref, "fields")`: the only form whose result area follows from the text. */
const PLAIN_CALL =
  /^=\s*FINDEMAIL\s*\(\s*(?:(?:'(?:[^']|'')+'|[\w.]+)!)?\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?\s*(?:,\s*"([^"]*)"\s*)?\)\s*$/i;
// Sheets' cell errors (#ERROR!, #REF!, …) and the function's own row errors: such formulas are left to run again.
const SHOWS_ERROR = /^(?:#(?:ERROR!|REF!|N\/A|VALUE!|NAME\?|DIV\/0!|NUM!|NULL!)$|ERROR(?:: |$))/;
// What a cell reads while its custom function computes (getValues too): never a result to keep.
const COMPUTING = 'Loading...';

export interface Area {
  row: number;
  col: number;
  rows: number;
  cols: number;
}

function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

function columnLetters(col: number): string {
  let letters = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The cells a formula's result fills (its spill), or undefined when the text does not say. */
export function resultArea(formula: string, row: number, col: number): Area | undefined {
  const call = PLAIN_CALL.exec(formula.trim());
  if (!call) return formula.includes(':') ? undefined : { row, col, rows: 1, cols: 1 };
  const rows = call[4] ? Math.abs(Number(call[4]) - Number(call[2])) + 1 : 1;
  const width = call[3] ? Math.abs(columnNumber(call[3]) - columnNumber(call[1])) + 1 : 1;
  const fields = call[5] === undefined ? 0 : call[5].split(',').filter((f) => f.trim() !== '').length;
  return { row, col, rows, cols: fields > 0 ? fields : width };
}

export function freezeResults(): string {
  const range = activeRange();
  if (!range)
    throw new Error('Select the cells with =FINDEMAIL formulas (and their results), then try again.');
  const sheet = range.getSheet();
  const top = range.getRow();
  const left = range.getColumn();
  const formulas = range.getFormulas();
  const candidates: Array<{ area: Area; formula: string }> = [];
  let unknownShape = 0;
  for (let r = 0; r < formulas.length; r++) {
    for (let c = 0; c < formulas[r].length; c++) {
      const formula = formulas[r][c];
      if (!formula || !USES_FINDEMAIL.test(formula)) continue; // the user's other formulas stay as they are
      const area = resultArea(formula, top + r, left + c);
      if (area) candidates.push({ area, formula });
      else unknownShape++;
    }
  }
  if (candidates.length === 0 && unknownShape === 0) return 'No =FINDEMAIL formulas in the selection.';

  // One read covering the selection and every result area, even where a result spills past the selection.
  const bottom = Math.max(top + formulas.length, ...candidates.map(({ area }) => area.row + area.rows)) - 1;
  const right =
    Math.max(left + (formulas[0]?.length ?? 1), ...candidates.map(({ area }) => area.col + area.cols)) - 1;
  const values =
    candidates.length > 0 ? sheet.getRange(top, left, bottom - top + 1, right - left + 1).getValues() : [];
  const valueAt = (row: number, col: number): unknown => values[row - top]?.[col - left] ?? '';

  const frozen: Array<{ area: Area; values: unknown[][] }> = [];
  const kept = { withErrors: 0, computing: 0 };
  for (const { area } of candidates) {
    const block: unknown[][] = [];
    for (let r = 0; r < area.rows; r++) {
      const line: unknown[] = [];
      for (let c = 0; c < area.cols; c++) line.push(valueAt(area.row + r, area.col + c));
      block.push(line);
    }
    const cells = block.flat();
    // Any cell of the area: a range result still computing may show its old spill below a Loading... anchor.
    if (cells.includes(COMPUTING)) kept.computing++;
    else if (cells.some((v) => typeof v === 'string' && SHOWS_ERROR.test(v))) kept.withErrors++;
    else frozen.push({ area, values: block });
  }

  if (frozen.length > 0) writeFrozen(sheet, frozen);

  return summary(frozen.length, kept, unknownShape);
}

/** Values as plain text where Sheets would read them as something else, then one setValues per run of areas. */
function writeFrozen(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  frozen: Array<{ area: Area; values: unknown[][] }>,
): void {
  const asText: string[] = [];
  for (const { area, values: block } of frozen) {
    for (let r = 0; r < block.length; r++) {
      for (let c = 0; c < block[r].length; c++) {
        if (reinterpretedBySheets(block[r][c])) asText.push(`${columnLetters(area.col + c)}${area.row + r}`);
      }
    }
  }
  if (asText.length) sheet.getRangeList(asText).setNumberFormat('@');
  for (const run of mergeRuns(frozen))
    sheet.getRange(run.area.row, run.area.col, run.area.rows, run.area.cols).setValues(run.values);
}

function summary(
  frozen: number,
  { withErrors, computing }: { withErrors: number; computing: number },
  unknownShape: number,
): string {
  const parts = [
    frozen > 0
      ? `Froze ${frozen} =FINDEMAIL formula${frozen === 1 ? '' : 's'}: the results are now plain values and will not run again.`
      : 'No =FINDEMAIL formula was frozen.',
  ];
  if (withErrors > 0)
    parts.push(
      `${withErrors} formula${withErrors === 1 ? '' : 's'} showing an error ${withErrors === 1 ? 'was' : 'were'} left to run again.`,
    );
  if (computing > 0)
    parts.push(
      `${computing} formula${computing === 1 ? '' : 's'} still computing (Loading...) ${computing === 1 ? 'was' : 'were'} left as ${computing === 1 ? 'a formula' : 'formulas'}: freeze ${computing === 1 ? 'it' : 'them'} once ${computing === 1 ? 'it shows its' : 'they show their'} result.`,
    );
  if (unknownShape > 0)
    parts.push(
      `${unknownShape} formula${unknownShape === 1 ? '' : 's'} using FINDEMAIL inside other functions over a range ${unknownShape === 1 ? 'was' : 'were'} left; copy ${unknownShape === 1 ? 'its' : 'their'} results and use Paste special › Values only.`,
    );
  return parts.join(' ');
}

/** Vertically adjacent result areas of the same columns, written with one setValues each. */
function mergeRuns(
  frozen: Array<{ area: Area; values: unknown[][] }>,
): Array<{ area: Area; values: unknown[][] }> {
  const sorted = frozen.slice().sort((a, b) => a.area.col - b.area.col || a.area.row - b.area.row);
  const runs: Array<{ area: Area; values: unknown[][] }> = [];
  for (const item of sorted) {
    const last = runs[runs.length - 1];
    if (
      last &&
      last.area.col === item.area.col &&
      last.area.cols === item.area.cols &&
      last.area.row + last.area.rows === item.area.row
    ) {
      last.area.rows += item.area.rows;
      last.values.push(...item.values);
    } else {
      runs.push({ area: { ...item.area }, values: item.values.map((line) => line.slice()) });
    }
  }
  return runs;
}
