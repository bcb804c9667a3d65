/** "Freeze results": replaces =FINDEMAIL formulas in the selection with their values, so they never run again. */
const FINDEMAIL_FORMULA = /^=\s*FINDEMAIL\s*\(/i;

export function freezeResults(): string {
  const range = SpreadsheetApp.getActiveRange();
  if (!range)
    throw new Error('Select the cells with =FINDEMAIL formulas (and their results), then try again.');
  const formulas = range.getFormulas();
  const values = range.getValues();
  let frozen = 0;
  const asText: string[] = [];
  const next = values.map((row, r) =>
    row.map((value, c) => {
      const formula = formulas[r][c];
      if (formula && !FINDEMAIL_FORMULA.test(formula)) return formula; // the user's other formulas stay formulas
      if (formula) frozen++;
      // A value that starts with "=" would become a formula again when written: keep it as plain text.
      if (typeof value === 'string' && value.startsWith('=')) {
        asText.push(range.getCell(r + 1, c + 1).getA1Notation());
      }
      return value;
    }),
  );
  if (frozen === 0) return 'No =FINDEMAIL formulas in the selection.';
  const sheet = range.getSheet();
  if (asText.length) sheet.getRangeList(asText).setNumberFormat('@');
  range.setValues(next);
  return `Froze ${frozen} =FINDEMAIL formula${frozen === 1 ? '' : 's'}: the results are now plain values and will not run again.`;
}
