/**
 * The durable records of batches being sent: who pays is kept with the URLs, long batches split to fit a property,
 * and a record its execution never ended is settled once as lost answers (maybe charged) — in the credits log when
 * this execution may write it, else in the formulas' buffer — with one more lost send per URL.
 */
import { PROPERTY_RECORD_CHARS } from '../../src/core/limits';
import { CHARGE_PREFIX, LOST_PROPERTY, SENDING_PREFIX } from '../../src/core/propertyNames';
import {
  type ChargeContext,
  FORMULAS_CONTEXT,
  FORMULAS_PAYER,
  rowsOfBuffered,
} from '../../src/store/credits';
import { lostSendsOf } from '../../src/store/lostMarks';
import {
  type ExpiredSending,
  newRecordName,
  parseSending,
  type SendingRecord,
  sendingRecords,
  settleExpired,
  urlsBeingSent,
} from '../../src/store/sendingRecords';

const NOW = Date.UTC(2026, 10, 28, 4);
const RUN: ChargeContext = {
  source: 'run',
  payer: 'ana@example.com',
  payerId: 'p-ana',
  where: 'job-1 Leads!B2:B9',
};

function target(writable: boolean) {
  const appended: string[][][] = [];
  return {
    appended,
    target: {
      writable,
      appendCharges: (rows: string[][]) => {
        appended.push(rows);
      },
      now: () => NOW,
    },
  };
}

const expired = (name: string, record: SendingRecord): ExpiredSending => ({ name, record });

describe('sendingRecords', () => {
  test("a run's batch: one record with the time it is sent until, its URLs and the run's line", () => {
    const records = sendingRecords(['p/ana', 'p/bo'], NOW + 60_000, RUN, () => NOW);
    const entries = Object.entries(records);
    expect(entries).toHaveLength(1);
    const [name, value] = entries[0];
    expect(name.startsWith(SENDING_PREFIX)).toBe(true);
    expect(parseSending(value)).toEqual({
      u: NOW + 60_000,
      k: ['p/ana', 'p/bo'],
      c: ['run', 'ana@example.com', 'p-ana', 'job-1 Leads!B2:B9'],
    });
  });

  test("a formula's batch is marked as the buffer's, with no payer line", () => {
    const [value] = Object.values(sendingRecords(['p/ana'], NOW + 1, undefined, () => NOW));
    expect(parseSending(value)).toEqual({ u: NOW + 1, k: ['p/ana'], b: 1 });
  });

  test('long URLs are split across records that each fit one property, every URL kept once', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `p/${String(i).padStart(3, '0')}-${'x'.repeat(600)}`);
    const records = sendingRecords(keys, NOW + 1, RUN, () => NOW);
    const values = Object.values(records);
    expect(values.length).toBeGreaterThan(1);
    for (const value of values) expect(value.length).toBeLessThanOrEqual(PROPERTY_RECORD_CHARS + 200);
    expect(values.flatMap((value) => parseSending(value)?.k ?? [])).toEqual(keys);
    expect(Object.keys(records)).toHaveLength(values.length);
  });

  test('a single URL longer than a record still gets its record', () => {
    const key = `p/${'y'.repeat(PROPERTY_RECORD_CHARS + 10)}`;
    const values = Object.values(sendingRecords([key], NOW + 1, RUN, () => NOW));
    expect(values).toHaveLength(1);
    expect(parseSending(values[0])?.k).toEqual([key]);
  });
});

describe('parseSending', () => {
  test('an ended record or anything else is not a record', () => {
    for (const raw of ['', '{', '[]', JSON.stringify({ u: 'soon', k: [] }), JSON.stringify({ u: 1 })]) {
      expect(parseSending(raw)).toBeUndefined();
    }
  });
});

test('newRecordName: the prefix, then an id that sorts by time', () => {
  const earlier = newRecordName(CHARGE_PREFIX, NOW);
  const later = newRecordName(CHARGE_PREFIX, NOW + 60_000);
  expect(earlier.startsWith(CHARGE_PREFIX)).toBe(true);
  expect(later.slice(0, CHARGE_PREFIX.length + 8) > earlier.slice(0, CHARGE_PREFIX.length + 8)).toBe(true);
});

