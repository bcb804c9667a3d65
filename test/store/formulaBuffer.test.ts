/**
 * The formulas' buffer in document properties: bounded room, what a batch leaves there, and how a writing
 * execution sorts the properties to move them into the sheets — results, charges, and the lost answers of records
 * whose execution ended first; nothing else touched.
 */
import { PENDING_RESULT_RESERVE_BYTES, PENDING_RESULTS_BUDGET_BYTES } from '../../src/core/limits';
import { CHARGE_PREFIX, PENDING_PREFIX, SENDING_PREFIX } from '../../src/core/propertyNames';
import type { LookupResult } from '../../src/lookup/result';
import { encodeResult } from '../../src/store/codec';
import {
  bufferedValues,
  bufferHoldsResults,
  isPendingKey,
  pendingOf,
  reservedBytes,
  roomLeft,
  sortForKeeping,
} from '../../src/store/formulaBuffer';
import { MemoryProperties } from '../support/platform';

const NOW = Date.UTC(2026, 10, 28, 4);
const found: LookupResult = {
  kind: 'found',
  email: 'ana@example.com',
  emailStatus: 'valid',
  catchAll: false,
  accountType: 'professional',
  profile: { name: 'Ana' },
};
const notFound: LookupResult = { kind: 'not_found', profile: {} };

test('isPendingKey: buffered results and charges only', () => {
  expect(isPendingKey(`${PENDING_PREFIX}abc`)).toBe(true);
  expect(isPendingKey(`${CHARGE_PREFIX}abc`)).toBe(true);
  expect(isPendingKey(`${SENDING_PREFIX}abc`)).toBe(false);
  expect(isPendingKey('pef.lost')).toBe(false);
});

test('pendingOf finds a buffered result by its hash', () => {
  expect(pendingOf({ [`${PENDING_PREFIX}h1`]: 'x' }, 'h1')).toBe('x');
  expect(pendingOf({ [`${PENDING_PREFIX}h1`]: 'x' }, 'h2')).toBeUndefined();
});

describe('room', () => {
  test('an empty buffer has room for its budget at a typical result size', () => {
    expect(roomLeft(0)).toBe(Math.floor(PENDING_RESULTS_BUDGET_BYTES / PENDING_RESULT_RESERVE_BYTES));
  });

  test('room shrinks by one result per reserve, and never goes below 0', () => {
    expect(roomLeft(reservedBytes(10))).toBe(roomLeft(0) - 10);
    expect(roomLeft(PENDING_RESULTS_BUDGET_BYTES - PENDING_RESULT_RESERVE_BYTES + 1)).toBe(0);
    expect(roomLeft(PENDING_RESULTS_BUDGET_BYTES * 2)).toBe(0);
  });

  test('a batch under way holds its reserve per key', () => {
    expect(reservedBytes(0)).toBe(0);
    expect(reservedBytes(7)).toBe(7 * PENDING_RESULT_RESERVE_BYTES);
  });
});

test("bufferedValues: each result under its hash, the batch's charges (lost ones too) in a record", () => {
  const encoded = encodeResult(found, NOW);
  let tick = NOW;
  const values = bufferedValues(
    new Map([['h-ana', encoded]]),
    [
      ['p/ana', found],
      ['p/bo', notFound],
    ],
    ['p/cy'],
    NOW,
    () => tick++,
  );
  expect(values[`${PENDING_PREFIX}h-ana`]).toBe(encoded);
  const charges = Object.keys(values).filter((name) => name.startsWith(CHARGE_PREFIX));
  expect(charges).toHaveLength(1);
  const sorted = sortForKeeping(values, NOW);
  expect(sorted.charges.map((row) => row[4])).toEqual(['p/ana', 'p/bo', 'p/cy']);
  expect(sorted.charges.every((row) => row[1] === 'formulas')).toBe(true);
});

describe('sortForKeeping', () => {
  const encoded = encodeResult(found, NOW - 1000);
  const charge = bufferedValues(new Map(), [['p/ana', found]], [], NOW - 1000, () => NOW);
  const chargeName = Object.keys(charge)[0];
  const all: Record<string, string> = {
    [`${PENDING_PREFIX}h-ana`]: encoded,
    [`${PENDING_PREFIX}h-bad`]: 'not a result',
    [chargeName]: charge[chargeName],
    [`${SENDING_PREFIX}ended`]: '',
    [`${SENDING_PREFIX}expired`]: JSON.stringify({ u: NOW - 1, k: ['p/lost-1', 'p/lost-2'], b: 1 }),
    [`${SENDING_PREFIX}underway`]: JSON.stringify({ u: NOW + 60_000, k: ['p/busy'], b: 1 }),
    'pef.lost': 'marks',
    'pef.job': '{"id":"job-1"}',
  };

  test('buffered results move by hash; an unreadable one is dropped, not moved', () => {
    const sorted = sortForKeeping(all, NOW);
    expect([...sorted.added]).toEqual([['h-ana', encoded]]);
  });

  test("charges move as log rows, with an expired record's URLs as lost answers whose marks go up", () => {
    const sorted = sortForKeeping(all, NOW);
    expect(sorted.charges.map((row) => row[4])).toEqual(['p/ana', 'p/lost-1', 'p/lost-2']);
    expect(sorted.lostKeys).toEqual(['p/lost-1', 'p/lost-2']);
  });

  test('a record still under way and every other property stay; the rest is counted as going', () => {
    const sorted = sortForKeeping(all, NOW);
    expect(sorted.kept).toEqual({
      [`${SENDING_PREFIX}underway`]: all[`${SENDING_PREFIX}underway`],
      'pef.lost': 'marks',
      'pef.job': '{"id":"job-1"}',
    });
    // The two buffered results, the charge, the ended and the expired record.
    expect(sorted.dropped).toBe(5);
  });

  test('a record is expired from its own time on, not before', () => {
    const record = { [`${SENDING_PREFIX}r`]: JSON.stringify({ u: NOW, k: ['p/x'], b: 1 }) };
    expect(sortForKeeping(record, NOW - 1).lostKeys).toEqual([]);
    expect(sortForKeeping(record, NOW).lostKeys).toEqual(['p/x']);
  });
});

test('bufferHoldsResults: one read of the names, true only for buffered results or charges', () => {
  const props = new MemoryProperties();
  props.values.set('pef.job', '{}');
  props.values.set(`${SENDING_PREFIX}x`, '');
  props.calls = 0;
  expect(bufferHoldsResults(props)).toBe(false);
  props.values.set(`${CHARGE_PREFIX}y`, '[]');
  expect(bufferHoldsResults(props)).toBe(true);
  expect(props.calls).toBe(2);
});
