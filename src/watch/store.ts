/** The spreadsheet's watch in document properties (one small JSON value), read and changed under the document lock. */
import { withDocumentLock } from '../adapters/lock';
import { documentProperties } from '../adapters/properties';
import { WATCH_PROPERTY } from '../core/propertyNames';
import type { Watch } from './watch';

export function loadWatch(): Watch | null {
  const raw = documentProperties().getProperty(WATCH_PROPERTY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Watch;
  } catch {
    return null;
  }
}

/** Stores the watch. Call it holding the document lock. */
export function saveWatch(watch: Watch): void {
  documentProperties().setProperty(WATCH_PROPERTY, JSON.stringify(watch));
}

/** Runs `update` on the freshest stored watch under the document lock and stores what it returns (null: nothing). */
export function updateWatch(update: (stored: Watch | null) => Watch | null): Watch | null {
  return withDocumentLock(() => {
    const stored = loadWatch();
    const next = update(stored);
    if (next && next !== stored) saveWatch(next);
    return next;
  });
}
