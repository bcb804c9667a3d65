/** How a bulk run's figures read: every figure names its unit (rows, lookups, credits), zeros left out. */
import type { RunCounts } from '../../src/api';
import {
  creditsText,
  durationText,
  emptyKinds,
  emptyRunCounts,
  FAILED_KINDS,
  kindsText,
  RESULT_KINDS,
  RETRIED_KINDS,
  reusedText,
  runText,
  sumOf,
  timeTakenText,
} from '../../src/core/runWords';

const counts = (given: Partial<RunCounts>): RunCounts => ({ ...emptyRunCounts(), ...given });

test('empty counts are zero for every kind, fresh each time', () => {
  const kinds = emptyKinds();
  expect(Object.keys(kinds).sort()).toEqual([...RESULT_KINDS].sort());
  expect(Object.values(kinds).every((n) => n === 0)).toBe(true);
  kinds.found = 3;
  expect(emptyKinds().found).toBe(0);
  expect(emptyRunCounts()).toMatchObject({ total: 0, processed: 0, creditsUsed: 0, creditsMaybeLost: 0 });
});

test('sumOf adds only the kinds named; retried rows are errors and unprocessable, never not-a-profile', () => {
  const kinds = { found: 5, noAddress: 4, unprocessable: 3, notProfile: 2, error: 1 };
  expect(sumOf(kinds, FAILED_KINDS)).toBe(6);
  expect(sumOf(kinds, RETRIED_KINDS)).toBe(4);
  expect(RETRIED_KINDS).not.toContain('notProfile');
  expect(sumOf(kinds, [])).toBe(0);
});

describe('kindsText', () => {
  test('rows with an address always, the others only when not 0, singular for one', () => {
    expect(kindsText(counts({}))).toBe('0 rows with an address');
    expect(kindsText(counts({ found: 4, noAddress: 2, notProfile: 1, alreadyDone: 18 }))).toBe(
      '4 rows with an address, 2 rows with no address, 1 row not a profile, 18 rows already done',
    );
    expect(kindsText(counts({ found: 1, unprocessable: 1, error: 3 }))).toBe(
      '1 row with an address, 1 row unprocessable, 3 rows with an error',
    );
  });
});

describe('creditsText', () => {
  test('credits used with the lookups that found an address', () => {
    expect(creditsText({ creditsUsed: 7, creditsMaybeLost: 0, lookupsFound: 5 })).toBe(
      '7 credits used: 5 of 7 lookups found an address (71 %)',
    );
  });

  test('no rate when nothing was charged or the lookups are not known', () => {
    expect(creditsText({ creditsUsed: 0, creditsMaybeLost: 0, lookupsFound: 0 })).toBe('0 credits used');
    expect(
      creditsText({ creditsUsed: 1, creditsMaybeLost: 0, lookupsFound: undefined as unknown as number }),
    ).toBe('1 credit used');
  });

  test('answers lost to connection failures are said apart, as a bound', () => {
    expect(creditsText({ creditsUsed: 3, creditsMaybeLost: 2, lookupsFound: 3 })).toBe(
      '3 credits used: 3 of 3 lookups found an address (100 %), up to 2 more may have been charged for answers lost to connection failures',
    );
  });
});

describe('reusedText', () => {
  test('rows with an address beyond the lookups that found one were reused', () => {
    expect(reusedText({ found: 5, lookupsFound: 2 })).toBe(
      '3 rows reused an address already found (a repeated or known profile)',
    );
    expect(reusedText({ found: 2, lookupsFound: 1 })).toMatch(/^1 row reused/);
  });

  test('nothing reused, or the lookups not known: no words', () => {
    expect(reusedText({ found: 2, lookupsFound: 2 })).toBe('');
    expect(reusedText({ found: 1, lookupsFound: 3 })).toBe('');
    expect(reusedText({ found: 4, lookupsFound: undefined as unknown as number })).toBe('');
  });
});

test('runText: the rows, then credits and lookups, then what was reused', () => {
  expect(runText(counts({ found: 3, noAddress: 1, creditsUsed: 2, lookupsFound: 1 }))).toBe(
    '3 rows with an address, 1 row with no address. 2 credits used: 1 of 2 lookups found an address (50 %); 2 rows reused an address already found (a repeated or known profile)',
  );
  expect(runText(counts({ found: 1, creditsUsed: 1, lookupsFound: 1 }))).toBe(
    '1 row with an address. 1 credit used: 1 of 1 lookup found an address (100 %)',
  );
});

describe('durationText', () => {
  test.each([
    [0, '0 s'],
    [-5000, '0 s'],
    [499, '0 s'],
    [500, '1 s'],
    [59_499, '59 s'],
    [59_500, '1 min 0 s'],
    [184_000, '3 min 4 s'],
    [3_599_000, '59 min 59 s'],
    [3_600_000, '1 h 0 min'],
    [7_500_000, '2 h 5 min'],
  ])('%i ms reads %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});

describe('timeTakenText', () => {
  test('no waits: the time alone', () => {
    expect(timeTakenText({ durationMs: 12_000, waited: {} })).toBe('12 s');
  });

  test('waits are said apart, each with what it waited for', () => {
    expect(timeTakenText({ durationMs: 3000, waited: { key_rejected: 26_000, user: 61_000 } })).toBe(
      '3 s of work, waited 26 s for a key, waited 1 min 1 s while paused',
    );
  });

  test('a wait under half a second is left out', () => {
    expect(timeTakenText({ durationMs: 3000, waited: { quota: 400 } })).toBe('3 s');
  });

  test('a reason without words of its own still reads', () => {
    expect(timeTakenText({ durationMs: 1000, waited: { odd: 5000 } as never })).toBe(
      '1 s of work, waited 5 s while halted',
    );
  });
});
