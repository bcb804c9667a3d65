/** A1 notation: parsing ranges, naming columns, and shifting the references inside formulas. */

export interface A1Range {
  sheetName?: string;
  row: number;
  col: number;
  /** Undefined for an open end (`A:A`, `A2:A`, `1:1`): up to the sheet's last row or column. */
  lastRow?: number;
  lastCol?: number;
}

export function columnName(column: number): string {
  let name = '';
  let n = column;
  while (n > 0) {
    const rest = (n - 1) % 26;
    name = String.fromCharCode(65 + rest) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

export function cellName(row: number, col: number): string {
  return `${columnName(col)}${row}`;
}

export function rangeName(row: number, col: number, numRows: number, numCols: number): string {
  const start = cellName(row, col);
  if (numRows === 1 && numCols === 1) return start;
  return `${start}:${cellName(row + numRows - 1, col + numCols - 1)}`;
}

const PART = /^\$?([A-Za-z]{1,3})?\$?(\d+)?$/;

/** Splits `Sheet1!A1:B2` / `'My sheet'!A1` into the sheet name and the range part. */
export function splitSheet(a1: string): { sheetName?: string; ref: string } {
  const text = a1.trim();
  const bang = text.lastIndexOf('!');
  if (bang < 0) return { ref: text };
  let sheetName = text.slice(0, bang);
  if (sheetName.startsWith("'") && sheetName.endsWith("'"))
    sheetName = sheetName.slice(1, -1).replace(/''/g, "'");
  return { sheetName, ref: text.slice(bang + 1) };
}

/** Parses A1 notation; returns undefined when it is not a range. */
export function parseA1(a1: string): A1Range | undefined {
  const { sheetName, ref } = splitSheet(a1);
  const [startText, endText, extra] = ref.split(':');
  if (extra !== undefined || !startText) return undefined;
  const start = PART.exec(startText);
  const end = endText === undefined ? start : PART.exec(endText);
  if (!start || !end) return undefined;
  const [, c1, r1] = start;
  const [, c2, r2] = end;
  if (!c1 && !r1) return undefined;
  if (endText === undefined) {
    if (!c1 || !r1) return undefined;
    const row = Number(r1);
    const col = columnNumber(c1);
    if (row < 1) return undefined;
    return { sheetName, row, col, lastRow: row, lastCol: col };
  }
  if (!c2 && !r2) return undefined;
  // Whole rows (1:3), whole columns (A:C), open-ended (A2:A).
  const range: A1Range = {
    sheetName,
    row: r1 ? Number(r1) : 1,
    col: c1 ? columnNumber(c1) : 1,
    lastRow: r2 ? Number(r2) : undefined,
    lastCol: c2 ? columnNumber(c2) : undefined,
  };
  if (range.row < 1 || range.lastRow === 0) return undefined;
  if (range.lastRow !== undefined && range.lastRow < range.row)
    [range.row, range.lastRow] = [range.lastRow, range.row];
  if (range.lastCol !== undefined && range.lastCol < range.col)
    [range.col, range.lastCol] = [range.lastCol, range.col];
  return range;
}

/** A reference in a formula: `A1`, `$A$1`, `Sheet1!A1:B3`, `'My sheet'!B2`. */
const REFERENCE =
  /((?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?(\$?)([A-Za-z]{1,3})(\$?)(\d+)(?::(\$?)([A-Za-z]{1,3})(\$?)(\d+))?(?![\w(])/g;

export interface ReferenceShift {
  /** Sheet the rows moved in; references to other sheets are left alone. */
  sheetName: string;
  /** The formula's own sheet (references without a sheet name are to it). */
  formulaSheet: string;
  /** New row for an old row, or undefined when the row was deleted. */
  mapRow(row: number): number | undefined;
  /** For a sort: relative references move with the formula's own row. */
  relativeDelta?: number;
}

/** One reference of a formula, in parts: `Sheet1!$A$2:B9` is sheetPart `Sheet1!`, then each end's `$`s, letters, row. */
interface ReferenceParts {
  sheetPart?: string;
  cAbs1: string;
  c1: string;
  rAbs1: string;
  r1: string;
  cAbs2?: string;
  c2?: string;
  rAbs2?: string;
  r2?: string;
}

/** Each reference of a formula (outside string literals) replaced by what `rewrite` returns for it. */
function rewriteReferences(formula: string, rewrite: (ref: ReferenceParts, match: string) => string): string {
  const pieces = formula.split(/("(?:[^"]|"")*")/);
  return pieces
    .map((piece, index) => {
      if (index % 2 === 1) return piece;
      return piece.replace(REFERENCE, (match, sheetPart: string | undefined, ...groups: string[]) => {
        const preceding = groups[groups.length - 2] as unknown as number;
        const whole = groups[groups.length - 1] as unknown as string;
        if (preceding > 0 && /[\w$]/.test(whole[preceding - 1])) return match;
        const [cAbs1, c1, rAbs1, r1, cAbs2, c2, rAbs2, r2] = groups;
        return rewrite({ sheetPart, cAbs1, c1, rAbs1, r1, cAbs2, c2, rAbs2, r2 }, match);
      });
    })
    .join('');
}

/** Rewrites row numbers of the references in a formula (outside string literals); a deleted row gives #REF!. */
export function shiftFormulaRows(formula: string, shift: ReferenceShift): string {
  return rewriteReferences(formula, (ref, match) => {
    const refSheet = ref.sheetPart ? splitSheet(`${ref.sheetPart}A1`).sheetName : shift.formulaSheet;
    if (refSheet !== shift.sheetName) return match;
    const move = (absolute: string, row: number): number | undefined => {
      if (shift.relativeDelta !== undefined) return absolute ? row : row + shift.relativeDelta;
      return shift.mapRow(row);
    };
    const n1 = move(ref.rAbs1, Number(ref.r1));
    const n2 = ref.r2 === undefined ? undefined : move(ref.rAbs2 ?? '', Number(ref.r2));
    if (n1 === undefined || n1 < 1 || (ref.r2 !== undefined && (n2 === undefined || n2 < 1))) return '#REF!';
    const first = `${ref.sheetPart ?? ''}${ref.cAbs1}${ref.c1}${ref.rAbs1}${n1}`;
    return ref.r2 === undefined ? first : `${first}:${ref.cAbs2}${ref.c2}${ref.rAbs2}${n2}`;
  });
}

/**
 * A formula copied `rows` down and `cols` right (a paste, the fill handle, Ctrl+D, Ctrl+Enter): its relative
 * references move by as much and `$`-anchored parts stay; a reference moved off the sheet's top or left edge becomes
 * #REF!, as Sheets writes it. References to other sheets move alike; string literals are left alone.
 */
export function moveFormula(formula: string, rows: number, cols: number): string {
  if (rows === 0 && cols === 0) return formula;
  return rewriteReferences(formula, (ref) => {
    const part = (cAbs: string, letters: string, rAbs: string, row: string): string | undefined => {
      const col = cAbs ? columnNumber(letters) : columnNumber(letters) + cols;
      const line = rAbs ? Number(row) : Number(row) + rows;
      if (col < 1 || line < 1) return undefined;
      return `${cAbs}${columnName(col)}${rAbs}${line}`;
    };
    const first = part(ref.cAbs1, ref.c1, ref.rAbs1, ref.r1);
    const second = ref.r2 === undefined ? '' : part(ref.cAbs2 ?? '', ref.c2 ?? '', ref.rAbs2 ?? '', ref.r2);
    if (first === undefined || second === undefined) return '#REF!';
    return `${ref.sheetPart ?? ''}${first}${ref.r2 === undefined ? '' : `:${second}`}`;
  });
}
