/**
 * LockService: the document lock, with one wait policy for every caller. Apps Script's lock is not counted:
 * a nested release frees it, so no code takes it while holding it.
 */

import { LOCK_WAIT_MS, STORE_LOCK_ATTEMPTS } from '../core/limits';
import type { Clock, DocumentLock } from '../lookup/ports';
import { DocumentBusyError } from '../platform/errors';
import { systemClock } from './clock';

/** The one wait policy: LOCK_WAIT_MS, never past the caller's deadline. */
export function lockWaitMs(deadline = Number.POSITIVE_INFINITY): number {
  return Math.max(0, Math.min(LOCK_WAIT_MS, deadline - systemClock.now()));
}

/** This execution's globals are its own (apps-script/guides/sheets/functions): the flags are per execution. */
let quotaRefused = false;
/** This execution holds the document lock now. */
let holding = false;

/** Whether this execution holds the document lock now (a dialog must not be shown then: ./ui.ts). */
export function documentLockHeld(): boolean {
  return holding;
}

/** Whether LockService threw (its rate quota) in this execution: no caller should try again soon. */
export function lockServiceRefused(): boolean {
  return quotaRefused;
}

/** The document lock, or null in an execution without a document (or when LockService refuses). */
function lockOrNull(): GoogleAppsScript.Lock.Lock | null {
  try {
    return LockService.getDocumentLock();
  } catch {
    quotaRefused = true;
    return null;
  }
}

/**
 * Whether the lock was taken. LockService has a rate quota (reported, not on the quotas page): past it `tryLock`
 * throws "There are too many LockService operations against the same script." (googleworkspace/apps-script-oauth2
 * #207) or "…lockBean rateMax" (nuadi/googlecrestscript#19). Any exception counts as busy.
 */
function taken(lock: GoogleAppsScript.Lock.Lock, deadline?: number): boolean {
  try {
    return lock.tryLock(lockWaitMs(deadline));
  } catch {
    quotaRefused = true;
    return false;
  }
}

/**
 * "If you are working with a spreadsheet, you should call SpreadsheetApp.flush() prior to releasing the lock"
 * (apps-script/reference/lock/lock#releaselock): another execution taking the lock may otherwise read the sheet
 * without this one's writes. When the flush fails the lock is kept: the execution's end applies its writes, then
 * frees it. A failed release is not the work's failure (the end of the execution frees the lock too).
 */
function release(lock: GoogleAppsScript.Lock.Lock, sheetWrites: boolean): void {
  try {
    if (sheetWrites) SpreadsheetApp.flush();
  } catch {
    return;
  }
  try {
    lock.releaseLock();
  } catch {
    // Freed at the end of the execution.
  }
}

/**
 * Runs `work` holding the document lock; undefined when the lock stayed busy (or LockService refused). The sheet
 * is flushed before the lock is released, unless the execution cannot write it (`sheetWrites` false: a custom
 * function).
 */
export function tryWithDocumentLock<T>(
  work: () => T,
  deadline?: number,
  sheetWrites = true,
): { value: T } | undefined {
  const lock = lockOrNull();
  if (!lock || !taken(lock, deadline)) return undefined;
  holding = true;
  try {
    return { value: work() };
  } finally {
    holding = false;
    release(lock, sheetWrites);
  }
}

/** Runs `work` holding the document lock; throws DocumentBusyError when it stays busy. */
export function withDocumentLock<T>(work: () => T): T {
  const done = tryWithDocumentLock(work);
  if (!done) throw new DocumentBusyError();
  return done.value;
}

/**
 * Runs `work` holding the document lock, trying up to STORE_LOCK_ATTEMPTS times; throws DocumentBusyError when it
 * stays busy. For what should not wait for the next execution (a slice's last rows and its window): even
 * LockService's refusal (its rate quota, reported) is tried again, a few times, 1, 2, 4 s apart. `sheetWrites`: the execution may write the
 * spreadsheet (its writes are flushed before the release).
 */
export function withDocumentLockRetried<T>(clock: Clock, work: () => T, sheetWrites = true): T {
  for (let attempt = 0; attempt < STORE_LOCK_ATTEMPTS; attempt++) {
    const started = clock.now();
    const done = tryWithDocumentLock(work, undefined, sheetWrites);
    if (done) return done.value;
    if (clock.now() - started < LOCK_WAIT_MS / 2) clock.sleep(1000 * 2 ** attempt);
  }
  throw new DocumentBusyError(
    'The spreadsheet stayed busy (another execution held its lock); try again in a moment.',
  );
}

/** The document lock of an execution that may write the spreadsheet: flushed before each release. */
export const documentLock: DocumentLock = { tryWith: tryWithDocumentLock, refused: lockServiceRefused };

/** The document lock of a custom function (it cannot write the spreadsheet: nothing to flush). */
export const readOnlyDocumentLock: DocumentLock = {
  tryWith: (work, deadline) => tryWithDocumentLock(work, deadline, false),
  refused: lockServiceRefused,
};
