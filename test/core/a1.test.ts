/** A1 notation (src/core/a1.ts): column letters past Z and blocks of one cell or more. */
import { a1Of, columnLetters } from '../../src/core/a1';

test('column letters run A..Z, then two letters, then three, as Sheets names its columns', () => {
  expect([1, 2, 26, 27, 28, 52, 53, 702, 703, 18278].map(columnLetters)).toEqual([
    'A',
    'B',
    'Z',
    'AA',
    'AB',
    'AZ',
    'BA',
    'ZZ',
    'AAA',
    'ZZZ',
  ]);
});

test('every column number has its own letters (no two columns share a name)', () => {
  const names = new Set(Array.from({ length: 2000 }, (_, i) => columnLetters(i + 1)));
  expect(names.size).toBe(2000);
});

test('a block of one cell is its cell; a larger block names its two corners', () => {
  expect(a1Of({ row: 2, column: 2, rows: 1, columns: 1 })).toBe('B2');
  expect(a1Of({ row: 2, column: 2, rows: 39, columns: 2 })).toBe('B2:C40');
  expect(a1Of({ row: 5, column: 26, rows: 1, columns: 2 })).toBe('Z5:AA5');
});
