/**
 * keepPending's rewrite of the whole store (setProperties deleting every other property) against a formula's
 * lock-free write of its batch landing right before it: the batch's journal in the document cache keeps its result
 * and charge when its sending record is found unended past its time, instead of a lost answer paid again.
 */

import { LOST_PROPERTY, PENDING_PREFIX, SENDING_PREFIX } from '../../src/core/propertyNames';
import { LOST_OUTCOME_TEXT, parseChargeRow } from '../../src/store/credits';
import { sheetResultStore } from '../../src/store/resultStore';
import { hashOf } from '../../src/store/table';
import { found } from '../support/results';
import { memoryStorePorts } from './memoryPorts';

const FORMULA_HOLD_MS = 31_000;

/** The store's ports as plain objects, with a document cache unless said otherwise. */
const world = ({ withCache = true } = {}) => memoryStorePorts({ withCache });

type World = ReturnType<typeof world>;

/**
 * A formula paid for `a` (in the buffer); another formula's batch for `b` is under way, and its lock-free write
 * lands while keepPending moves the buffer, between its second read and its rewrite.
 */
function raceTheRewrite(w: World): void {
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

function outcomes(w: World): Array<[string, string]> {
  return w.log.map((row) => [String(row[4]), String(parseChargeRow(row)?.outcome)]);
}

describe("keepPending against a formula's write landing right before its rewrite", () => {
  it('the next formula past the record keeps the result from the journal: not sent again, no lost mark, charged once', () => {
    const w = world();
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
    const w = world();
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
    const w = world({ withCache: false });
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
