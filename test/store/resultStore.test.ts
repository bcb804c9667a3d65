/**
 * The result store's logic without the emulator: plain objects as its ports (document properties, the results
 * sheet, the credits log; test/support/store.ts), counting the property calls. The store in Apps Script:
 * test/e2e/store/. A batch is recorded with its claims (beginSend), its answers kept by its sender alone without
 * the lock (the RecordWrites), and folded into the sheets by a writing execution, which deletes what it folded and
 * nothing else.
 */

import { PENDING_RESULT_RESERVE_BYTES, PENDING_RESULTS_BUDGET_BYTES } from '../../src/core/limits';
import {
  ANSWERS_PREFIX,
  FORMULA_WRITES_PROPERTY,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../../src/core/propertyNames';
import type { SendAsk } from '../../src/lookup/ports';
import { type LookupResult, lostAnswer, unusableAnswer } from '../../src/lookup/result';
import { decodeResult, encodeResult } from '../../src/store/codec';
import { type ChargeContext, contextTuple, LOST_OUTCOME_TEXT, parseChargeRow } from '../../src/store/credits';
import type { SheetResultStore } from '../../src/store/ports';
import { sheetResultStore } from '../../src/store/resultStore';
import { hashOf } from '../../src/store/table';
import { found } from '../support/results';
import { type MemoryStorePorts, memoryStorePorts } from '../support/store';

const notFound: LookupResult = { kind: 'not_found', profile: {} };
const lost = lostAnswer('Address unavailable');

const RUN: ChargeContext = {
  source: 'run',
  payer: 'ann@example.com',
  payerId: 'a1b2',
  where: 'run r1, Sheet1!A2:A9',
  run: 'r1',
};

/** A formula's batch lives as long as its claims. */
const FORMULA_HOLD_MS = 31_000;

/** The store's ports as plain objects over one spreadsheet's state, `properties` its document properties. */
const world = (properties: Record<string, string> = {}) => memoryStorePorts({ properties });

/** Properties with the given name prefix, by name. */
function named(props: Map<string, string>, prefix: string): Array<[string, string]> {
  return [...props].filter(([key]) => key.startsWith(prefix));
}

/** beginSend of `urlKeys` until `holdMs` from now, every sendable key at the service at once unless `ask` says. */
function begin(w: MemoryStorePorts, store: SheetResultStore, urlKeys: string[], ask: Partial<SendAsk> = {}) {
  return store.beginSend({
    urlKeys,
    untilMs: w.now() + FORMULA_HOLD_MS,
    first: (sendable) => sendable,
    ...ask,
  });
}

/** The results sheet's entry for `key`, read back (undefined when it has none). */
const inSheet = (w: MemoryStorePorts, key: string) => decodeResult(w.sheet.get(hashOf(key)))?.result;

/** The credits log as [profile, outcome] pairs. */
const logged = (w: MemoryStorePorts) => w.log.map((row) => [row[4], parseChargeRow(row)?.outcome]);

describe("the formulas' answers waiting to be folded take a bounded room", () => {
  /** Formulas' answers so large that `room` more results fit. */
  function answersWithRoomFor(room: number): Record<string, string> {
    const name = `${ANSWERS_PREFIX}big`;
    const bytes = PENDING_RESULTS_BUDGET_BYTES - room * PENDING_RESULT_RESERVE_BYTES - 1;
    const empty = JSON.stringify({ t: 0, r: [['p/pad', '']], b: 1 });
    const value = JSON.stringify({
      t: 0,
      r: [['p/pad', 'y'.repeat(bytes - name.length - empty.length)]],
      b: 1,
    });
    return { [name]: value };
  }

  it("a formula's read says how many more fit; beginSend records no more, and reports the rest full", () => {
    const w = world(answersWithRoomFor(2));
    const formulas = sheetResultStore(false, w.io);
    expect(formulas.readStored(['a']).room).toBe(2);
    const check = begin(w, formulas, ['a', 'b', 'c', 'd']);
    expect(check.send).toEqual(['a', 'b']);
    expect(check.full).toEqual(['c', 'd']);
    // The batch under way holds its place: a second read finds no room left.
    const [[, record]] = named(w.props, SENDING_PREFIX);
    expect(JSON.parse(record)).toMatchObject({ k: ['a', 'b'], b: 1 });
    expect(sheetResultStore(false, w.io).readStored(['e']).room).toBe(0);
  });

  it("a writing execution's room is unbounded; a read the results sheet answers reads no property", () => {
    const w = world(answersWithRoomFor(0));
    expect(sheetResultStore(true, w.io).readStored(['a']).room).toBe(Number.POSITIVE_INFINITY);
    w.sheet.set(hashOf('a'), encodeResult(notFound, w.now()));
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

describe('beginSend', () => {
  it('records the sendable keys as one batch in one read and one write: `first` at the service, the rest claimed', () => {
    const w = world();
    const store = sheetResultStore(true, w.io, RUN);
    const check = begin(w, store, ['a', 'b', 'c'], {
      first: (sendable) => sendable.slice(0, 1),
      window: 'slice-1',
    });
    expect(check).toMatchObject({ send: ['a', 'b', 'c'], first: ['a'] });
    expect(check.record).toBeDefined();
    expect(w.calls).toEqual({ reads: 1, writes: 1, deletes: 0 });
    const records = named(w.props, SENDING_PREFIX);
    expect(records.map(([, value]) => JSON.parse(value))).toEqual([
      { u: w.now() + FORMULA_HOLD_MS, k: ['a'], q: ['b', 'c'], c: contextTuple(RUN), w: 'slice-1' },
    ]);
    // Another execution leaves every key of the batch to it, claimed ones too, and sends the rest.
    const other = begin(w, sheetResultStore(false, w.io), ['a', 'c', 'd']);
    expect(other.elsewhere).toEqual(['a', 'c']);
    expect(other.send).toEqual(['d']);
  });

  it('with the properties of the hold given, it reads none of its own', () => {
    const w = world();
    const store = sheetResultStore(true, w.io, RUN);
    const all = w.io.properties.getProperties();
    const reads = w.calls.reads;
    begin(w, store, ['a'], { all });
    expect(w.calls.reads).toBe(reads);
    expect(w.calls.writes).toBe(1);
  });

  it('a key stored by now settles with its result, from the sheet or answers not folded yet; a re-check pays again for older ones', () => {
    const w = world();
    w.sheet.set(hashOf('a'), encodeResult(found('a@x.test'), w.now() - 60_000));
    const formula = begin(w, sheetResultStore(false, w.io), ['b']);
    formula.record?.keep(['b'], [['b', notFound]], []);
    const check = begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b', 'c']);
    expect([...check.stored]).toEqual([
      ['a', found('a@x.test')],
      ['b', notFound],
    ]);
    expect(check.send).toEqual(['c']);
    // A re-check run started after `a` was stored, before `b` was.
    w.later(1);
    const startedAt = w.now() - 30_000;
    const recheck = begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b'], {
      keepsStored: (_result, savedAt) => savedAt >= startedAt,
    });
    expect(recheck.send).toEqual(['a']);
    expect([...recheck.stored.keys()]).toEqual(['b']);
  });

  it('`keepsStored` is asked of each stored result with when it was saved: a retry of ERROR rows buys an unusable answer again', () => {
    const w = world();
    const savedAt = w.now() - 60_000;
    w.sheet.set(hashOf('a'), encodeResult(unusableAnswer('no "status"'), savedAt));
    w.sheet.set(hashOf('b'), encodeResult(notFound, savedAt));
    const asked: Array<[string, number]> = [];
    const check = begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b'], {
      keepsStored: (result, at) => {
        asked.push([result.kind, at]);
        return result.kind !== 'unusable';
      },
    });
    expect(asked).toEqual([
      ['unusable', savedAt],
      ['not_found', savedAt],
    ]);
    expect(check.send).toEqual(['a']);
    expect([...check.stored]).toEqual([['b', notFound]]);
  });

  it('a key whose answer was lost is kept as a lost answer: it settles with it, never sent again', () => {
    const w = world();
    const first = begin(w, sheetResultStore(false, w.io), ['a']);
    first.record?.keep(['a'], [['a', lost]], []);
    // An earlier version's lost answer (`l`), not folded yet, stands as one too.
    w.props.set(`${ANSWERS_PREFIX}1`, JSON.stringify({ t: w.now() - 1_000, r: [], l: ['b'], b: 1 }));
    const check = begin(w, sheetResultStore(false, w.io), ['a', 'b', 'c']);
    expect(check.stored.get('a')).toEqual(lost);
    expect(check.stored.get('b')).toMatchObject({ kind: 'unusable', lost: true });
    expect(check.send).toEqual(['c']);
  });

  it('nothing to send writes nothing and hands no batch', () => {
    const w = world();
    w.sheet.set(hashOf('a'), encodeResult(notFound, w.now()));
    const check = begin(w, sheetResultStore(true, w.io), ['a']);
    expect(check.record).toBeUndefined();
    expect(w.calls.writes).toBe(0);
  });
});

describe("the batch's own writes: one call a step, without the lock", () => {
  it('toService, keep and drop each write once; a step that changes nothing writes nothing', () => {
    const w = world();
    const check = begin(w, sheetResultStore(false, w.io), ['a', 'b', 'c'], { first: (s) => s.slice(0, 1) });
    const batch = check.record as NonNullable<typeof check.record>;
    const writes = () => w.calls.writes;
    const before = writes();
    batch.keep(['a'], [['a', found('a@x.test')]], []);
    expect(writes()).toBe(before + 1);
    // Readers find the paid answer at once, before any fold.
    expect(sheetResultStore(false, w.io).readStored(['a']).results.get('a')).toEqual(found('a@x.test'));
    batch.toService(['b']);
    expect(writes()).toBe(before + 2);
    batch.toService(['a']);
    expect(writes()).toBe(before + 2);
    batch.drop(['c']);
    expect(writes()).toBe(before + 3);
    const [[, record]] = named(w.props, SENDING_PREFIX);
    expect(JSON.parse(record)).toMatchObject({ k: ['b'] });
    expect(JSON.parse(record).q).toBeUndefined();
    expect(w.calls.deletes).toBe(0);
  });

  it('a key requeued stays claimed by the batch; a lost answer is kept at once, not sent again', () => {
    const w = world();
    const check = begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b']);
    check.record?.keep(['a', 'b'], [['b', lost]], ['a']);
    const next = begin(w, sheetResultStore(true, w.io), ['a', 'b']);
    expect(next.elsewhere).toEqual(['a']);
    expect(next.send).toEqual([]);
    expect([...next.stored]).toEqual([['b', lost]]);
  });

  it("endWithoutWriting marks the batch's records: the next fold frees its window", () => {
    const w = world();
    const check = begin(w, sheetResultStore(true, w.io, RUN), ['a'], {
      window: 'slice-1',
      untilMs: w.now() + 300_000,
    });
    check.record?.keep(['a'], [['a', notFound]], []);
    expect(sheetResultStore(true, w.io).fold().folded.endedWindows).toEqual([]);
    check.record?.endWithoutWriting();
    const { folded } = sheetResultStore(true, w.io).fold();
    expect(folded.endedWindows).toEqual(['slice-1']);
    expect(named(w.props, SENDING_PREFIX)).toEqual([]);
  });
});

describe('fold', () => {
  /** A run's batch answered (a found, b no address, c lost) and a formula's batch whose execution ended at `a2`. */
  function foldable(w: MemoryStorePorts) {
    const run = begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b', 'c']);
    run.record?.keep(
      ['a', 'b', 'c'],
      [
        ['a', found('a@x.test')],
        ['b', notFound],
        ['c', lost],
      ],
      [],
    );
    begin(w, sheetResultStore(false, w.io), ['a2'], { untilMs: w.now() + 1_000 });
    w.later(5_000);
  }

  it('writes the sheets first, then the properties, then deletes each folded name, one call each', () => {
    const w = world();
    foldable(w);
    const folding = named(w.props, ANSWERS_PREFIX)
      .concat(named(w.props, SENDING_PREFIX))
      .map(([name]) => name);
    w.writes.length = 0;
    const { folded, all } = sheetResultStore(true, w.io).fold();
    expect(w.writes).toEqual(['results', 'charges', 'properties', ...folding.map(() => 'delete')]);
    expect(w.deleted.sort()).toEqual(folding.sort());
    expect([...w.props.keys()].filter((name) => folding.includes(name))).toEqual([]);
    // The lost answers are kept in the sheet like results: no execution sends them again unasked.
    expect([...w.sheet.keys()].sort()).toEqual(['a', 'a2', 'b', 'c'].map(hashOf).sort());
    expect(inSheet(w, 'c')).toEqual(lost);
    expect(inSheet(w, 'a2')).toMatchObject({ kind: 'unusable', lost: true });
    expect(logged(w).sort()).toEqual([
      ['a', 'found'],
      ['a2', 'lost'],
      ['b', 'no address'],
      ['c', 'lost'],
    ]);
    expect(folded.byRun.get('r1')).toEqual({ used: 2, found: 1, lost: 1 });
    // The table's version changes with the results; `all` is the store after it.
    expect(w.props.get(TABLE_VERSION_PROPERTY)).toBeTruthy();
    expect(all).toEqual(Object.fromEntries(w.props));
  });

  it("`also`'s values, from what was folded, go in the same properties write", () => {
    const w = world();
    foldable(w);
    const writes = w.calls.writes;
    const seen: number[] = [];
    sheetResultStore(true, w.io).fold(undefined, (folded, all) => {
      seen.push(folded.names.length, Object.keys(all).length);
      return { 'pef.job': 'counted' };
    });
    expect(w.calls.writes).toBe(writes + 1);
    expect(w.props.get('pef.job')).toBe('counted');
    expect(seen[0]).toBeGreaterThan(0);
  });

  it('nothing final: nothing written, nothing deleted', () => {
    const w = world();
    begin(w, sheetResultStore(true, w.io, RUN), ['a']);
    w.writes.length = 0;
    const { folded } = sheetResultStore(true, w.io).fold(undefined, () => undefined);
    expect(folded.names).toEqual([]);
    expect(w.writes).toEqual([]);
    expect(named(w.props, SENDING_PREFIX)).toHaveLength(1);
  });

  it('an answer kept while the fold writes the sheets is not deleted with the rest: the next fold takes it', () => {
    const w = world();
    const first = begin(w, sheetResultStore(false, w.io), ['a']);
    first.record?.keep(['a'], [['a', found('a@x.test')]], []);
    // Another formula, without the lock, keeps its paid answer in the middle of the fold.
    const other = begin(w, sheetResultStore(false, w.io), ['d']);
    w.meanwhile.push(() => other.record?.keep(['d'], [['d', found('d@x.test')]], []));
    expect(sheetResultStore(true, w.io).fold().folded.results.size).toBe(1);
    expect(sheetResultStore(false, w.io).readStored(['d']).results.get('d')).toEqual(found('d@x.test'));
    expect(sheetResultStore(true, w.io).fold().folded.results.size).toBe(1);
    expect(logged(w)).toEqual([
      ['a', 'found'],
      ['d', 'found'],
    ]);
    expect(named(w.props, ANSWERS_PREFIX).concat(named(w.props, SENDING_PREFIX))).toEqual([]);
  });
});

describe('the credits log', () => {
  it("gets a row per charged result and per lost answer, at the answer's time, paid by the run's owner", () => {
    const w = world();
    const check = begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b', 'c']);
    const answeredAt = w.now();
    check.record?.keep(
      ['a', 'b', 'c'],
      [
        ['a', found('a@example.com')],
        ['b', notFound],
        ['c', lost],
      ],
      [],
    );
    w.later(60_000);
    sheetResultStore(true, w.io).fold();
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
        at: Math.floor(answeredAt / 1000) * 1000,
      });
  });

  it("a formula's paid answers wait in its answers, found by every later read, until a writer folds them into the log", () => {
    const w = world();
    const check = begin(w, sheetResultStore(false, w.io), ['a', 'b']);
    check.record?.keep(
      ['a', 'b'],
      [
        ['a', found('a@example.com')],
        ['b', notFound],
      ],
      [],
    );
    expect(w.log).toEqual([]);
    expect([...sheetResultStore(false, w.io).readStored(['a', 'b']).results.keys()]).toEqual(['a', 'b']);
    // Long after, nothing is settled as a lost answer: the record's keys were answered.
    w.later(10 * 60_000);
    expect(sheetResultStore(true, w.io).fold().folded.results.size).toBe(2);
    expect(w.log.map((row) => [row[1], row[4], row[5]])).toEqual([
      ['formulas', 'a', 'found'],
      ['formulas', 'b', 'no address'],
    ]);
    expect([inSheet(w, 'a'), inSheet(w, 'b')]).toEqual([found('a@example.com'), notFound]);
  });

  it('a batch whose sender ended first is settled once: a lost answer per key at the service, paid by whom it names', () => {
    const w = world();
    begin(w, sheetResultStore(true, w.io, RUN), ['a', 'b', 'q'], {
      first: (sendable) => sendable.slice(0, 2),
      untilMs: w.now() + 60_000,
    });
    w.later(120_000);
    // Before any fold, the next check finds the keys at the service kept as lost answers: only `c` is sent.
    const next = begin(w, sheetResultStore(false, w.io), ['a', 'c']);
    expect(next.stored.get('a')).toMatchObject({ kind: 'unusable', lost: true });
    expect(next.first).toEqual(['c']);
    expect(next.send).toEqual(['c']);
    // A writer folds the ended batch: `q`, claimed but never sent, is not charged.
    sheetResultStore(true, w.io).fold();
    expect(w.log.map((row) => [row[1], row[2], row[4], row[5]])).toEqual([
      ['run', RUN.payer, 'a', LOST_OUTCOME_TEXT],
      ['run', RUN.payer, 'b', LOST_OUTCOME_TEXT],
    ]);
    expect(inSheet(w, 'a')).toMatchObject({ kind: 'unusable', lost: true });
    expect(inSheet(w, 'b')).toMatchObject({ kind: 'unusable', lost: true });
    expect(inSheet(w, 'q')).toBeUndefined();
    // Settled once: the next fold logs nothing more.
    sheetResultStore(true, w.io).fold();
    expect(w.log).toHaveLength(2);
  });
});

