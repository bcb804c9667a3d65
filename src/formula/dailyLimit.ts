/**
 * What =FINDEMAIL may spend a day: the cap sits in the owner's user properties (a custom function reads the owner's);
 * the day's count changes only in the lock's hold of the claim it pays for, so cells at once never pass it together.
 */
import type { FormulaCapSetting, FormulaCapState } from '../api';
import { DEFAULT_FORMULA_DAILY_CAP, MAX_FORMULA_DAILY_CAP } from '../core/limits';
import type { Platform } from '../core/ports';
import { REFRESH_PATH } from '../core/product';
import { FORMULA_CAP_SETTING_PREFIX, FORMULA_SPEND_PROPERTY } from '../core/propertyNames';
import { isRecord, parseStored, storedRecord } from '../core/storedJson';

export const DEFAULT_FORMULA_CAP_SETTING: FormulaCapSetting = {
  enabled: true,
  dailyCap: DEFAULT_FORMULA_DAILY_CAP,
};

/** `day`: yyyy-MM-dd in the spreadsheet's time zone. */
export interface FormulaSpend {
  day: string;
  used: number;
}

export function parseCapSetting(source: unknown): FormulaCapSetting {
  const record = isRecord(source) ? source : {};
  const setting = { ...DEFAULT_FORMULA_CAP_SETTING };
  if (typeof record.enabled === 'boolean') setting.enabled = record.enabled;
  if (record.dailyCap !== undefined) {
    const cap = Number(record.dailyCap);
    if (!Number.isInteger(cap) || cap < 0 || cap > MAX_FORMULA_DAILY_CAP)
      throw new Error(`The daily limit must be a whole number from 0 to ${MAX_FORMULA_DAILY_CAP}.`);
    setting.dailyCap = cap;
  }
  return setting;
}

export function parseSpend(raw: string | null | undefined, day: string): FormulaSpend {
  const spend = storedRecord<FormulaSpend>(raw, { day: 'string', used: 'number' });
  return spend?.day === day && spend.used >= 0 ? { day, used: spend.used } : { day, used: 0 };
}

export function roomLeft(spend: FormulaSpend, setting: FormulaCapSetting): number {
  return setting.enabled ? Math.max(0, setting.dailyCap - spend.used) : 0;
}

export function capMessage(setting: FormulaCapSetting): string {
  if (!setting.enabled)
    return `New lookups by =FINDEMAIL are turned off in this spreadsheet by its owner (no credit spent). Results already found still show; the owner can turn formulas on in the add-on's Settings tab, then use ${REFRESH_PATH}.`;
  return `The daily limit for =FINDEMAIL in this spreadsheet is reached (${setting.dailyCap} ${setting.dailyCap === 1 ? 'credit' : 'credits'} today; no credit spent). It resets at midnight in the spreadsheet's time zone (File > Settings); the owner can raise it in the add-on's Settings tab. Then use ${REFRESH_PATH}.`;
}

const today = (platform: Platform) => platform.clock.day(platform.clock.now());

function capSettingProperty(platform: Platform): string {
  return FORMULA_CAP_SETTING_PREFIX + platform.spreadsheet().id();
}

/** In a custom function: the owner's. */
export function readCapSetting(platform: Platform): FormulaCapSetting {
  try {
    return parseCapSetting(parseStored(platform.userProperties().getProperty(capSettingProperty(platform))));
  } catch {
    return { ...DEFAULT_FORMULA_CAP_SETTING };
  }
}

export function spendValue(spend: FormulaSpend, credits: number): string {
  return JSON.stringify({ day: spend.day, used: Math.max(0, spend.used + credits) });
}

/** Gives back what was reserved but not charged; a busy lock keeps the larger count (never more than the cap). */
export function giveBack(platform: Platform, credits: number): void {
  if (credits <= 0) return;
  try {
    platform.lock.tryWith(() => {
      const props = platform.documentProperties();
      const spend = parseSpend(props.getProperty(FORMULA_SPEND_PROPERTY), today(platform));
      props.setProperty(FORMULA_SPEND_PROPERTY, spendValue(spend, -credits));
    });
  } catch {}
}

export function readFormulaCapState(platform: Platform): FormulaCapState {
  const day = today(platform);
  const spend = parseSpend(platform.documentProperties().getProperty(FORMULA_SPEND_PROPERTY), day);
  return { setting: readCapSetting(platform), usedToday: spend.used, day: spend.day };
}

/** It governs formulas when this user owns the spreadsheet. */
export function saveFormulaCapSetting(platform: Platform, input: unknown): FormulaCapState {
  const setting = parseCapSetting(input);
  platform.userProperties().setProperty(capSettingProperty(platform), JSON.stringify(setting));
  return readFormulaCapState(platform);
}
