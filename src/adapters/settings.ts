/** The user's own API key and settings in their user properties. In a custom function these are the owner's. */

import type { Settings } from '../api';
import { DEFAULT_SETTINGS, MAX_START_AT_ONCE_UNDER } from '../core/limits';
import { API_KEY_PROPERTY, SETTINGS_PROPERTY } from '../core/propertyNames';
import { userProperties } from './properties';

export function readApiKey(): string | null {
  const key = userProperties().getProperty(API_KEY_PROPERTY);
  return key && key.trim() !== '' ? key : null;
}

export function writeApiKey(key: string): void {
  userProperties().setProperty(API_KEY_PROPERTY, key);
}

export function deleteApiKey(): void {
  userProperties().deleteProperty(API_KEY_PROPERTY);
}

export function readSettings(): Settings {
  const raw = userProperties().getProperty(SETTINGS_PROPERTY);
  if (!raw) return { ...DEFAULT_SETTINGS };
  try {
    return pickSettings(JSON.parse(raw));
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/**
 * The settings of `source`, defaults for the rest; other fields are dropped (a `recheck`: re-checking is chosen
 * when a run starts, never kept; an older `confirmAbove`: every run now shows its plan unless startAtOnce is on).
 */
export function pickSettings(source: unknown): Settings {
  const record = (source && typeof source === 'object' ? source : {}) as Partial<
    Record<keyof Settings, unknown>
  >;
  const settings: Settings = { ...DEFAULT_SETTINGS };
  if (typeof record.writeHeader === 'boolean') settings.writeHeader = record.writeHeader;
  if (typeof record.extraFields === 'boolean') settings.extraFields = record.extraFields;
  if (typeof record.startAtOnce === 'boolean') settings.startAtOnce = record.startAtOnce;
  const under = Number(record.startAtOnceUnder);
  if (record.startAtOnceUnder !== undefined && record.startAtOnceUnder !== '' && Number.isInteger(under)) {
    settings.startAtOnceUnder = Math.max(1, Math.min(MAX_START_AT_ONCE_UNDER, under));
  }
  return settings;
}

export function writeSettings(settings: Settings): void {
  userProperties().setProperty(SETTINGS_PROPERTY, JSON.stringify(settings));
}
