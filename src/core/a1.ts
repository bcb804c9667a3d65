export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

export function columnNumber(letters: string): number {
  let n = 0;
  for (const letter of letters.toUpperCase()) n = n * 26 + (letter.charCodeAt(0) - 64);
  return n;
}

export function a1Of(block: { row: number; column: number; rows: number; columns: number }): string {
  const start = `${columnLetters(block.column)}${block.row}`;
  if (block.rows === 1 && block.columns === 1) return start;
  return `${start}:${columnLetters(block.column + block.columns - 1)}${block.row + block.rows - 1}`;
}

/** A range as the add-on writes it for a person, the same everywhere: "Leads!A2:A49" (the sheet's name unquoted). */
export function rangeText(sheetName: string, a1: string): string {
  return `${sheetName}!${a1}`;
}

/** A range written with Sheets' quotes around the sheet's name ("'Leads'!A2:A49") as rangeText writes it. */
export function unquotedRange(text: string): string {
  const match = /^'((?:[^']|'')*)'!(.*)$/.exec(text);
  return match ? rangeText(match[1].replace(/''/g, "'"), match[2]) : text;
}
