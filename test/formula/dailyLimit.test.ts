/**
 * The formulas' daily limit over a platform of plain objects: the owner's cap setting in user properties under the
 * spreadsheet's id, the day's spend in a document property, the day turning over with the test's clock; and its
 * give-back records (written while the document lock was busy): a reservation killed part-way through deleting them
 * never subtracts one twice, and each reservation folds a bounded number.
 */
import { GIVE_BACK_CHECK_MS, GIVE_BACKS_FOLDED_AT_ONCE } from '../../src/core/limits';
import {
  FORMULA_CAP_SETTING_PREFIX,
  FORMULA_GIVE_BACK_MARKER,
  FORMULA_GIVE_BACK_PREFIX,
  FORMULA_SPEND_PROPERTY,
} from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import { formulaSpendGate, readFormulaCapState, saveFormulaCapSetting } from '../../src/formula/dailyLimit';
import { DEFAULT_FORMULA_CAP_SETTING } from '../../src/formula/dailyLimitRules';
import type { Admission } from '../../src/lookup/gate';
import type { DocumentCache, DocumentLock } from '../../src/lookup/ports';
import { MemoryProperties, testClock, testPlatform } from '../support/platform';

const SPREADSHEET_ID = 'spreadsheet-1';
const POLICY = FORMULA_CAP_SETTING_PREFIX + SPREADSHEET_ID;
const HOUR = 3600 * 1000;

/** A platform of plain objects on this spreadsheet, its document properties `document`, its clock at `start`. */
function platformWith<D extends MemoryProperties>(start: number, document: D) {
  const user = new MemoryProperties();
  const clock = testClock(start);
  const spreadsheet = { id: () => SPREADSHEET_ID } as SpreadsheetPort;
  const platform = testPlatform({
    clock,
    userProperties: () => user,
    documentProperties: () => document,
    spreadsheet: () => spreadsheet,
  });
  return { user, document, clock, platform };
}

function world(start = Date.UTC(2026, 10, 27, 22)) {
  const { user, document, clock, platform } = platformWith(start, new MemoryProperties());
  const lockRuns: number[] = [];
  const lock: DocumentLock = {
    tryWith(work) {
      lockRuns.push(clock.now());
      return { value: work() };
    },
  };
  return { user, document, clock, platform, lock, lockRuns };
}

function spend(document: MemoryProperties): { day: string; used: number } {
  return JSON.parse(document.values.get(FORMULA_SPEND_PROPERTY) ?? 'null');
}

function taken(admission: Admission | undefined): number {
  if (!admission || !('take' in admission)) throw new Error(`not a take: ${JSON.stringify(admission)}`);
  return admission.take;
}

