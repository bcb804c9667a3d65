/**
 * The formulas' daily limit as pure rules: a setting checked, the day's spend read back, a reservation that never
 * passes the cap, a give-back that never goes below zero, and the words a capped cell shows.
 */
import { DEFAULT_FORMULA_DAILY_CAP, MAX_FORMULA_DAILY_CAP } from '../../src/core/limits';
import { REFRESH_PATH } from '../../src/core/product';
import {
  capMessage,
  DEFAULT_FORMULA_CAP_SETTING,
  type FormulaSpend,
  giveBack,
  parseCapSetting,
  parseSpend,
  reserve,
} from '../../src/formula/dailyLimitRules';

const TODAY = '2026-11-28';
const on = (dailyCap: number) => ({ enabled: true, dailyCap });

describe('parseCapSetting', () => {
  test('missing or unreadable settings take the defaults', () => {
    for (const source of [undefined, null, 'text', 7, [], {}]) {
      expect(parseCapSetting(source)).toEqual({ enabled: true, dailyCap: DEFAULT_FORMULA_DAILY_CAP });
    }
  });

  test('keeps a given switch and a cap given as a number or its text', () => {
    expect(parseCapSetting({ enabled: false, dailyCap: 0 })).toEqual({ enabled: false, dailyCap: 0 });
    expect(parseCapSetting({ dailyCap: '25' })).toEqual({ enabled: true, dailyCap: 25 });
    expect(parseCapSetting({ dailyCap: MAX_FORMULA_DAILY_CAP }).dailyCap).toBe(MAX_FORMULA_DAILY_CAP);
  });

  test('a switch that is not a boolean is ignored, not read as truthy', () => {
    expect(parseCapSetting({ enabled: 'false' }).enabled).toBe(true);
    expect(parseCapSetting({ enabled: 0 }).enabled).toBe(true);
  });

  test('refuses a cap below 0, above the maximum, fractional or not a number, naming the range', () => {
    for (const dailyCap of [
      -1,
      MAX_FORMULA_DAILY_CAP + 1,
      2.5,
      'ten',
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(() => parseCapSetting({ dailyCap })).toThrow(`from 0 to ${MAX_FORMULA_DAILY_CAP}`);
    }
  });

  test('does not change the shared default', () => {
    parseCapSetting({ enabled: false, dailyCap: 3 });
    expect(DEFAULT_FORMULA_CAP_SETTING).toEqual({ enabled: true, dailyCap: DEFAULT_FORMULA_DAILY_CAP });
  });
});

describe('parseSpend', () => {
  test("today's stored spend is read back", () => {
    expect(parseSpend(JSON.stringify({ day: TODAY, used: 12 }), TODAY)).toEqual({ day: TODAY, used: 12 });
  });

  test("another day's spend starts the day at 0 (the day turned over)", () => {
    expect(parseSpend(JSON.stringify({ day: '2026-11-27', used: 499 }), TODAY)).toEqual({
      day: TODAY,
      used: 0,
    });
  });

  test('nothing stored, unreadable, wrongly typed or negative: a new day at 0', () => {
    for (const raw of [
      null,
      undefined,
      '',
      '{',
      JSON.stringify({ day: TODAY }),
      JSON.stringify({ day: TODAY, used: '5' }),
      JSON.stringify({ day: TODAY, used: -3 }),
    ]) {
      expect(parseSpend(raw, TODAY)).toEqual({ day: TODAY, used: 0 });
    }
  });
});

describe('reserve', () => {
  const spend = (used: number): FormulaSpend => ({ day: TODAY, used });

  test('grants all that is wanted under the cap and counts it', () => {
    expect(reserve(spend(10), on(50), 5)).toEqual({ granted: 5, next: spend(15) });
  });

  test('grants only the room left: the spend reaches the cap exactly, never passes it', () => {
    expect(reserve(spend(48), on(50), 5)).toEqual({ granted: 2, next: spend(50) });
    expect(reserve(spend(50), on(50), 5)).toEqual({ granted: 0, next: spend(50) });
  });

  test('a spend already above a lowered cap grants nothing and is kept as it is', () => {
    expect(reserve(spend(80), on(50), 5)).toEqual({ granted: 0, next: spend(80) });
  });

  test('formulas turned off grant nothing, whatever the cap', () => {
    expect(reserve(spend(0), { enabled: false, dailyCap: 500 }, 3)).toEqual({ granted: 0, next: spend(0) });
  });

  test('a cap of 0 grants nothing', () => {
    expect(reserve(spend(0), on(0), 1).granted).toBe(0);
  });

  test('wanting 0 or less reserves nothing', () => {
    expect(reserve(spend(4), on(50), 0)).toEqual({ granted: 0, next: spend(4) });
    expect(reserve(spend(4), on(50), -3)).toEqual({ granted: 0, next: spend(4) });
  });

  test('executions reserving one after another together never pass the cap', () => {
    let current = spend(0);
    let granted = 0;
    for (const wanted of [7, 7, 7, 7, 7, 7, 7, 7]) {
      const step = reserve(current, on(30), wanted);
      granted += step.granted;
      current = step.next;
    }
    expect(granted).toBe(30);
    expect(current.used).toBe(30);
  });

  test('keeps the day of the spend', () => {
    expect(reserve({ day: '2026-01-01', used: 0 }, on(5), 1).next.day).toBe('2026-01-01');
  });
});

describe('giveBack', () => {
  test('gives back what was reserved and not charged, making room again', () => {
    const after = giveBack({ day: TODAY, used: 50 }, 3);
    expect(after).toEqual({ day: TODAY, used: 47 });
    expect(reserve(after, on(50), 10).granted).toBe(3);
  });

  test('never goes below 0 and ignores a negative count', () => {
    expect(giveBack({ day: TODAY, used: 2 }, 5)).toEqual({ day: TODAY, used: 0 });
    expect(giveBack({ day: TODAY, used: 2 }, -4)).toEqual({ day: TODAY, used: 2 });
  });

  test('a reservation given back whole leaves the spend as it was', () => {
    const before = { day: TODAY, used: 11 };
    const { granted, next } = reserve(before, on(20), 6);
    expect(giveBack(next, granted)).toEqual(before);
  });
});

describe('capMessage', () => {
  test('turned off: says so, that no credit was spent, and where to turn formulas on', () => {
    const message = capMessage({ enabled: false, dailyCap: 500 });
    expect(message).toContain('turned off');
    expect(message).toContain('no credit spent');
    expect(message).toContain('Settings tab');
    expect(message).toContain(REFRESH_PATH);
    expect(message).not.toContain('500');
  });

  test("the cap reached: names the cap, the spreadsheet's time zone, and where to raise it", () => {
    const message = capMessage(on(25));
    expect(message).toContain('25 credits today');
    expect(message).toContain('no credit spent');
    expect(message).toContain("spreadsheet's time zone");
    expect(message).toContain('Settings tab');
    expect(message).toContain(REFRESH_PATH);
  });

  test('one credit is singular', () => {
    expect(capMessage(on(1))).toContain('(1 credit today');
  });
});
