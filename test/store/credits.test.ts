/**
 * The credits log's rows: one per credit spent or maybe spent, who paid and where; a row edited by hand is not
 * counted as a charge.
 */
import { type LookupResult, lostAnswer, unusableAnswer } from '../../src/lookup/result';
import {
  type ChargeContext,
  CREDITS_COLUMNS,
  CREDITS_HEADER,
  chargeRows,
  contextTuple,
  FORMULAS_CONTEXT,
  isBlankRow,
  isNoteRow,
  isoTime,
  LOST_OUTCOME_TEXT,
  OUTCOME_COLUMN,
  outcomeOf,
  parseChargeRow,
} from '../../src/store/credits';

const NOW = Date.UTC(2026, 10, 28, 4, 5, 6, 789);
const RUN: ChargeContext = {
  source: 'run',
  payer: 'ana@example.com',
  payerId: 'p-ana',
  where: 'job-1 Leads!B2:B9',
};
const found: LookupResult = {
  kind: 'found',
  email: 'a@example.com',
  emailStatus: 'valid',
  catchAll: false,
  accountType: 'professional',
  profile: {},
};
const noAddress: LookupResult = { kind: 'not_found', profile: {} };
const unprocessable: LookupResult = { kind: 'unprocessable', message: 'private profile', profile: {} };
const unusable = unusableAnswer('no "status"');
const lost = lostAnswer('Address unavailable');

test('the header names every column, the outcome in its column', () => {
  expect(CREDITS_HEADER).toHaveLength(CREDITS_COLUMNS);
  expect(CREDITS_HEADER[OUTCOME_COLUMN - 1]).toBe('Outcome');
});

test('isoTime: UTC to the second', () => {
  expect(isoTime(NOW)).toBe('2026-11-28T04:05:06Z');
});

test('every kept result is one charge; found, no address, unprocessable, unusable and lost each say so', () => {
  expect([found, noAddress, unprocessable, unusable, lost].map(outcomeOf)).toEqual([
    'found',
    'no address',
    'unprocessable',
    'unusable',
    'lost',
  ]);
});

test('chargeRows: a row per charged result, unusable and lost answers among them, each with the payer and place', () => {
  const rows = chargeRows(
    RUN,
    [
      ['p/ana', found],
      ['p/bo', noAddress],
      ['p/dee', unusable],
      ['p/cy', lost],
      ['p/cy', lost],
    ],
    NOW,
  );
  expect(rows).toEqual([
    ['2026-11-28T04:05:06Z', 'run', 'ana@example.com', 'p-ana', 'p/ana', 'found', 'job-1 Leads!B2:B9'],
    ['2026-11-28T04:05:06Z', 'run', 'ana@example.com', 'p-ana', 'p/bo', 'no address', 'job-1 Leads!B2:B9'],
    [
      '2026-11-28T04:05:06Z',
      'run',
      'ana@example.com',
      'p-ana',
      'p/dee',
      'unusable answer (charged)',
      'job-1 Leads!B2:B9',
    ],
    [
      '2026-11-28T04:05:06Z',
      'run',
      'ana@example.com',
      'p-ana',
      'p/cy',
      LOST_OUTCOME_TEXT,
      'job-1 Leads!B2:B9',
    ],
    [
      '2026-11-28T04:05:06Z',
      'run',
      'ana@example.com',
      'p-ana',
      'p/cy',
      LOST_OUTCOME_TEXT,
      'job-1 Leads!B2:B9',
    ],
  ]);
  for (const row of rows) expect(row).toHaveLength(CREDITS_COLUMNS);
});

test("contextTuple: who pays as a batch's records keep it, the run's id last when there is one", () => {
  expect(contextTuple(RUN)).toEqual(['run', 'ana@example.com', 'p-ana', 'job-1 Leads!B2:B9']);
  expect(contextTuple({ ...RUN, run: 'job-1' })).toEqual([
    'run',
    'ana@example.com',
    'p-ana',
    'job-1 Leads!B2:B9',
    'job-1',
  ]);
});

describe('parseChargeRow', () => {
  test('reads a written row back, its time as text or a date', () => {
    const [row] = chargeRows(RUN, [['p/ana', found]], NOW);
    const charge = {
      at: Date.UTC(2026, 10, 28, 4, 5, 6),
      source: 'run',
      payer: 'ana@example.com',
      payerId: 'p-ana',
      profile: 'p/ana',
      outcome: 'found',
      where: 'job-1 Leads!B2:B9',
    };
    expect(parseChargeRow(row)).toEqual(charge);
    expect(parseChargeRow([new Date(charge.at), ...row.slice(1)])).toEqual(charge);
  });

  test('a lost answer reads back as lost', () => {
    const [row] = chargeRows(FORMULAS_CONTEXT, [['p/x', lost]], NOW);
    expect(parseChargeRow(row)?.outcome).toBe('lost');
  });

  test('an unusable answer reads back as unusable', () => {
    const [row] = chargeRows(FORMULAS_CONTEXT, [['p/x', unusable]], NOW);
    expect(parseChargeRow(row)?.outcome).toBe('unusable');
  });

  test('rows edited by hand are not charges: a number for a time, an unknown source or outcome, no profile', () => {
    const [row] = chargeRows(RUN, [['p/ana', found]], NOW);
    const edited = (column: number, value: unknown) => row.map((cell, i) => (i === column ? value : cell));
    expect(parseChargeRow(edited(0, 46000))).toBeUndefined();
    expect(parseChargeRow(edited(0, 'last Tuesday'))).toBeUndefined();
    expect(parseChargeRow(edited(1, 'bulk'))).toBeUndefined();
    expect(parseChargeRow(edited(4, ''))).toBeUndefined();
    expect(parseChargeRow(edited(5, 'FOUND'))).toBeUndefined();
    expect(parseChargeRow([])).toBeUndefined();
  });
});

test("a watch's note (no profile) is neither a charge nor blank", () => {
  const note = [
    isoTime(NOW),
    'watch',
    'ana@example.com',
    'p-ana',
    '',
    'stopped: the sheet was deleted',
    'Leads',
  ];
  expect(isNoteRow(note)).toBe(true);
  expect(parseChargeRow(note)).toBeUndefined();
  expect(isBlankRow(note)).toBe(false);
  expect(isNoteRow(chargeRows({ ...RUN, source: 'watch' }, [['p/a', found]], NOW)[0])).toBe(false);
});

test('a cleared row is blank; a row with anything in it is not', () => {
  expect(isBlankRow(['', null, undefined, '', '', '', ''])).toBe(true);
  expect(isBlankRow([])).toBe(true);
  expect(isBlankRow(['', '', '', '', 'p/a', '', ''])).toBe(false);
  expect(isBlankRow([0])).toBe(false);
});
