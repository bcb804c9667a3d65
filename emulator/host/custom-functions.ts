/**
 * Custom functions: finding them in the bundle, parsing the formulas that call them, and evaluating those cells as
 * Sheets does — all at once, each in its own CUSTOM_FUNCTION execution, the result (or `#ERROR!`) written back.
 */
import { readFileSync } from 'node:fs';
import { mapBox, setCellError, setLoading, writeResult } from '../model/cells';
import type { CellValue, SheetModel, SpreadsheetModel } from '../model/spreadsheet';
import type { ExecutionResult, RecalcReport, RunOptions } from '../types';
import { scriptFiles } from './scripts';

/** What the evaluator needs from the environment. */
export interface CustomFunctionHost {
  readonly distDir: string;
  spreadsheet(id: string): SpreadsheetModel;
  execute(fn: string, args: unknown[], options: RunOptions): Promise<ExecutionResult>;
}

export interface ParsedCall {
  name: string;
  args: Array<{ ref: string } | { literal: CellValue }>;
}

export function parseFormulaCall(formula: string): ParsedCall | undefined {
  const match = /^=\s*([A-Za-z_][\w.]*)\s*\(([\s\S]*)\)\s*$/.exec(formula);
  if (!match) return undefined;
  const args: ParsedCall['args'] = [];
  const text = match[2].trim();
  if (text === '') return { name: match[1].toUpperCase(), args };
  const token =
    /\s*(?:"((?:[^"]|"")*)"|(-?\d+(?:\.\d+)?)|(TRUE|FALSE)|((?:'(?:[^']|'')+'!|[A-Za-z_][\w.]*!)?\$?[A-Za-z]{1,3}\$?\d*(?::\$?[A-Za-z]{1,3}\$?\d*)?))\s*(,|$)/giy;
  let index = 0;
  while (index < text.length) {
    token.lastIndex = index;
    const part = token.exec(text);
    if (!part) return undefined;
    if (part[1] !== undefined) args.push({ literal: part[1].replace(/""/g, '"') });
    else if (part[2] !== undefined) args.push({ literal: Number(part[2]) });
    else if (part[3] !== undefined) args.push({ literal: part[3].toUpperCase() === 'TRUE' });
    else args.push({ ref: part[4].replace(/\$/g, '') });
    index = token.lastIndex;
    if (part[5] === '') break;
  }
  return { name: match[1].toUpperCase(), args };
}

/** The `@customfunction` functions of a bundle, from its top-level JSDoc. */
export function customFunctionNames(code: string): string[] {
  const names: string[] = [];
  const pattern = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*function\s+([A-Za-z_$][\w$]*)\s*\(/g;
  for (let m = pattern.exec(code); m; m = pattern.exec(code))
    if (/@customfunction\b/.test(m[1])) names.push(m[2]);
  return names;
}

export class CustomFunctionEvaluator {
  /** The bundle's custom functions: upper-case name (as a formula may spell it) -> the name in Code.js. */
  private names?: Map<string, string>;

  constructor(private readonly host: CustomFunctionHost) {}

  private customFunctions(): Map<string, string> {
    if (!this.names) {
      const code = scriptFiles(this.host.distDir)
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
      this.names = new Map(customFunctionNames(code).map((name) => [name.toUpperCase(), name]));
    }
    return this.names;
  }

  /** Evaluates the custom-function formulas of a spreadsheet (all, as on opening it, or the cells given). */
  async recalculate(
    spreadsheetId: string,
    options: { cells?: Array<{ sheet?: string; a1: string }>; user?: string } = {},
  ): Promise<RecalcReport> {
    const ss = this.host.spreadsheet(spreadsheetId);
    const wanted = options.cells?.map((cell) => {
      const named = cell.sheet ? ss.sheetByName(cell.sheet) : undefined;
      const { sheet, box } = ss.resolve(cell.a1, named ?? ss.activeSheet());
      return `${sheet.id}:${box.row}:${box.col}`;
    });
    const jobs: Array<Promise<ExecutionResult | undefined>> = [];
    for (const sheet of ss.sheets) {
      for (const { row, col, cell } of sheet.formulaCells()) {
        if (wanted && !wanted.includes(`${sheet.id}:${row}:${col}`)) continue;
        const call = parseFormulaCall(cell.formula ?? '');
        if (!call || !this.customFunctions().has(call.name)) continue;
        jobs.push(this.evaluateCell(ss, sheet, row, col, call, options.user));
      }
    }
    const results = (await Promise.all(jobs)).filter((r): r is ExecutionResult => r !== undefined);
    return { evaluated: results.length, results };
  }

  private async evaluateCell(
    ss: SpreadsheetModel,
    sheet: SheetModel,
    row: number,
    col: number,
    call: ParsedCall,
    viewer?: string,
  ): Promise<ExecutionResult | undefined> {
    const formula = sheet.get(row, col)?.formula;
    let args: unknown[];
    try {
      args = call.args.map((arg) => ('literal' in arg ? arg.literal : referenceValue(ss, sheet, arg.ref)));
    } catch {
      setCellError(sheet, row, col, '#REF!', 'Formula parse error.');
      return undefined;
    }
    // While it computes, the cell reads "Loading..." (getValues and getDisplayValues alike), as in Sheets.
    setLoading(sheet, row, col);
    const result = await this.host.execute(this.customFunctions().get(call.name) ?? call.name, args, {
      user: viewer ?? ss.owner,
      spreadsheetId: ss.id,
      authMode: 'CUSTOM_FUNCTION',
    });
    // The formula may have been removed or moved meanwhile (a person kept editing): then the result is dropped.
    if (sheet.get(row, col)?.formula !== formula) return result;
    if (!result.ok) {
      setCellError(sheet, row, col, '#ERROR!', result.error?.message ?? 'Error');
    } else {
      writeResult(sheet, row, col, result.value);
    }
    return result;
  }
}

/** A custom function's argument: a cell's value, or a range's values as a 2-D array. */
function referenceValue(ss: SpreadsheetModel, sheet: SheetModel, ref: string): unknown {
  const { sheet: target, box } = ss.resolve(ref, sheet);
  const values = mapBox(box, (r, c) => target.get(r, c)?.value ?? '');
  return box.numRows === 1 && box.numCols === 1 && !ref.includes(':') ? values[0][0] : values;
}
