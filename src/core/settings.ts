import type { Settings } from '../api';
import { DEFAULT_SETTINGS, MAX_START_AT_ONCE_UNDER } from './limits';

/** Defaults for the rest; other fields (`recheck`, an older `confirmAbove`) are dropped. */
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
