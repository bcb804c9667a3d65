/**
 * The formulas' daily limit folding in give-back records (written while the document lock was busy): a reservation
 * killed part-way through deleting them never subtracts one twice, and each reservation folds a bounded number.
 */
import { GIVE_BACK_CHECK_MS, GIVE_BACKS_FOLDED_AT_ONCE } from '../../src/core/limits';
import {
  FORMULA_CAP_SETTING_PREFIX,
  FORMULA_GIVE_BACK_MARKER,
  FORMULA_GIVE_BACK_PREFIX,
  FORMULA_SPEND_PROPERTY,
} from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import { formulaSpendGate, readFormulaCapState } from '../../src/formula/dailyLimit';
import type { Admission } from '../../src/lookup/gate';
import type { DocumentCache, DocumentLock } from '../../src/lookup/ports';
import { MemoryProperties, testClock, testPlatform } from '../support/platform';

const SPREADSHEET_ID = 'spreadsheet-1';

/** Document properties whose deletes can be made to fail after some number, as a killed execution's would. */
class KillableProperties extends MemoryProperties {
  deletesLeft = Number.POSITIVE_INFINITY;
  deletes = 0;
  wholeReads = 0;
  override deleteProperty(key: string): this {
    if (this.deletesLeft-- <= 0) throw new Error('Exceeded maximum execution time');
    this.deletes++;
    return super.deleteProperty(key);
  }
  override getProperties(): Record<string, string> {
    this.wholeReads++;
    return super.getProperties();
  }
}

function world(cap: number) {
  const user = new MemoryProperties();
  const document = new KillableProperties();
  const clock = testClock(Date.UTC(2026, 10, 27, 12));
  const spreadsheet = { id: () => SPREADSHEET_ID } as SpreadsheetPort;
  const platform = testPlatform({
    clock,
    userProperties: () => user,
    documentProperties: () => document,
    spreadsheet: () => spreadsheet,
  });
  user.values.set(
    FORMULA_CAP_SETTING_PREFIX + SPREADSHEET_ID,
    JSON.stringify({ enabled: true, dailyCap: cap }),
  );
  const free: DocumentLock = { tryWith: (work) => ({ value: work() }) };
  const busy: DocumentLock = { tryWith: () => undefined };
  return { document, clock, platform, free, busy };
}

type World = ReturnType<typeof world>;

function taken(admission: Admission | undefined): number {
  if (!admission || !('take' in admission)) throw new Error(`not a take: ${JSON.stringify(admission)}`);
  return admission.take;
}

/** `sessions` formulas reserve `each` at once and are charged nothing, giving it back while the lock is busy. */
function giveBackWithoutLock(w: World, sessions: number, each: number): void {
  const gates = Array.from({ length: sessions }, () =>
    formulaSpendGate(w.platform, { lock: w.busy, clock: w.clock }),
  );
  for (const gate of gates) expect(taken(gate.admit?.({}, each))).toBe(each);
  for (const gate of gates) {
    gate.close?.({ charged: 0 });
    w.clock.at += 1000;
  }
}

function giveBackRecords(w: World): string[] {
  return [...w.document.values.keys()].filter((key) => key.startsWith(FORMULA_GIVE_BACK_PREFIX));
}

function used(w: World): number {
  return JSON.parse(w.document.values.get(FORMULA_SPEND_PROPERTY) ?? 'null').used;
}