describe('reading the store', () => {
  it('readStored finds a result folded between its read of the sheet and its read of the properties', () => {
    const w = world();
    const check = begin(w, sheetResultStore(false, w.io), ['a']);
    check.record?.keep(['a'], [['a', found('a@x.test')]], []);
    const formula = sheetResultStore(false, w.io);
    const readHashes = w.io.resultsSheet.readHashes;
    let first = true;
    w.io.resultsSheet.readHashes = (hashes) => {
      const read = readHashes(hashes);
      // A writer folds the answer right after the formula found the sheet without it.
      if (first) sheetResultStore(true, w.io).fold();
      first = false;
      return read;
    };
    expect(formula.readStored(['a']).results.get('a')).toEqual(found('a@x.test'));
    expect(named(w.props, ANSWERS_PREFIX)).toEqual([]);
  });

  it('lookIn answers as of the properties the caller read, answers not folded first, then the sheet', () => {
    const w = world();
    w.sheet.set(hashOf('a'), encodeResult(notFound, w.now() - 5_000));
    w.sheet.set(hashOf('b'), encodeResult(notFound, w.now() - 5_000));
    // A re-check paid for `b` again: its new answer waits to be folded.
    const startedAt = w.now();
    const check = begin(w, sheetResultStore(true, w.io, RUN), ['b'], {
      keepsStored: (_result, savedAt) => savedAt >= startedAt,
    });
    check.record?.keep(['b'], [['b', found('b@x.test')]], []);
    const all = w.io.properties.getProperties();
    const reads = w.calls.reads;
    const inStore = sheetResultStore(true, w.io).lookIn(['a', 'b', 'c'], all);
    expect(w.calls.reads).toBe(reads);
    expect(inStore.get('a')).toEqual({ result: notFound, savedAt: w.now() - 5_000 });
    expect(inStore.get('b')?.result).toEqual(found('b@x.test'));
    expect(inStore.has('c')).toBe(false);
  });
});
