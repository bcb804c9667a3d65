/** The spreadsheet's bulk-run state in document properties (one small JSON value, far below the 9 KB limit). */

import { withDocumentLock } from '../adapters/lock';
import { documentProperties } from '../adapters/properties';
import { JOB_PROPERTY } from '../core/propertyNames';
import { isStorageFullError, sheetResultStore } from '../store/resultStore';
import type { Job } from './job';

/** False in an execution without a document (a time-driven trigger may run without one). */
export function hasDocument(): boolean {
  return documentProperties() !== null;
}

export function loadJob(): Job | null {
  const raw = documentProperties().getProperty(JOB_PROPERTY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Job;
  } catch {
    return null;
  }
}

/**
 * Writes the job. Call it holding the document lock.
 * When the store is full (results of the first versions, kept in document properties), moves them into the
 * results sheet and writes again: the job's state must always fit.
 */
export function saveJob(job: Job | null): void {
  if (!job) return;
  const values: Record<string, string> = { [JOB_PROPERTY]: JSON.stringify(job) };
  const props = documentProperties();
  try {
    props.setProperties(values);
  } catch (error) {
    if (!isStorageFullError(error)) throw error;
    sheetResultStore(true).keepPending();
    props.setProperties(values);
  }
}

/** Removes the job (a run whose sheet could not be prepared). Call it holding the document lock. */
export function deleteJob(): void {
  documentProperties().deleteProperty(JOB_PROPERTY);
}

/**
 * Runs `update` under the document lock on the freshest stored job and writes what it returns.
 * Returning the stored object itself writes nothing.
 */
export function updateJob(update: (stored: Job | null) => Job | null): Job | null {
  // Held for a property read and a write (which may move stored results into the results sheet when the store is full); the slow work
  // happens outside the lock.
  return withDocumentLock(() => {
    const stored = loadJob();
    const next = update(stored);
    if (next !== stored) saveJob(next);
    return next;
  });
}
