/** The playground's plain arithmetic formulas (`=1+1`): Sheets' precedence, coercions and errors. */
import { evaluatePlain, type Operand, parsePlainFormula } from '../../playground/formula';

const cells: Record<string, Operand> = { '1,1': 3, '2,1': 'x', '3,1': '', '4,1': ' 7 ', '5,1': true };

function evaluate(formula: string): unknown {
  const tree = parsePlainFormula(formula);
  if (!tree) return 'not plain';
  const result = evaluatePlain(tree, (r, c) => cells[`${r},${c}`] ?? '');
  return typeof result === 'object' ? result.error : result;
}

describe('plain formulas', () => {
  test.each([
    ['=1+1', 2],
    ['=2*3+4', 10],
    ['=2+3*4', 14],
    ['=(1+2)*3', 9],
    ['=-2^2', 4],
    ['=2^3^2', 64],
    ['=10%', 0.1],
    ['=  4 / 2 ', 2],
    ['=1e3+.5', 1000.5],
    ['="a"&"b"', 'ab'],
    ['=1+2&"x"', '3x'],
    ['=A1*2', 6],
    ['=$A$1+A4', 10],
    ['=A3+1', 1],
    ['=A3', ''],
    ['=A5+1', 2],
    ['=TRUE+1', 2],
    ['=A2+1', '#VALUE!'],
    ['=1/0', '#DIV/0!'],
    ['=(-8)^0.5', '#NUM!'],
  ])('%s gives %p', (formula, expected) => {
    expect(evaluate(formula)).toEqual(expected);
  });

  test.each(['=SUM(A1:A2)', '=A1:A2', '=1+', '=(1', '=hello', '=Sheet2!A1', '=1=1', '1+1', '='])(
    '%s is not evaluated here',
    (formula) => {
      expect(parsePlainFormula(formula)).toBeUndefined();
    },
  );

  test('an error in a referenced cell passes through', () => {
    const tree = parsePlainFormula('=A1+1');
    if (!tree) throw new Error('plain');
    expect(evaluatePlain(tree, () => ({ error: '#REF!', message: 'gone' }))).toEqual({
      error: '#REF!',
      message: 'gone',
    });
  });
});
