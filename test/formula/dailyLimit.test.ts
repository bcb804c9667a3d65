/**
 * The formulas' daily limit over a platform of plain objects: the owner's cap setting in user properties under the
 * spreadsheet's id, the day's spend in a document property, the day turning over with the test's clock. What a cell
 * spends against it is in test/e2e/formula/cap.test.ts.
 */
import { FORMULA_CAP_SETTING_PREFIX, FORMULA_SPEND_PROPERTY } from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import {
  DEFAULT_FORMULA_CAP_SETTING,
  readFormulaCapState,
  saveFormulaCapSetting,
} from '../../src/formula/dailyLimit';
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
  return { user, document, clock, platform };
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

  it("counts the spreadsheet's day, as the watch does: in a time zone 10 hours ahead, 14:00 UTC is a new day", () => {
    const w = world(Date.UTC(2026, 10, 27, 13));
    w.clock.day = (ms) => new Date(ms + 10 * HOUR).toISOString().slice(0, 10);
    w.document.values.set(FORMULA_SPEND_PROPERTY, JSON.stringify({ day: '2026-11-27', used: 5 }));
    expect(readFormulaCapState(w.platform)).toMatchObject({ usedToday: 5, day: '2026-11-27' });
    w.clock.at += HOUR;
    expect(readFormulaCapState(w.platform)).toMatchObject({ usedToday: 0, day: '2026-11-28' });
  });
});