describe('settleExpired', () => {
  const runRecord = expired(`${SENDING_PREFIX}run`, {
    u: NOW - 1,
    k: ['p/ana', 'p/bo'],
    c: ['run', 'ana@example.com', 'p-ana', 'job-1'],
  });
  const formulaRecord = expired(`${SENDING_PREFIX}formula`, { u: NOW - 1, k: ['p/cy'], b: 1 });

  test('an execution that may write the sheets logs each URL as maybe charged, for whom the record names', () => {
    const t = target(true);
    const { settled, values } = settleExpired([runRecord, formulaRecord], undefined, t.target);
    expect(settled).toEqual([runRecord, formulaRecord]);
    const rows = t.appended.flat();
    expect(rows.map((r) => [r[1], r[2], r[4], r[6]])).toEqual([
      ['run', 'ana@example.com', 'p/ana', 'job-1'],
      ['run', 'ana@example.com', 'p/bo', 'job-1'],
      ['formulas', FORMULAS_PAYER, 'p/cy', FORMULAS_CONTEXT.where],
    ]);
    expect(t.appended).toHaveLength(1);
    // Both records ended, no buffered charge, one more lost send each.
    expect(values[runRecord.name]).toBe('');
    expect(values[formulaRecord.name]).toBe('');
    expect(Object.keys(values).filter((name) => name.startsWith(CHARGE_PREFIX))).toEqual([]);
    expect([...lostSendsOf(values[LOST_PROPERTY], ['p/ana', 'p/bo', 'p/cy'], NOW)]).toEqual([
      ['p/ana', 1],
      ['p/bo', 1],
      ['p/cy', 1],
    ]);
  });

  test("an execution that cannot write the sheets settles formulas' records only, into the buffer", () => {
    const t = target(false);
    const { settled, values } = settleExpired([runRecord, formulaRecord], undefined, t.target);
    expect(settled).toEqual([formulaRecord]);
    expect(t.appended).toEqual([]);
    expect(values[runRecord.name]).toBeUndefined();
    expect(values[formulaRecord.name]).toBe('');
    const buffered = Object.entries(values).filter(([name]) => name.startsWith(CHARGE_PREFIX));
    expect(buffered).toHaveLength(1);
    const rows = rowsOfBuffered(buffered[0][1]);
    expect(rows.map((r) => [r[1], r[4]])).toEqual([['formulas', 'p/cy']]);
    expect([...lostSendsOf(values[LOST_PROPERTY], ['p/ana', 'p/cy'], NOW)]).toEqual([['p/cy', 1]]);
  });

  test('a URL lost before counts one more lost send: it is sent again at most once more', () => {
    const first = settleExpired([formulaRecord], undefined, target(true).target).values[LOST_PROPERTY];
    const second = settleExpired([formulaRecord], first, target(true).target).values[LOST_PROPERTY];
    expect(lostSendsOf(second, ['p/cy'], NOW).get('p/cy')).toBe(2);
  });

  test('nothing to settle: nothing written, nothing logged', () => {
    const t = target(false);
    expect(settleExpired([runRecord], 'whatever', t.target)).toEqual({ settled: [], values: {} });
    expect(settleExpired([], undefined, t.target)).toEqual({ settled: [], values: {} });
    expect(t.appended).toEqual([]);
  });
});

describe('urlsBeingSent', () => {
  test("counts the URLs of this run's records still being sent, not ended, expired or others'", () => {
    const mine = { u: NOW + 5000, k: ['p/a', 'p/b'], c: ['run', 'ana', 'p-ana', 'job-1'] };
    const all = {
      [`${SENDING_PREFIX}1`]: JSON.stringify(mine),
      [`${SENDING_PREFIX}2`]: JSON.stringify({ ...mine, k: ['p/c'] }),
      [`${SENDING_PREFIX}3`]: JSON.stringify({ ...mine, u: NOW }),
      [`${SENDING_PREFIX}4`]: JSON.stringify({ ...mine, c: ['run', 'bo', 'p-bo', 'job-2'] }),
      [`${SENDING_PREFIX}5`]: JSON.stringify({ u: NOW + 5000, k: ['p/d'], b: 1 }),
      [`${SENDING_PREFIX}6`]: '',
      'pef.other': JSON.stringify(mine),
    };
    expect(urlsBeingSent(all, 'job-1', NOW)).toBe(3);
    expect(urlsBeingSent(all, 'job-2', NOW)).toBe(2);
    expect(urlsBeingSent({}, 'job-1', NOW)).toBe(0);
  });
});
