/** The bulk run's state in one document property. */
import type { Platform } from '../core/ports';
import { JOB_PROPERTY } from '../core/propertyNames';
import { type FieldSpecs, storedRecord } from '../core/storedJson';
import type { Job } from './job';
import { type JobEvent, transition } from './jobMachine';

/** A time-driven trigger may run without a document. */
export function hasDocument(platform: Platform): boolean {
  return platform.documentPropertiesOrNull() !== null;
}

const JOB_FIELDS: FieldSpecs<Job> = {
  id: 'string',
  sheetId: 'number',
  sheetName: 'string',
  urlColumn: 'number',
  firstRow: 'number',
  lastRow: 'number',
  headerRow: 'number|null',
  outputColumn: 'number',
  extraFields: 'boolean',
  recheck: 'boolean',
  cursor: 'number',
  pass: 'number',
  maxRows: 'number',
  maxColumns: 'number',
  topValue: 'string',
  bottomValue: 'string',
  headerTexts: 'array|null',
  hasDuplicates: 'boolean',
  owns: 'array?',
  state: 'string',
  reason: 'string?',
  message: 'string',
  counts: 'object',
  startedAt: 'number',
  haltedSince: 'number?',
  waited: 'object?',
  updatedAt: 'number',
  ownerId: 'string',
  ownerName: 'string?',
  leaseUntil: 'number',
  windows: 'array?',
  redo: 'array?',
  plan: 'object?',
  origin: 'string?',
  pace: 'object?',
};

export function parseJob(raw: string | null | undefined): Job | null {
  return storedRecord<Job>(raw, JOB_FIELDS);
}

export function loadJob(platform: Platform): Job | null {
  return parseJob(platform.documentProperties().getProperty(JOB_PROPERTY));
}

/** Call it holding the document lock. */
export function saveJob(platform: Platform, job: Job): void {
  platform.documentProperties().setProperties({ [JOB_PROPERTY]: JSON.stringify(job) });
}

/** Call it holding the document lock. */
export function deleteJob(platform: Platform): void {
  platform.documentProperties().deleteProperty(JOB_PROPERTY);
}

/** `update` under the lock on the stored job; returning it unchanged writes nothing. */
export function updateJob(platform: Platform, update: (stored: Job | null) => Job | null): Job | null {
  return platform.lock.with(() => {
    const stored = loadJob(platform);
    const next = update(stored);
    if (next && next !== stored) saveJob(platform, next);
    return next;
  });
}

/** `event` on the stored job when it `applies` (which may throw to refuse it), saved with its time if it changed it. */
export function transitionStored(
  platform: Platform,
  event: JobEvent,
  applies: (stored: Job) => boolean,
): Job | null {
  return updateJob(platform, (stored) => {
    if (!stored || !applies(stored)) return stored;
    const now = platform.clock.now();
    const next = transition(stored, event, now);
    return next === stored ? stored : { ...next, updatedAt: now };
  });
}
