/**
 * The formulas' daily limit over a platform of plain objects: the owner's cap setting in user properties under the
 * spreadsheet's id, the day's spend in a document property, the day turning over with the test's clock.
 */
import { FORMULA_CAP_SETTING_PREFIX, FORMULA_SPEND_PROPERTY } from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import { formulaSpendGate, readFormulaCapState, saveFormulaCapSetting } from '../../src/formula/dailyLimit';
import { DEFAULT_FORMULA_CAP_SETTING } from '../../src/formula/dailyLimitRules';
import type { Admission } from '../../src/lookup/gate';
import type { DocumentLock } from '../../src/lookup/ports';
import { MemoryProperties, testClock, testPlatform } from '../support/platform';

const SPREADSHEET_ID = 'spreadsheet-1';
const POLICY = FORMULA_CAP_SETTING_PREFIX + SPREADSHEET_ID;
const HOUR = 3600 * 1000;

function world(start = Date.UTC(2026, 10, 27, 22)) {
  const user = new MemoryProperties();
  const document = new MemoryProperties();
  const clock = testClock(start);
  const spreadsheet = { id: () => SPREADSHEET_ID } as SpreadsheetPort;
  const platform = testPlatform({
    clock,
    userProperties: () => user,
    documentProperties: () => document,
    spreadsheet: () => spreadsheet,
  });
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
