/**
 * What =FINDEMAIL may spend in a spreadsheet: formulas always spend the owner's credits, so the owner sets a cap per
 * day (or turns new lookups by formulas off). The day's count lives in document properties and changes only under
 * the document lock (src/formula/dailyLimit.ts): formulas evaluating at once each reserve what they send first,
 * so together they never pass the cap. Pure.
 */
import type { FormulaCapSetting } from '../api';
import { DEFAULT_FORMULA_DAILY_CAP, MAX_FORMULA_DAILY_CAP } from '../core/limits';
import { REFRESH_PATH } from '../core/product';
import { isRecord, storedRecord } from '../core/storedJson';

export const DEFAULT_FORMULA_CAP_SETTING: FormulaCapSetting = {
  enabled: true,
  dailyCap: DEFAULT_FORMULA_DAILY_CAP,
};

/** The day's spending: the day (yyyy-MM-dd, the spreadsheet's time zone) and the credits reserved so far. */
export interface FormulaSpend {
  day: string;
  used: number;
}

/** A stored or submitted setting, checked: defaults for what is missing, a clear error for what is wrong. */
export function parseCapSetting(source: unknown): FormulaCapSetting {
  const record = isRecord(source) ? source : {};
  const setting = { ...DEFAULT_FORMULA_CAP_SETTING };
  if (typeof record.enabled === 'boolean') setting.enabled = record.enabled;
  if (record.dailyCap !== undefined) {
    const cap = Number(record.dailyCap);
    if (!Number.isInteger(cap) || cap < 0 || cap > MAX_FORMULA_DAILY_CAP) {
      throw new Error(`The daily limit must be a whole number from 0 to ${MAX_FORMULA_DAILY_CAP}.`);
    }
    setting.dailyCap = cap;
  }
  return setting;
}

export function parseSpend(raw: string | null | undefined, day: string): FormulaSpend {
  // Nothing stored yet, unreadable or another day's: a new day.
  const spend = storedRecord<FormulaSpend>(raw, { day: 'string', used: 'number' });
  return spend?.day === day && spend.used >= 0 ? { day, used: spend.used } : { day, used: 0 };
}

/** Reserves up to `wanted` credits for today: how many may be sent, and the spending to store. */
export function reserve(
  spend: FormulaSpend,
  setting: FormulaCapSetting,
  wanted: number,
): { granted: number; next: FormulaSpend } {
  const room = setting.enabled ? Math.max(0, setting.dailyCap - spend.used) : 0;
  const granted = Math.min(room, Math.max(0, wanted));
  return { granted, next: { day: spend.day, used: spend.used + granted } };
}

/** Gives back what was reserved but not charged (errors, keys never sent). */
export function giveBack(spend: FormulaSpend, count: number): FormulaSpend {
  return { day: spend.day, used: Math.max(0, spend.used - Math.max(0, count)) };
}

/** What a cell says when it may not spend: no credit was spent for it. */
export function capMessage(setting: FormulaCapSetting): string {
  if (!setting.enabled) {
    return `New lookups by =FINDEMAIL are turned off in this spreadsheet by its owner (no credit spent). Results already found still show; the owner can turn formulas on in the add-on's Settings tab, then use ${REFRESH_PATH}.`;
  }
  return `The daily limit for =FINDEMAIL in this spreadsheet is reached (${setting.dailyCap} ${setting.dailyCap === 1 ? 'credit' : 'credits'} today; no credit spent). It resets at midnight in the spreadsheet's time zone (File > Settings); the owner can raise it in the add-on's Settings tab. Then use ${REFRESH_PATH}.`;
}
