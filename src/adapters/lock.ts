/** LockService's document lock, one wait policy for every caller (a nested release would free it: none). */
import { LOCK_WAIT_MS, STORE_LOCK_ATTEMPTS } from '../core/limits';
import { DocumentBusyError, type DocumentLock } from '../core/ports';

/** A dialog must not be shown then (./ui.ts). */
let holding = false;
/** LockService threw (its rate quota) for the last lock not taken: no other execution held it. */
let refused = false;

export function documentLockHeld(): boolean {
  return holding;
}

/**
 * LockService may throw (reported: "There are too many LockService operations against the same script.",
 * googleworkspace/apps-script-oauth2#207). Flushed before the release (apps-script/reference/lock/lock#releaselock).
 */
function tryWith<T>(work: () => T, deadline = Number.POSITIVE_INFINITY): { value: T } | undefined {
  let lock: GoogleAppsScript.Lock.Lock;
  try {
    refused = false;
    lock = LockService.getDocumentLock();
    if (!lock.tryLock(Math.max(0, Math.min(LOCK_WAIT_MS, deadline - Date.now())))) return undefined;
  } catch {
    refused = true;
    return undefined;
  }
  holding = true;
  try {
    return { value: work() };
  } finally {
    holding = false;
    try {
      SpreadsheetApp.flush();
      lock.releaseLock();
    } catch {
      // Freed at the execution's end, its writes applied first.
    }
  }
}

export const documentLock: DocumentLock = {
  tryWith,
  with(work) {
    const done = tryWith(work);
    if (!done) throw new DocumentBusyError(refused);
    return done.value;
  },
  withRetried(work) {
    for (let attempt = 0; attempt < STORE_LOCK_ATTEMPTS; attempt++) {
      const started = Date.now();
      const done = tryWith(work);
      if (done) return done.value;
      if (Date.now() - started < LOCK_WAIT_MS / 2) Utilities.sleep(1000 * 2 ** attempt);
    }
    throw new DocumentBusyError(refused);
  },
};