describe('the formulas daily limit', () => {
  it("reads the owner's setting for this spreadsheet and what formulas spent today", () => {
    const w = world();
    w.user.values.set(POLICY, JSON.stringify({ enabled: true, dailyCap: 40 }));
    w.user.values.set(`${FORMULA_CAP_SETTING_PREFIX}another-spreadsheet`, JSON.stringify({ dailyCap: 7 }));
    w.document.values.set(FORMULA_SPEND_PROPERTY, JSON.stringify({ day: '2026-11-27', used: 12 }));
    expect(readFormulaCapState(w.platform)).toEqual({
      setting: { enabled: true, dailyCap: 40 },
      usedToday: 12,
      day: '2026-11-27',
    });
  });

  it("starts from nothing when the day turns over (the spreadsheet's midnight), and from the default setting when none or an unreadable one is saved", () => {
    const w = world();
    w.document.values.set(FORMULA_SPEND_PROPERTY, JSON.stringify({ day: '2026-11-27', used: 12 }));
    expect(readFormulaCapState(w.platform).usedToday).toBe(12);
    w.clock.at += 2 * HOUR; // 00:00 on the 28th (the test clock's spreadsheet is in UTC)
    expect(readFormulaCapState(w.platform)).toEqual({
      setting: DEFAULT_FORMULA_CAP_SETTING,
      usedToday: 0,
      day: '2026-11-28',
    });
    w.user.values.set(POLICY, '{not json');
    expect(readFormulaCapState(w.platform).setting).toEqual(DEFAULT_FORMULA_CAP_SETTING);
  });

  it("saves the setting under this spreadsheet's id in the user's properties, and refuses a bad one without writing", () => {
    const w = world();
    expect(saveFormulaCapSetting(w.platform, { enabled: false, dailyCap: 5 })).toEqual({
      setting: { enabled: false, dailyCap: 5 },
      usedToday: 0,
      day: '2026-11-27',
    });
    expect(JSON.parse(w.user.values.get(POLICY) ?? '')).toEqual({ enabled: false, dailyCap: 5 });
    expect(() => saveFormulaCapSetting(w.platform, { dailyCap: -1 })).toThrow(/whole number/);
    expect(() => saveFormulaCapSetting(w.platform, { dailyCap: 2.5 })).toThrow(/whole number/);
    expect(JSON.parse(w.user.values.get(POLICY) ?? '')).toEqual({ enabled: false, dailyCap: 5 });
    expect(w.document.values.size).toBe(0);
  });

  it('as a gate: reserves up to the cap, refuses the rest for free, gives back what was not charged', () => {
    const w = world();
    w.user.values.set(POLICY, JSON.stringify({ enabled: true, dailyCap: 10 }));
    const first = formulaSpendGate(w.platform, w);
    const second = formulaSpendGate(w.platform, w);
    expect(taken(first.admit?.({}, 6))).toBe(6);
    const rest = second.admit?.({}, 6);
    expect(taken(rest)).toBe(4);
    expect(rest && 'refusal' in rest && rest.refusal?.message).toMatch(
      /daily limit .* is reached \(10 credits today/,
    );
    expect(spend(w.document)).toEqual({ day: '2026-11-27', used: 10 });
    expect(taken(second.admit?.({}, 3))).toBe(0);
    // The first execution was charged for 2 of its 6 (errors, keys never sent): 4 come back, under the lock.
    first.close?.({ charged: 2 });
    expect(w.lockRuns).toHaveLength(1);
    expect(spend(w.document)).toEqual({ day: '2026-11-27', used: 6 });
    second.close?.({ charged: 4 });
    expect(w.lockRuns).toHaveLength(1);
    expect(readFormulaCapState(w.platform).usedToday).toBe(6);
  });

  it('as a gate: with the lock busy, what was not charged is still given back (a record of its own), never kept reserved', () => {
    const w = world();
    w.user.values.set(POLICY, JSON.stringify({ enabled: true, dailyCap: 10 }));
    const first = formulaSpendGate(w.platform, w);
    expect(taken(first.admit?.({}, 10))).toBe(10);
    first.close?.({ charged: 0 });
    const again = formulaSpendGate(w.platform, w);
    expect(taken(again.admit?.({}, 8))).toBe(8);
    again.close?.({ charged: 2 });
    // A session whose give-back finds the lock busy (or LockService refusing).
    const busy = { ...w, lock: { tryWith: () => undefined } as DocumentLock };
    const lockFree = formulaSpendGate(w.platform, busy);
    expect(taken(lockFree.admit?.({}, 1))).toBe(1);
    lockFree.close?.({ charged: 0 });
    // 2 charged: the record written without the lock is counted, then folded in by the next locked reservation.
    expect(readFormulaCapState(w.platform).usedToday).toBe(2);
    const next = formulaSpendGate(w.platform, w);
    expect(taken(next.admit?.({}, 20))).toBe(8);
    expect([...w.document.values.keys()].filter((key) => key.startsWith('pef.giveBack.'))).toEqual([]);
  });

  it('as a gate: a new day has the whole cap again; what was not charged comes back to the day the session ends in', () => {
    const w = world();
    w.user.values.set(POLICY, JSON.stringify({ enabled: true, dailyCap: 5 }));
    const gate = formulaSpendGate(w.platform, w);
    expect(taken(gate.admit?.({}, 5))).toBe(5);
    w.clock.at += 3 * HOUR;
    expect(taken(gate.admit?.({}, 8))).toBe(5);
    expect(spend(w.document)).toEqual({ day: '2026-11-28', used: 5 });
    gate.close?.({ charged: 6 });
    expect(spend(w.document)).toEqual({ day: '2026-11-28', used: 1 });
  });

  it("counts the spreadsheet's day, as the watch does: in a time zone 10 hours ahead, 14:00 UTC is a new day", () => {
    const w = world(Date.UTC(2026, 10, 27, 13));
    w.clock.day = (ms) => new Date(ms + 10 * HOUR).toISOString().slice(0, 10);
    w.user.values.set(POLICY, JSON.stringify({ enabled: true, dailyCap: 5 }));
    const gate = formulaSpendGate(w.platform, w);
    // 23:00 on 27 Nov in the spreadsheet (13:00 UTC): the cap spent.
    expect(taken(gate.admit?.({}, 5))).toBe(5);
    expect(spend(w.document)).toEqual({ day: '2026-11-27', used: 5 });
    expect(taken(gate.admit?.({}, 1))).toBe(0);
    // 00:00 on 28 Nov in the spreadsheet, still 27 Nov in UTC: the whole cap again, and the sidebar says which day.
    w.clock.at += HOUR;
    expect(taken(gate.admit?.({}, 2))).toBe(2);
    expect(readFormulaCapState(w.platform)).toMatchObject({ usedToday: 2, day: '2026-11-28' });
  });

  it('as a gate: formulas turned off, or a cap of 0, send nothing and read no spend', () => {
    for (const setting of [
      { enabled: false, dailyCap: 50 },
      { enabled: true, dailyCap: 0 },
    ]) {
      const w = world();
      w.user.values.set(POLICY, JSON.stringify(setting));
      const gate = formulaSpendGate(w.platform, w);
      const admission = gate.admit?.({}, 3);
      expect(taken(admission)).toBe(0);
      expect(admission && 'refusal' in admission && admission.refusal?.error).toBe('config');
      gate.close?.({ charged: 0 });
      expect(w.document.calls).toBe(0);
      expect(w.lockRuns).toHaveLength(0);
    }
  });
});

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

function giveBackWorld(cap: number) {
  const { user, document, clock, platform } = platformWith(
    Date.UTC(2026, 10, 27, 12),
    new KillableProperties(),
  );
  user.values.set(
    FORMULA_CAP_SETTING_PREFIX + SPREADSHEET_ID,
    JSON.stringify({ enabled: true, dailyCap: cap }),
  );
  const free: DocumentLock = { tryWith: (work) => ({ value: work() }) };
  const busy: DocumentLock = { tryWith: () => undefined };
  return { document, clock, platform, free, busy };
}

type GiveBackWorld = ReturnType<typeof giveBackWorld>;

/** `sessions` formulas reserve `each` at once and are charged nothing, giving it back while the lock is busy. */
function giveBackWithoutLock(w: GiveBackWorld, sessions: number, each: number): void {
  const gates = Array.from({ length: sessions }, () =>
    formulaSpendGate(w.platform, { lock: w.busy, clock: w.clock }),
  );
  for (const gate of gates) expect(taken(gate.admit?.({}, each))).toBe(each);
  for (const gate of gates) {
    gate.close?.({ charged: 0 });
    w.clock.at += 1000;
  }
}

function giveBackRecords(w: GiveBackWorld): string[] {
  return [...w.document.values.keys()].filter((key) => key.startsWith(FORMULA_GIVE_BACK_PREFIX));
}

function used(w: GiveBackWorld): number {
  return JSON.parse(w.document.values.get(FORMULA_SPEND_PROPERTY) ?? 'null').used;
}

describe('give-back records of the formulas daily limit', () => {
  it('a reservation killed while deleting the records it folded: the next one does not subtract them again', () => {
    const w = giveBackWorld(10);
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
    const w = giveBackWorld(cap);
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
    const w = giveBackWorld(10);
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
