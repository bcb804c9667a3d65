/**
 * LockService: the document lock, with one wait policy for every caller. Apps Script's lock is not counted:
 * a nested release frees it, so no code takes it while holding it.
 */
import { LOCK_WAIT_MS } from '../core/limits';
import type { DocumentLock } from '../core/ports';

/** The one wait policy: LOCK_WAIT_MS, never past the caller's deadline. */
export function lockWaitMs(deadline = Number.POSITIVE_INFINITY): number {
  return Math.max(0, Math.min(LOCK_WAIT_MS, deadline - Date.now()));
}

/** The document lock, or null in an execution without a document. */
function lockOrNull(): GoogleAppsScript.Lock.Lock | null {
  return LockService.getDocumentLock();
}

export function tryWithDocumentLock<T>(work: () => T, deadline?: number): { value: T } | undefined {
  const lock = lockOrNull();
  if (!lock?.tryLock(lockWaitMs(deadline))) return undefined;
  try {
    return { value: work() };
  } finally {
    lock.releaseLock();
  }
}

/** Runs `work` holding the document lock; throws when it stays busy (the caller's action fails visibly). */
export function withDocumentLock<T>(work: () => T): T {
  const done = tryWithDocumentLock(work);
  if (!done) {
    throw new Error('The spreadsheet is busy (another execution holds its lock). Try again in a moment.');
  }
  return done.value;
}

export const documentLock: DocumentLock = { tryWith: tryWithDocumentLock };
