/**
 * The result store's logic without the emulator: plain objects as its ports (document properties, the results
 * sheet, the credits log, the lock), counting the property calls. The store in Apps Script: results.test.ts,
 * claims.test.ts, ../bulk/store.test.ts. Last, keepPending's rewrite of the whole store (setProperties deleting every
 * other property) against a formula's lock-free write of its batch landing right before it: the batch's journal in
 * the document cache keeps its result and charge when its sending record is found unended past its time, instead of
 * a lost answer paid again.
 */

import { PENDING_RESULT_RESERVE_BYTES, PENDING_RESULTS_BUDGET_BYTES } from '../../src/core/limits';
import {
  CHARGE_PREFIX,
  FORMULA_WRITES_PROPERTY,
  LOST_PROPERTY,
  PENDING_PREFIX,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../../src/core/propertyNames';
import type { LookupResult } from '../../src/lookup/result';
import { type ChargeContext, LOST_OUTCOME_TEXT, parseChargeRow } from '../../src/store/credits';
import { lostSendsOf } from '../../src/store/lostMarks';
import { sheetResultStore } from '../../src/store/resultStore';
import { hashOf } from '../../src/store/table';
import { found } from '../support/results';
import { memoryStorePorts } from '../support/store';

const notFound: LookupResult = { kind: 'not_found', profile: {} };

const RUN: ChargeContext = {
  source: 'run',
  payer: 'ann@example.com',
  payerId: 'a1b2',
  where: 'run r1, Sheet1!A2:A9',
};

/** The store's ports as plain objects over one spreadsheet's state, `properties` its document properties. */
const world = (properties: Record<string, string> = {}) => memoryStorePorts({ properties });

/** Properties with the given name prefix, by name. */
function named(props: Map<string, string>, prefix: string): Array<[string, string]> {
  return [...props].filter(([key]) => key.startsWith(prefix));
}

describe("the formulas' buffer has room for a bounded number of results", () => {
  /** A buffer holding a result so large that `room` more results fit. */
  function bufferWithRoomFor(room: number): Record<string, string> {
    const key = `${PENDING_PREFIX}${'x'.repeat(14)}`;
    const bytes = PENDING_RESULTS_BUDGET_BYTES - room * PENDING_RESULT_RESERVE_BYTES - 1;
    return { [key]: 'y'.repeat(bytes - key.length) };
  }

  it("a formula's read says how many more fit; beginSend sends no more, reserves them, and reports the rest full", () => {
    const w = world(bufferWithRoomFor(2));
    const formulas = sheetResultStore(false, w.io);
    expect(formulas.readStored(['a']).room).toBe(2);
    const check = formulas.beginSend?.(['a', 'b', 'c', 'd'], w.now() + 60_000);
    expect(check?.send).toEqual(['a', 'b']);
    expect(check?.full).toEqual(['c', 'd']);
    // The batch under way holds its place in the buffer: a second read finds no room left.
    const [[, record]] = named(w.props, SENDING_PREFIX);
    expect(JSON.parse(record)).toMatchObject({ k: ['a', 'b'], b: 1 });
    expect(sheetResultStore(false, w.io).readStored(['e']).room).toBe(0);
  });

  it("a writing execution's room is unbounded; a read the results sheet answers reads no property", () => {
    const w = world(bufferWithRoomFor(0));
    expect(sheetResultStore(true, w.io).readStored(['a']).room).toBe(Number.POSITIVE_INFINITY);
    w.sheet.set(hashOf('a'), JSON.stringify([2, 'n', '', '', w.now()]));
    const before = w.calls.reads;
    const read = sheetResultStore(false, w.io).readStored(['a']);
    expect(read.results.get('a')?.kind).toBe('not_found');
    expect(w.calls.reads).toBe(before);
    expect(read.room).toBe(Number.POSITIVE_INFINITY);
  });

  it("a read's properties are its own: a later write changes no earlier read's answer", () => {
    const w = world();
    const store = sheetResultStore(false, w.io);
    const first = store.readStored(['a']);
    w.props.set(FORMULA_WRITES_PROPERTY, '1');
    const second = store.readStored(['a']);
    expect(first.property(FORMULA_WRITES_PROPERTY)).toBeUndefined();
    expect(second.property(FORMULA_WRITES_PROPERTY)).toBe('1');
  });
});

describe('a sending record', () => {
  it('begun by beginSend (one read, one write) is ended by putMany in the write that stores its results', () => {
    const w = world();
    const store = sheetResultStore(true, w.io, RUN);
    const check = store.beginSend?.(['a', 'b'], w.now() + 60_000);
    expect(check?.send).toEqual(['a', 'b']);
    expect(w.calls).toEqual({ reads: 1, writes: 1, locks: 0 });
    const records = named(w.props, SENDING_PREFIX);
    expect(records.map(([name]) => name)).toEqual(check?.sending);
    expect(JSON.parse(records[0][1])).toEqual({
      u: w.now() + 60_000,
      k: ['a', 'b'],
      c: ['run', RUN.payer, 'a1b2', RUN.where],
    });
    // Another execution sees the batch under way and sends neither.
    expect(sheetResultStore(true, w.io).beginSend?.(['a', 'b'], w.now() + 60_000).elsewhere).toEqual([
      'a',
      'b',
    ]);

    store.putMany(
      [
        ['a', found('a@example.com')],
        ['b', notFound],
      ],
      check?.sending,
    );
    expect(named(w.props, SENDING_PREFIX).every(([, value]) => value === '')).toBe(true);
    expect([...w.sheet.keys()].sort()).toEqual([hashOf('a'), hashOf('b')].sort());
    expect(w.props.get(TABLE_VERSION_PROPERTY)).toBeTruthy();
    // Ended, it is settled as nothing: a later check finds both stored, and no lost answer is logged.
    w.later(3_600_000);
    const after = sheetResultStore(true, w.io).beginSend?.(['a', 'b'], w.now() + 60_000);
    expect([...(after?.stored.keys() ?? [])]).toEqual(['a', 'b']);
    expect(w.log.map((row) => parseChargeRow(row)?.outcome)).toEqual(['found', 'no address']);
  });
});

describe('an expired sending record', () => {
  it('is settled once: a lost answer (maybe charged) per URL in the credits log, paid by whom it names', () => {
    const w = world();
    const ended = sheetResultStore(true, w.io, RUN);
    ended.beginSend?.(['a', 'b'], w.now() + 60_000);
    // Its execution ended without storing the answers; the record outlives it.
    w.later(120_000);
    const next = sheetResultStore(true, w.io);
    const check = next.beginSend?.(['a', 'c'], w.now() + 60_000, 0, () => false);
    const rows = w.log.map((row) => parseChargeRow(row));
    expect(rows.map((row) => [row?.profile, row?.outcome, row?.payer, row?.source])).toEqual([
      ['a', 'lost', RUN.payer, 'run'],
      ['b', 'lost', RUN.payer, 'run'],
    ]);
    expect(w.log[0][5]).toBe(LOST_OUTCOME_TEXT);
    // One more lost send each, read in the same call: `a` is held back (its policy refuses it), `c` goes.
    expect(lostSendsOf(w.props.get(LOST_PROPERTY), ['a', 'b', 'c'], w.now())).toEqual(
      new Map([
        ['a', 1],
        ['b', 1],
      ]),
    );
    expect(check?.held).toEqual(['a']);
    expect(check?.send).toEqual(['c']);
    // Settled once: later checks log nothing more, and the marks do not go up again.
    next.putMany([], check?.sending);
    sheetResultStore(true, w.io).beginSend?.(['b'], w.now() + 60_000);
    expect(w.log).toHaveLength(2);
    expect(lostSendsOf(w.props.get(LOST_PROPERTY), ['a', 'b'], w.now()).get('b')).toBe(1);
  });

  it("a formula settles only formulas' records, into buffered charges (it cannot write the credits log)", () => {
    const w = world();
    sheetResultStore(true, w.io, RUN).beginSend?.(['a'], w.now() + 1_000);
    sheetResultStore(false, w.io).beginSend?.(['b'], w.now() + 1_000);
    w.later(5_000);
    sheetResultStore(false, w.io).beginSend?.(['c'], w.now() + 60_000);
    expect(w.log).toHaveLength(0);
    expect(named(w.props, CHARGE_PREFIX)).toHaveLength(1);
    expect(lostSendsOf(w.props.get(LOST_PROPERTY), ['a', 'b'], w.now())).toEqual(new Map([['b', 1]]));
    // The next writing execution moves the buffer into the sheets and settles the run's record.
    sheetResultStore(true, w.io).keepPending();
    expect(w.log.map((row) => [row[1], row[4], row[5]]).sort()).toEqual([
      ['formulas', 'b', LOST_OUTCOME_TEXT],
      ['run', 'a', LOST_OUTCOME_TEXT],
    ]);
  });
});

describe('the credits log', () => {
  it("gets a row per charged result and per lost answer, in the results' write, paid by the run's owner", () => {
    const w = world();
    const store = sheetResultStore(true, w.io, RUN);
    store.putMany(
      [
        ['a', found('a@example.com')],
        ['b', notFound],
      ],
      [],
      ['c'],
    );
    expect(w.calls).toEqual({ reads: 2, writes: 1, locks: 1 });
    const rows = w.log.map((row) => parseChargeRow(row));
    expect(rows.map((row) => [row?.profile, row?.outcome])).toEqual([
      ['a', 'found'],
      ['b', 'no address'],
      ['c', 'lost'],
    ]);
    for (const row of rows)
      expect(row).toMatchObject({
        source: 'run',
        payer: RUN.payer,
        payerId: 'a1b2',
        where: RUN.where,
        at: w.now(),
      });
  });

  it("formulas' charges wait in the buffer beside their results, then move into the log with them", () => {
    const w = world();
    sheetResultStore(false, w.io).putMany([['a', found('a@example.com')]], [], ['b']);
    expect(w.log).toHaveLength(0);
    expect(named(w.props, PENDING_PREFIX).map(([name]) => name)).toEqual([PENDING_PREFIX + hashOf('a')]);
    expect(named(w.props, CHARGE_PREFIX)).toHaveLength(1);
    expect(sheetResultStore(true, w.io).keepPending()).toBe(1);
    expect(w.log.map((row) => [row[1], row[4], row[5]])).toEqual([
      ['formulas', 'a', 'found'],
      ['formulas', 'b', LOST_OUTCOME_TEXT],
    ]);
    expect(w.sheet.has(hashOf('a'))).toBe(true);
    expect(named(w.props, PENDING_PREFIX).concat(named(w.props, CHARGE_PREFIX))).toEqual([]);
  });

  it("a formula's paid answers are kept with the lock busy or refused: no lock taken, its sending record ended", () => {
    const w = world();
    const formula = sheetResultStore(false, w.io);
    const check = formula.beginSend?.(['a', 'b'], w.now() + 31_000);
    w.lock.busy = true;
    const locksBefore = w.calls.locks;
    formula.putMany(
      [
        ['a', found('a@example.com')],
        ['b', notFound],
      ],
      check?.sending,
    );
    expect(w.calls.locks).toBe(locksBefore);
    // Every later evaluation finds them before it claims: nothing is paid again.
    expect([...sheetResultStore(false, w.io).readStored(['a', 'b']).results.keys()]).toEqual(['a', 'b']);
    expect(named(w.props, SENDING_PREFIX).every(([, value]) => value === '')).toBe(true);
    // Long after, nothing is settled as a lost answer: the credits log gets the two charges, found and no address.
    w.later(10 * 60_000);
    w.lock.busy = false;
    expect(sheetResultStore(true, w.io).keepPending()).toBe(2);
    expect(w.log.map((row) => [row[4], row[5]])).toEqual([
      ['a', 'found'],
      ['b', 'no address'],
    ]);
  });

  it('a lost batch with the lock busy leaves its record, settled later as lost answers once (the marks need the lock)', () => {
    const w = world();
    const formula = sheetResultStore(false, w.io);
    const check = formula.beginSend?.(['c'], w.now() + 31_000);
    w.lock.busy = true;
    formula.putMany([], check?.sending, ['c']);
    expect(named(w.props, SENDING_PREFIX).filter(([, value]) => value !== '')).toHaveLength(1);
    w.lock.busy = false;
    w.later(60_000);
    sheetResultStore(true, w.io).keepPending();
    expect(w.log.map((row) => [row[4], row[5]])).toEqual([['c', LOST_OUTCOME_TEXT]]);
    expect(lostSendsOf(w.props.get(LOST_PROPERTY), ['c'], w.now()).get('c')).toBe(1);
  });

  it('keepPending keeps what a formula wrote while it moved the buffer (formulas write without the lock)', () => {
    const w = world();
    sheetResultStore(false, w.io).putMany([['a', found('a@example.com')]]);
    w.meanwhile.push(() => sheetResultStore(false, w.io).putMany([['d', found('d@example.com')]]));
    expect(sheetResultStore(true, w.io).keepPending()).toBe(1);
    expect(w.sheet.has(hashOf('a'))).toBe(true);
    // The result written meanwhile is still in the buffer, with its charge: the next keepPending moves it.
    expect(named(w.props, PENDING_PREFIX).map(([name]) => name)).toEqual([PENDING_PREFIX + hashOf('d')]);
    expect(named(w.props, CHARGE_PREFIX)).toHaveLength(1);
    expect(sheetResultStore(true, w.io).keepPending()).toBe(1);
    expect(w.log.map((row) => row[4])).toEqual(['a', 'd']);
  });
});

const FORMULA_HOLD_MS = 31_000;

/** The store's ports as plain objects, with a document cache unless said otherwise. */
const cachedWorld = ({ withCache = true } = {}) => memoryStorePorts({ withCache });

type CachedWorld = ReturnType<typeof cachedWorld>;

/**
 * A formula paid for `a` (in the buffer); another formula's batch for `b` is under way, and its lock-free write
 * lands while keepPending moves the buffer, between its second read and its rewrite.
 */
function raceTheRewrite(w: CachedWorld): void {
  const formula = sheetResultStore(false, w.io);
  const first = formula.beginSend?.(['a'], w.now() + FORMULA_HOLD_MS);
  formula.putMany([['a', found('a@example.com')]], first?.sending);
  const other = sheetResultStore(false, w.io);
  const check = other.beginSend?.(['b'], w.now() + FORMULA_HOLD_MS);
  expect(check?.send).toEqual(['b']);
  w.beforeRewrite.push(() => other.putMany([['b', found('b@example.com')]], check?.sending));
  expect(sheetResultStore(true, w.io).keepPending()).toBe(1);
  // The rewrite undid the write: b's result and charge are gone, its sending record unended again.
  expect(w.props.has(PENDING_PREFIX + hashOf('b'))).toBe(false);
  const records = [...w.props].filter(([name, value]) => name.startsWith(SENDING_PREFIX) && value !== '');
  expect(records).toHaveLength(1);
}

function outcomes(w: CachedWorld): Array<[string, string]> {
  return w.log.map((row) => [String(row[4]), String(parseChargeRow(row)?.outcome)]);
}

describe("keepPending against a formula's write landing right before its rewrite", () => {
  it('the next formula past the record keeps the result from the journal: not sent again, no lost mark, charged once', () => {
    const w = cachedWorld();
    raceTheRewrite(w);
    w.later(FORMULA_HOLD_MS + 1000);
    const again = sheetResultStore(false, w.io).beginSend?.(['b'], w.now() + FORMULA_HOLD_MS);
    expect(again?.send).toEqual([]);
    expect(again?.stored.get('b')).toEqual(found('b@example.com'));
    expect(w.props.get(LOST_PROPERTY)).toBeUndefined();
    expect(sheetResultStore(true, w.io).keepPending()).toBe(1);
    expect(w.sheet.has(hashOf('b'))).toBe(true);
    expect(outcomes(w)).toEqual([
      ['a', 'found'],
      ['b', 'found'],
    ]);
    // Settled once: later reads find it stored, and nothing more is logged.
    w.later(3_600_000);
    expect(sheetResultStore(true, w.io).keepPending()).toBe(0);
    expect(
      sheetResultStore(true, w.io)
        .beginSend?.(['b'], w.now() + 60_000)
        ?.stored.has('b'),
    ).toBe(true);
    expect(w.log).toHaveLength(2);
  });

  it('the next keepPending past the record moves the result from the journal into the sheet, its charge logged once', () => {
    const w = cachedWorld();
    raceTheRewrite(w);
    w.later(FORMULA_HOLD_MS + 1000);
    expect(sheetResultStore(true, w.io).keepPending()).toBe(1);
    expect(w.sheet.has(hashOf('b'))).toBe(true);
    expect(w.props.get(LOST_PROPERTY)).toBeUndefined();
    expect([...w.props.keys()].filter((name) => name.startsWith(SENDING_PREFIX))).toEqual([]);
    expect(outcomes(w)).toEqual([
      ['a', 'found'],
      ['b', 'found'],
    ]);
    expect(sheetResultStore(false, w.io).beginSend?.(['b'], w.now() + FORMULA_HOLD_MS)?.send).toEqual([]);
    expect(w.log).toHaveLength(2);
  });

  it('without the cache (it is best-effort) the record is settled as a lost answer, once, as before', () => {
    const w = cachedWorld({ withCache: false });
    raceTheRewrite(w);
    w.later(FORMULA_HOLD_MS + 1000);
    expect(sheetResultStore(true, w.io).keepPending()).toBe(0);
    expect(w.log.map((row) => [row[4], row[5]])).toEqual([
      ['a', 'found'],
      ['b', LOST_OUTCOME_TEXT],
    ]);
    expect(w.props.get(LOST_PROPERTY)).toBeDefined();
  });
});
