/** The spreadsheet's watch in document properties (one small JSON value), read and changed under the document lock. */
import { WATCH_PROPERTY } from '../core/propertyNames';
import type { Platform } from '../platform/platform';
import type { Watch } from './watch';

export function loadWatch(platform: Platform): Watch | null {
  const raw = platform.documentProperties().getProperty(WATCH_PROPERTY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Watch;
  } catch {
    return null;
  }
}

/** Stores the watch. Call it holding the document lock. */
export function saveWatch(platform: Platform, watch: Watch): void {
  platform.documentProperties().setProperty(WATCH_PROPERTY, JSON.stringify(watch));
}

/** Runs `update` on the freshest stored watch under the document lock and stores what it returns (null: nothing). */
export function updateWatch(
  platform: Platform,
  update: (stored: Watch | null) => Watch | null,
): Watch | null {
  return platform.lock.with(() => {
    const stored = loadWatch(platform);
    const next = update(stored);
    if (next && next !== stored) saveWatch(platform, next);
    return next;
  });
}
