/**
 * The cells the add-on writes: the output columns' layout, which text Sheets would read as something else (so it is
 * written as plain text), and the =FINDEMAIL fields argument.
 */
import {
  BASE_HEADERS,
  CELL,
  EXTRA_HEADERS,
  FIELD_NAMES,
  OUT,
  outputHeaders,
  parseFields,
  reinterpretedBySheets,
  rowNeedsPlainText,
  textColumnOffsets,
} from '../../src/core/cells';

describe('layout', () => {
  test('the headers follow the output offsets, extra fields after the base ones', () => {
    const headers = outputHeaders(true);
    expect(headers).toEqual([...BASE_HEADERS, ...EXTRA_HEADERS]);
    expect(headers[OUT.email]).toBe('Email');
    expect(headers[OUT.status]).toBe('Email status');
    expect(headers[OUT.catchAll]).toBe('Catch-all');
    expect(headers[OUT.note]).toBe('Note');
    expect(headers[OUT.accountType]).toBe('Account type');
    expect(headers[OUT.name]).toBe('Name');
    expect(outputHeaders(false)).toEqual([...BASE_HEADERS]);
  });

  test('a fresh copy each time: a caller changing it changes no one else', () => {
    outputHeaders(false).push('mine');
    expect(outputHeaders(false)).toHaveLength(BASE_HEADERS.length);
  });

  test('a row read from the sheet has the URL first, then the output cells', () => {
    expect(CELL.url).toBe(0);
    expect(CELL.email).toBe(1);
    expect(CELL.status).toBe(2);
  });

  test('every output column is plain text but Catch-all, cut at the columns written', () => {
    expect(textColumnOffsets(6)).toEqual([OUT.email, OUT.status, OUT.note, OUT.accountType, OUT.name]);
    expect(textColumnOffsets(4)).toEqual([OUT.email, OUT.status, OUT.note]);
    expect(textColumnOffsets(2)).toEqual([OUT.email, OUT.status]);
    expect(textColumnOffsets(0)).toEqual([]);
  });
});

describe('reinterpretedBySheets', () => {
  test.each([
    '=HYPERLINK("x")',
    '+1 555',
    '-abc',
    "'quoted",
    '@mention',
    '2024-05-01',
    '3 people',
    '.5',
    ' leading space',
    'TRUE',
    'false',
    'True  ',
  ])('%j would change when written: needs plain text', (value) => {
    expect(reinterpretedBySheets(value)).toBe(true);
  });

  test.each(['ana@example.com', 'valid', 'Not found for this profile.', 'TRUE story', 'falsehood', ''])(
    '%j stays the text it was',
    (value) => {
      expect(reinterpretedBySheets(value)).toBe(false);
    },
  );

  test('only strings: numbers, booleans and empty cells are written as they are', () => {
    for (const value of [12, true, false, null, undefined, new Date(0)]) {
      expect(reinterpretedBySheets(value)).toBe(false);
    }
  });
});

describe('rowNeedsPlainText', () => {
  test('a row of plain answers needs no format', () => {
    expect(rowNeedsPlainText(['ana@example.com', 'valid', true, ''])).toBe(false);
  });

  test('one reinterpreted text in a text column is enough', () => {
    expect(rowNeedsPlainText(['ana@example.com', 'valid', false, '=1+1'])).toBe(true);
    expect(rowNeedsPlainText(['+ana@example.com', 'valid', false, ''])).toBe(true);
  });

  test('the Catch-all column is left out: its text "TRUE" is meant as a boolean', () => {
    expect(rowNeedsPlainText(['ana@example.com', 'valid', 'TRUE', ''])).toBe(false);
  });
});

describe('parseFields', () => {
  test('nothing given: all fields (null)', () => {
    for (const spec of [undefined, null, '']) expect(parseFields(spec)).toEqual({ ok: true, fields: null });
  });

  test('names are trimmed, lowercased, empty ones dropped, order kept', () => {
    expect(parseFields(' Email , STATUS,,catch_all ')).toEqual({
      ok: true,
      fields: ['email', 'status', 'catch_all'],
    });
  });

  test('every known field is accepted', () => {
    expect(parseFields(FIELD_NAMES.join(','))).toEqual({ ok: true, fields: [...FIELD_NAMES] });
  });

  test('an unknown name is named, with the valid ones', () => {
    const parsed = parseFields('email,phone');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toContain('Unknown field "phone"');
    expect(parsed.message).toContain(`Valid fields: ${FIELD_NAMES.join(', ')}`);
  });

  test('several unknown names are all named, in the plural', () => {
    const parsed = parseFields('phone,age,email');
    expect(parsed).toEqual({ ok: false, message: expect.stringContaining('Unknown fields "phone", "age"') });
  });

  test('only commas and spaces: refused as no field given', () => {
    expect(parseFields(' , ,')).toEqual({ ok: false, message: expect.stringContaining('(none given)') });
  });

  test('not text (a number, a range of cells): refused with an example', () => {
    for (const spec of [3, true, [['email']]]) {
      expect(parseFields(spec)).toEqual({
        ok: false,
        message: expect.stringContaining('"email,status,catch_all"'),
      });
    }
  });
});
