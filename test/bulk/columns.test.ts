import { readJobCells } from '../../src/bulk/rowCells';
import { MemorySheet } from '../support/platform';

const A = 'https://network.com/in/a';
const B = 'https://network.com/in/b';

describe('readJobCells', () => {
  it('reads the URL cell then the output cells, beside the URLs', () => {
    const sheet = new MemorySheet([
      ['Profile', 'Email', 'Email status', 'Catch-all', 'Note', 'mine'],
      [A, 'a@acme.test', 'VALID', true, '', 'mine'],
    ]);
    expect(readJobCells(sheet, { urlColumn: 1, outputColumn: 2 }, 2, 1, 5)).toEqual([
      [A, 'a@acme.test', 'VALID', true, ''],
    ]);
  });

  it('leaves out the columns between the URLs and output columns further right', () => {
    const sheet = new MemorySheet([
      [A, 'Acme', 'CEO', 'a@acme.test', 'VALID', false, 'n'],
      [B, 'Beta', '', '', '', '', ''],
    ]);
    expect(readJobCells(sheet, { urlColumn: 1, outputColumn: 4 }, 1, 2, 5)).toEqual([
      [A, 'a@acme.test', 'VALID', false, 'n'],
      [B, '', '', '', ''],
    ]);
  });

  it("reads a user's formula in an output cell as its formula, only when asked", () => {
    const sheet = new MemorySheet([[A, '=UPPER("x")', '', '', '']]);
    expect(readJobCells(sheet, { urlColumn: 1, outputColumn: 2 }, 1, 1, 5, true)[0][1]).toBe('=UPPER("x")');
    expect(readJobCells(sheet, { urlColumn: 1, outputColumn: 2 }, 1, 1, 5)[0][1]).toBe('');
  });

  it('reads nothing for no rows', () => {
    const sheet = new MemorySheet([[A]]);
    expect(readJobCells(sheet, { urlColumn: 1, outputColumn: 2 }, 1, 0, 5)).toEqual([]);
    expect(sheet.reads).toBe(0);
  });
});
