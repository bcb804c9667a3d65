import type { Settings } from '../api';
import { DEFAULT_SETTINGS, MAX_START_AT_ONCE_UNDER } from './limits';

/** Defaults for the rest; other fields (`recheck`, an older `confirmAbove`) are dropped. */
export function pickSettings(source: unknown): Settings {
  const record = (source && typeof source === 'object' ? source : {}) as Partial<
    Record<keyof Settings, unknown>
  >;
  const settings: Settings = { ...DEFAULT_SETTINGS };
  for (const key of ['writeHeader', 'extraFields', 'startAtOnce'] as const)
    if (typeof record[key] === 'boolean') settings[key] = record[key];
  const under = Number(record.startAtOnceUnder);
  if (record.startAtOnceUnder !== undefined && record.startAtOnceUnder !== '' && Number.isInteger(under)) {
    settings.startAtOnceUnder = Math.max(1, Math.min(MAX_START_AT_ONCE_UNDER, under));
  }
  return settings;
}
