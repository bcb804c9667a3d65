/** The spreadsheet's watch in document properties, changed under the document lock. */
import type { Platform } from '../core/ports';
import { WATCH_PROPERTY } from '../core/propertyNames';
import { type FieldSpecs, storedRecord } from '../core/storedJson';
import type { Watch } from './watch';

const WATCH_FIELDS: FieldSpecs<Watch> = {
  sheetId: 'number',
  sheetName: 'string',
  urlColumn: 'number',
  topRow: 'number',
  headerText: 'string',
  placement: 'string?',
  outputColumn: 'number?',
  limit: 'number',
  creatorId: 'string',
  creatorName: 'string',
  startedAt: 'number',
  state: 'string',
  day: 'string',
  usedToday: 'number',
  jobId: 'string?',
  jobCredits: 'number',
  lastCheckedAt: 'number?',
  lastRows: 'string?',
  limitNotedDay: 'string?',
  message: 'string',
  triggerIds: 'array',
};

export function parseWatch(raw: string | null | undefined): Watch | null {
  return storedRecord<Watch>(raw, WATCH_FIELDS);
}

export function loadWatch(platform: Platform): Watch | null {
  return parseWatch(platform.documentProperties().getProperty(WATCH_PROPERTY));
}

/** Holding the document lock. */
export function saveWatch(platform: Platform, watch: Watch): void {
  platform.documentProperties().setProperty(WATCH_PROPERTY, JSON.stringify(watch));
}

/** Under the document lock; without a stored watch, `update` is not called and nothing is stored. */
export function updateWatch(platform: Platform, update: (stored: Watch) => Watch): Watch | null {
  return platform.lock.with(() => {
    const stored = loadWatch(platform);
    const next = stored && update(stored);
    if (next && next !== stored) saveWatch(platform, next);
    return next;
  });
}
