import {
  cellHash,
  cellText,
  isBlank,
  isFailedStatus,
  isFinalResult,
  isHeaderText,
  isOwnStatus,
  readJobCells,
  statusOfRow,
  withFormulaCells,
} from '../../src/bulk/rowCells';
import { MemorySheet } from '../support/platform';

describe('cellText and cellHash', () => {
  it('compare equal dates equal, and tell different cells apart', () => {
    const day = Date.UTC(2026, 0, 2);
    expect(cellText(new Date(day))).toBe(cellText(new Date(day)));
    expect(cellHash(new Date(day))).toBe(cellHash(new Date(day)));
    expect(cellHash('https://network.com/in/a')).not.toBe(cellHash('https://network.com/in/b'));
    expect(cellHash(null)).toBe(cellHash(''));
  });
});

describe('withFormulaCells', () => {
  it('reads an output cell holding a formula as its formula, so it is never taken as free', () => {
    const values = [
      ['https://network.com/in/a', '', '', '', ''],
      ['https://network.com/in/b', 'x', '', '', ''],
    ];
    const formulas = [
      ['', '=IF(A2="","",A2)', '', '', ''],
      ['', '', '', '', ''],
    ];
    const rows = withFormulaCells(values, formulas);
    expect(rows[0][1]).toBe('=IF(A2="","",A2)');
    expect(rows[1]).toBe(values[1]);
  });

  it('keeps the URL cell its value even when it is a formula', () => {
    const rows = withFormulaCells([['https://network.com/in/a', '']], [['=B1', '']]);
    expect(rows[0][0]).toBe('https://network.com/in/a');
  });
});

describe('statusOfRow, isHeaderText, isBlank', () => {
  it('read what the cells say', () => {
    expect(statusOfRow(['u', 'a@acme.test', 'VALID'])).toBe('VALID');
    expect(statusOfRow(['u'])).toBe('');
    expect(isHeaderText('Profile')).toBe(true);
    expect(isHeaderText('https://network.com/in/a')).toBe(false);
    expect(isHeaderText('  ')).toBe(false);
    expect(isHeaderText(42)).toBe(false);
    expect([null, undefined, ''].every(isBlank)).toBe(true);
    expect([0, false, ' '].some(isBlank)).toBe(false);
  });
});

describe('isOwnStatus, isFailedStatus, isFinalResult', () => {
  it("tells the add-on's statuses from a user's column of words", () => {
    expect(isOwnStatus('ERROR', '')).toBe(true);
    expect(isOwnStatus('VALID', 'jane@acme.test')).toBe(true);
    expect(isOwnStatus('YES', 'my note')).toBe(false);
    expect(isOwnStatus('Valid', 'jane@acme.test')).toBe(false);
    expect(isOwnStatus(true, 'jane@acme.test')).toBe(false);
  });

  it('takes ERROR and INVALID_URL as written again, other statuses of its own as final', () => {
    expect(isFailedStatus('ERROR')).toBe(true);
    expect(isFailedStatus('INVALID_URL')).toBe(true);
    expect(isFailedStatus('NOT_FOUND')).toBe(false);
    expect(isFinalResult('NOT_FOUND', '')).toBe(true);
    expect(isFinalResult('UNPROCESSABLE', '')).toBe(true);
    expect(isFinalResult('VALID', 'jane@acme.test')).toBe(true);
    expect(isFinalResult('ERROR', '')).toBe(false);
    expect(isFinalResult('INVALID_URL', '')).toBe(false);
    expect(isFinalResult('', '')).toBe(false);
    expect(isFinalResult('VALID', '')).toBe(false);
  });
});

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
