/** "Freeze results": =FINDEMAIL formulas in the selection become their values. */
import { columnNumber } from '../core/a1';
import { reinterpretedBySheets } from '../core/cells';
import type { Platform } from '../core/ports';
import type { CellBlock, SheetPort } from '../core/sheet';

export const USES_FINDEMAIL = /\bFINDEMAIL\s*\(/i;
/** `=FINDEMAIL(ref)` or `=FINDEMAIL(ref, "fields")`: the only forms whose result area the text tells. */
const PLAIN_CALL =
  /^=\s*FINDEMAIL\s*\(\s*(?:(?:'(?:[^']|'')+'|[\w.]+)!)?\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?\s*(?:,\s*"([^"]*)"\s*)?\)\s*$/i;
const SHOWS_ERROR = /^(?:#(?:ERROR!|REF!|N\/A|VALUE!|NAME\?|DIV\/0!|NUM!|NULL!)$|ERROR(?:: |$))/;
// What a cell reads while its custom function computes (getValues too): never a result to keep.
const COMPUTING = 'Loading...';

export function resultArea(formula: string, row: number, column: number): CellBlock | undefined {
  const call = PLAIN_CALL.exec(formula.trim());
  if (!call) return formula.includes(':') ? undefined : { row, column, rows: 1, columns: 1 };
  const rows = call[4] ? Math.abs(Number(call[4]) - Number(call[2])) + 1 : 1;
  const width = call[3] ? Math.abs(columnNumber(call[3]) - columnNumber(call[1])) + 1 : 1;
  const fields = call[5] === undefined ? 0 : call[5].split(',').filter((f) => f.trim() !== '').length;
  return { row, column, rows, columns: fields > 0 ? fields : width };
}

/** The formulas using FINDEMAIL of `formulas` (read from `top`, `left`), with `area` when the text tells it. */
export function findEmailCells(formulas: string[][], top: number, left: number) {
  const cells: Array<{ row: number; column: number; formula: string; area?: CellBlock }> = [];
  for (let r = 0; r < formulas.length; r++)
    for (let c = 0; c < formulas[r].length; c++) {
      const formula = formulas[r][c];
      const [row, column] = [top + r, left + c];
      if (formula && USES_FINDEMAIL.test(formula))
        cells.push({ row, column, formula, area: resultArea(formula, row, column) });
    }
  return cells;
}

interface Frozen {
  area: CellBlock;
  values: unknown[][];
}

export function freezeResults(platform: Platform): string {
  const selection = platform.spreadsheet().selection();
  if (!selection)
    throw new Error('Select the cells with =FINDEMAIL formulas (and their results), then try again.');
  const { sheet, block: selected } = selection;
  const { row: top, column: left } = selected;
  const formulas = sheet.formulas(selected);
  const cells = findEmailCells(formulas, top, left);
  if (cells.length === 0) return 'No =FINDEMAIL formulas in the selection.';
  const areas = cells.flatMap(({ area }) => area ?? []);
  // One read covering every result area, even past the selection.
  const below = Math.max(top + formulas.length, ...areas.map((area) => area.row + area.rows));
  const beyond = Math.max(
    left + (formulas[0]?.length ?? 1),
    ...areas.map((area) => area.column + area.columns),
  );
  const values =
    areas.length > 0
      ? sheet.values({ row: top, column: left, rows: below - top, columns: beyond - left })
      : [];
  const valueAt = (row: number, col: number): unknown => values[row - top]?.[col - left] ?? '';
  const frozen: Frozen[] = [];
  const kept = { withErrors: 0, computing: 0 };
  for (const area of areas) {
    const block = Array.from({ length: area.rows }, (_, r) =>
      Array.from({ length: area.columns }, (_, c) => valueAt(area.row + r, area.column + c)),
    );
    const shown = block.flat();
    // Any cell of the area: a range result still computing may show its old spill below a Loading... anchor.
    if (shown.includes(COMPUTING)) kept.computing++;
    else if (shown.some((v) => typeof v === 'string' && SHOWS_ERROR.test(v))) kept.withErrors++;
    else frozen.push({ area, values: block });
  }
  if (frozen.length > 0) writeFrozen(sheet, frozen);
  return summary(frozen.length, kept.withErrors, kept.computing, cells.length - areas.length);
}

/** Plain text where Sheets would read values as something else. */
function writeFrozen(sheet: SheetPort, frozen: Frozen[]): void {
  const asText: CellBlock[] = [];
  for (const { area, values: block } of frozen)
    for (let r = 0; r < block.length; r++)
      for (let c = 0; c < block[r].length; c++)
        if (reinterpretedBySheets(block[r][c]))
          asText.push({ row: area.row + r, column: area.column + c, rows: 1, columns: 1 });
  if (asText.length) sheet.formatAsText(asText);
  for (const run of mergeRuns(frozen)) sheet.write(run.area.row, run.area.column, run.values);
}

function summary(frozen: number, withErrors: number, computing: number, unknownShape: number): string {
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

/** Vertically adjacent areas of the same columns, for one setValues each. */
function mergeRuns(frozen: Frozen[]): Frozen[] {
  const sorted = frozen.slice().sort((a, b) => a.area.column - b.area.column || a.area.row - b.area.row);
  const runs: Frozen[] = [];
  for (const item of sorted) {
    const last = runs[runs.length - 1];
    if (
      last &&
      last.area.column === item.area.column &&
      last.area.columns === item.area.columns &&
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
