/**
 * A formula copied elsewhere (a paste, the fill handle, Ctrl+D, Ctrl+Enter), as Sheets moves its references:
 * relative parts by the offset, `$`-anchored parts not, string literals and function names never; off the sheet's
 * edge, #REF!. Rows inserted or deleted move references as before (shiftFormulaRows).
 */
import { moveFormula, shiftFormulaRows } from '../../emulator/model/a1';

describe('moveFormula', () => {
  test.each([
    ['=FINDEMAIL(A2)', 1, 0, '=FINDEMAIL(A3)'],
    ['=FINDEMAIL(A2)', 99, 0, '=FINDEMAIL(A101)'],
    ['=FINDEMAIL(A2:A9, "email,status")', 3, 0, '=FINDEMAIL(A5:A12, "email,status")'],
    ['=FINDEMAIL($A$2)', 5, 2, '=FINDEMAIL($A$2)'],
    ['=FINDEMAIL($A2)', 5, 2, '=FINDEMAIL($A7)'],
    ['=FINDEMAIL(A$2)', 5, 2, '=FINDEMAIL(C$2)'],
    ['=A2*3', 0, 1, '=B2*3'],
    ["='Leads 2'!B4+Other!C1", 1, 1, "='Leads 2'!C5+Other!D2"],
    ['=LOG10(A1)', 2, 0, '=LOG10(A3)'],
    ['=CONCAT("A1", A1)', 1, 0, '=CONCAT("A1", A2)'],
    ['=FINDEMAIL(A2)', -1, 0, '=FINDEMAIL(A1)'],
    ['=FINDEMAIL(A2)', -2, 0, '=FINDEMAIL(#REF!)'],
    ['=B2', 0, -2, '=#REF!'],
    ['=Z2', 0, 1, '=AA2'],
  ])('%s moved %i down, %i right: %s', (formula, rows, cols, moved) => {
    expect(moveFormula(formula, rows, cols)).toBe(moved);
  });
});

describe('shiftFormulaRows', () => {
  test('rows inserted above a reference move it; a deleted row is #REF!', () => {
    const shift = (formula: string, mapRow: (row: number) => number | undefined) =>
      shiftFormulaRows(formula, { sheetName: 'Leads', formulaSheet: 'Leads', mapRow });
    expect(shift('=FINDEMAIL(A2:A9)', (row) => (row >= 5 ? row + 2 : row))).toBe('=FINDEMAIL(A2:A11)');
    expect(shift('=A3+Other!A3', (row) => (row === 3 ? undefined : row))).toBe('=#REF!+Other!A3');
  });
});