describe('give-back records of the formulas daily limit', () => {
  it('a reservation killed while deleting the records it folded: the next one does not subtract them again', () => {
    const w = world(10);
    giveBackWithoutLock(w, 5, 2);
    expect(giveBackRecords(w)).toHaveLength(5);
    expect(readFormulaCapState(w.platform).usedToday).toBe(0);
    // The next reservation folds the 5 records (10 back), takes the whole cap, and is killed after one delete.
    w.document.deletesLeft = 1;
    const killed = formulaSpendGate(w.platform, { lock: w.free, clock: w.clock });
    expect(() => killed.admit?.({}, 10)).toThrow(/execution time/);
    expect(used(w)).toBe(10);
    expect(giveBackRecords(w)).toHaveLength(4);
    // The cap is spent: the 4 records left are not subtracted a second time.
    w.document.deletesLeft = Number.POSITIVE_INFINITY;
    const next = formulaSpendGate(w.platform, { lock: w.free, clock: w.clock });
    expect(taken(next.admit?.({}, 5))).toBe(0);
    expect(used(w)).toBe(10);
    expect(readFormulaCapState(w.platform).usedToday).toBe(10);
    expect(giveBackRecords(w)).toEqual([]);
  });

  it('folds and deletes a bounded number per reservation, and reads the whole store only when there are records', () => {
    const cap = 3 * GIVE_BACKS_FOLDED_AT_ONCE;
    const w = world(cap);
    giveBackWithoutLock(w, GIVE_BACKS_FOLDED_AT_ONCE + 5, 1);
    w.document.wholeReads = 0;
    const first = formulaSpendGate(w.platform, { lock: w.free, clock: w.clock });
    expect(taken(first.admit?.({}, 0))).toBe(0);
    expect(w.document.deletes).toBe(GIVE_BACKS_FOLDED_AT_ONCE);
    expect(giveBackRecords(w)).toHaveLength(5);
    expect(used(w)).toBe(5);
    const second = formulaSpendGate(w.platform, { lock: w.free, clock: w.clock });
    expect(taken(second.admit?.({}, cap))).toBe(cap);
    expect(giveBackRecords(w)).toEqual([]);
    expect(w.document.wholeReads).toBe(2);
    // No record left: a reservation reads the spend and the names, never the whole store.
    const third = formulaSpendGate(w.platform, { lock: w.free, clock: w.clock });
    expect(taken(third.admit?.({}, 1))).toBe(0);
    expect(w.document.wholeReads).toBe(2);
    expect(used(w)).toBe(cap);
  });

  it('with a document cache: a reservation reads one property unless a give-back marked the cache, or the last look is old', () => {
    const w = world(10);
    const cached = new Map<string, string>();
    /** The gate puts and removes its marker; the claims' read of the cache (markers) is the test's. */
    const unused = () => {
      throw new Error('not used by the gate');
    };
    const cache: DocumentCache = {
      get: unused,
      getAll: unused,
      putAll: unused,
      removeAll: unused,
      put: (key, value) => {
        cached.set(key, value);
      },
      remove: (key) => {
        cached.delete(key);
      },
    };
    const markers = () => Object.fromEntries(cached);
    const gate = (lock: DocumentLock) => formulaSpendGate(w.platform, { lock, clock: w.clock, cache });
    // The spreadsheet's first reservation: one read, one write.
    w.document.calls = 0;
    const first = gate(w.busy);
    expect(taken(first.admit?.(markers(), 4))).toBe(4);
    expect(w.document.calls).toBe(2);
    // Given back while the lock is busy: a record, and the marker in the cache.
    first.close?.({ charged: 1 });
    expect(giveBackRecords(w)).toHaveLength(1);
    expect(cached.has(FORMULA_GIVE_BACK_MARKER)).toBe(true);
    const next = gate(w.free);
    expect(taken(next.admit?.(markers(), 10))).toBe(9);
    expect(giveBackRecords(w)).toEqual([]);
    expect(cached.has(FORMULA_GIVE_BACK_MARKER)).toBe(false);
    next.close?.({ charged: 9 });
    // A record whose marker the cache dropped: counted when the names are read again, GIVE_BACK_CHECK_MS later.
    const lost = gate(w.busy);
    w.document.values.set(
      FORMULA_SPEND_PROPERTY,
      JSON.stringify({ ...JSON.parse(w.document.values.get(FORMULA_SPEND_PROPERTY) ?? '{}'), used: 8 }),
    );
    expect(taken(lost.admit?.(markers(), 2))).toBe(2);
    lost.close?.({ charged: 0 });
    cached.clear();
    w.document.calls = 0;
    expect(taken(gate(w.free).admit?.(markers(), 5))).toBe(0);
    expect(w.document.calls).toBe(1);
    w.clock.at += GIVE_BACK_CHECK_MS;
    expect(taken(gate(w.free).admit?.(markers(), 5))).toBe(2);
    expect(giveBackRecords(w)).toEqual([]);
    expect(used(w)).toBe(10);
  });
});
