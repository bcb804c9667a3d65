/**
 * Plain arithmetic formulas, as a person types them in Sheets: `=1+1`, `=(A2+3)*2/B4`, `=-2^2`, `=10%`,
 * `="a"&B1`. Numbers, "text", TRUE/FALSE, single-cell references, + - * / ^ & and unary minus, percent and
 * parentheses. Anything else (functions, ranges, comparisons) is not evaluated here: `parsePlainFormula` gives
 * undefined and the playground shows the formula as typed. The add-on's custom functions go through the
 * emulator's recalculation instead.
 */

import type { CellValue } from '../emulator';
import { parseA1 } from '../emulator';

export type FormulaError = '#DIV/0!' | '#VALUE!' | '#REF!' | '#NUM!';
export type FormulaResult = number | string | boolean | { error: FormulaError | string; message: string };

type Node =
  | { kind: 'number'; value: number }
  | { kind: 'text'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'ref'; row: number; col: number }
  | { kind: 'neg'; operand: Node }
  | { kind: 'percent'; operand: Node }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/' | '^' | '&'; left: Node; right: Node };

const TOKEN =
  /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|("(?:[^"]|"")*")|(\$?[A-Za-z]{1,3}\$?\d+)(?![\w(!:])|(TRUE|FALSE)(?![\w(])|([-+*/^&%()]))/iy;

function tokenize(text: string): string[] | undefined {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match || TOKEN.lastIndex === at) return undefined;
    tokens.push(match[0].trim());
  }
  return tokens;
}

/** The formula's syntax tree, or undefined when it is not a plain arithmetic formula. */
export function parsePlainFormula(formula: string): Node | undefined {
  if (!formula.startsWith('=')) return undefined;
  const tokens = tokenize(formula.slice(1));
  if (!tokens || tokens.length === 0) return undefined;
  let index = 0;
  const peek = () => tokens[index];
  const next = () => tokens[index++];

  // Precedence as in Sheets: & < + - < * / < ^ < unary minus < %.
  function concat(): Node | undefined {
    let left = additive();
    while (left && peek() === '&') {
      next();
      const right = additive();
      if (!right) return undefined;
      left = { kind: 'binary', op: '&', left, right };
    }
    return left;
  }
  function additive(): Node | undefined {
    let left = multiplicative();
    while (left && (peek() === '+' || peek() === '-')) {
      const op = next() as '+' | '-';
      const right = multiplicative();
      if (!right) return undefined;
      left = { kind: 'binary', op, left, right };
    }
    return left;
  }
  function multiplicative(): Node | undefined {
    let left = power();
    while (left && (peek() === '*' || peek() === '/')) {
      const op = next() as '*' | '/';
      const right = power();
      if (!right) return undefined;
      left = { kind: 'binary', op, left, right };
    }
    return left;
  }
  function power(): Node | undefined {
    let left = unary();
    while (left && peek() === '^') {
      next();
      const right = unary();
      if (!right) return undefined;
      left = { kind: 'binary', op: '^', left, right };
    }
    return left;
  }
  function unary(): Node | undefined {
    if (peek() === '-' || peek() === '+') {
      const sign = next();
      const operand = unary();
      if (!operand) return undefined;
      return sign === '-' ? { kind: 'neg', operand } : operand;
    }
    let operand = primary();
    while (operand && peek() === '%') {
      next();
      operand = { kind: 'percent', operand };
    }
    return operand;
  }
  function primary(): Node | undefined {
    const token = next();
    if (token === undefined) return undefined;
    if (token === '(') {
      const inner = concat();
      return inner && next() === ')' ? inner : undefined;
    }
    if (/^[\d.]/.test(token)) return { kind: 'number', value: Number(token) };
    if (token.startsWith('"')) return { kind: 'text', value: token.slice(1, -1).replace(/""/g, '"') };
    if (/^(TRUE|FALSE)$/i.test(token)) return { kind: 'bool', value: token.toUpperCase() === 'TRUE' };
    const ref = parseA1(token.replace(/\$/g, ''));
    return ref ? { kind: 'ref', row: ref.row, col: ref.col } : undefined;
  }

  const tree = concat();
  return tree && index === tokens.length ? tree : undefined;
}

/** A cell's value as an operand: its value, or the error it shows. */
export type Operand = CellValue | { error: string; message: string };

const DAY_MS = 86_400_000;
/** Sheets' serial number of a date: days since 1899-12-30. */
const SERIAL_EPOCH = Date.UTC(1899, 11, 30);

function isError(value: unknown): value is { error: string; message: string } {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && 'error' in value;
}

function toNumber(
  value: Operand | FormulaResult,
  where = 'Function',
): number | { error: string; message: string } {
  if (isError(value)) return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return (value.getTime() - SERIAL_EPOCH) / DAY_MS;
  if (value === '') return 0;
  const text = value.trim();
  if (text !== '' && Number.isFinite(Number(text))) return Number(text);
  return {
    error: '#VALUE!',
    message: `${where} expects number values. But '${value}' is a text and cannot be coerced to a number.`,
  };
}

function toText(value: Operand | FormulaResult): string | { error: string; message: string } {
  if (isError(value)) return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return String((value.getTime() - SERIAL_EPOCH) / DAY_MS);
  return String(value);
}

/** The functions Sheets names in its messages for the operators. */
const FUNCTION_NAMES = { '+': 'ADD', '-': 'MINUS', '*': 'MULTIPLY', '/': 'DIVIDE', '^': 'POW' } as const;

/** Evaluates a parsed formula; `read` gives a referenced cell's value (or its error). */
export function evaluatePlain(tree: Node, read: (row: number, col: number) => Operand): FormulaResult {
  const value = (node: Node): FormulaResult => {
    switch (node.kind) {
      case 'number':
      case 'text':
      case 'bool':
        return node.value;
      case 'ref': {
        const cell = read(node.row, node.col);
        return cell instanceof Date ? (toNumber(cell) as FormulaResult) : cell;
      }
      case 'neg': {
        const n = toNumber(value(node.operand));
        return typeof n === 'number' ? -n : n;
      }
      case 'percent': {
        const n = toNumber(value(node.operand));
        return typeof n === 'number' ? n / 100 : n;
      }
      case 'binary': {
        const left = value(node.left);
        const right = value(node.right);
        if (node.op === '&') {
          const a = toText(left);
          const b = toText(right);
          if (typeof a !== 'string') return a;
          if (typeof b !== 'string') return b;
          return a + b;
        }
        const name = FUNCTION_NAMES[node.op];
        const a = toNumber(left, `Function ${name} parameter 1`);
        const b = toNumber(right, `Function ${name} parameter 2`);
        if (typeof a !== 'number') return a;
        if (typeof b !== 'number') return b;
        switch (node.op) {
          case '+':
            return a + b;
          case '-':
            return a - b;
          case '*':
            return a * b;
          case '/':
            return b === 0
              ? { error: '#DIV/0!', message: 'Function DIVIDE parameter 2 cannot be zero.' }
              : a / b;
          case '^': {
            const result = a ** b;
            return Number.isFinite(result)
              ? result
              : { error: '#NUM!', message: 'The result of the power is not a real number.' };
          }
        }
      }
    }
  };
  return value(tree);
}
