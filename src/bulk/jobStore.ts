/** The spreadsheet's bulk-run state in document properties (one small JSON value, far below the 9 KB limit). */

import { JOB_PROPERTY } from '../core/propertyNames';
import { type FieldSpecs, storedRecord } from '../core/storedJson';
import type { Platform } from '../platform/platform';
import type { Job } from './job';

/** False in an execution without a document (a time-driven trigger may run without one). */
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
  paceReason: 'string?',
  pace: 'object?',
  waiting: 'object?',
};

/** The job kept as `raw` (JOB_PROPERTY's value), or null when there is none or it is not a job's record. */
export function parseJob(raw: string | null | undefined): Job | null {
  return storedRecord<Job>(raw, JOB_FIELDS);
}

export function loadJob(platform: Platform): Job | null {
  return parseJob(platform.documentProperties().getProperty(JOB_PROPERTY));
}

/** Writes the job. Call it holding the document lock. */
export function saveJob(platform: Platform, job: Job | null): void {
  if (!job) return;
  platform.documentProperties().setProperties({ [JOB_PROPERTY]: JSON.stringify(job) });
}

/** Removes the job (a run whose sheet could not be prepared). Call it holding the document lock. */
export function deleteJob(platform: Platform): void {
  platform.documentProperties().deleteProperty(JOB_PROPERTY);
}

/**
 * Runs `update` under the document lock on the freshest stored job and writes what it returns.
 * Returning the stored object itself writes nothing. `retried`: the lock busy or refused, it tries again a few
 * times (a slice's lease left behind would keep the next slices waiting).
 */
export function updateJob(
  platform: Platform,
  update: (stored: Job | null) => Job | null,
  retried = false,
): Job | null {
  const { lock } = platform;
  const locked = <T>(work: () => T): T => (retried ? lock.withRetried(work) : lock.with(work));
  // Held for a property read and a write; the slow work happens outside the lock.
  return locked(() => {
    const stored = loadJob(platform);
    const next = update(stored);
    if (next !== stored) saveJob(platform, next);
    return next;
  });
}
