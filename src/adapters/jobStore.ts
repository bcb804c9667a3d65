/** The spreadsheet's bulk-run state in document properties (one small JSON value, far below the 9 KB limit). */
import type { Job } from '../core/job';

export const JOB_PROPERTY = 'pef.job';

export function loadJob(): Job | null {
  const raw = PropertiesService.getDocumentProperties().getProperty(JOB_PROPERTY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Job;
  } catch {
    return null;
  }
}

/**
 * Runs `update` under the document lock on the freshest stored job and writes what it returns
 * (with `extra` properties, e.g. cached results, in the same single write).
 */
export function updateJob(
  update: (stored: Job | null) => Job | null,
  extra: Record<string, string> = {},
): Job | null {
  const lock = LockService.getDocumentLock();
  // Held for a property read and a write only; the slow work happens outside the lock.
  lock.waitLock(10000);
  try {
    const next = update(loadJob());
    const values: Record<string, string> = { ...extra };
    if (next) values[JOB_PROPERTY] = JSON.stringify(next);
    if (Object.keys(values).length > 0) PropertiesService.getDocumentProperties().setProperties(values);
    return next;
  } finally {
    lock.releaseLock();
  }
}
