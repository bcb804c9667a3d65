/** The limits the emulator applies, each with the Apps Script documentation it comes from. */

// https://developers.google.com/apps-script/guides/services/quotas: "Script runtime 6 min / execution",
// "Custom function runtime 30 sec / execution".
export const EXECUTION_LIMIT_MS = 6 * 60 * 1000;
export const CUSTOM_FUNCTION_LIMIT_MS = 30 * 1000;
// apps-script/guides/triggers#restrictions: simple triggers "cannot run for longer than 30 seconds".
export const SIMPLE_TRIGGER_LIMIT_MS = 30 * 1000;
// Same page: "URL Fetch calls 20,000 / day" (consumer accounts).
export const URLFETCH_DAILY_QUOTA = 20000;
// UrlFetchApp gives up on a request after about 60 s (observed "Timeout: <url>" errors at that mark).
export const FETCH_TIMEOUT_MS = 60000;
// Apps Script's message when an execution runs out of time
// (https://developers.google.com/apps-script/guides/support/troubleshooting).
export const TIME_LIMIT_MESSAGE = 'Exceeded maximum execution time';
// https://developers.google.com/apps-script/guides/services/quotas: "Simultaneous executions 30 / user", and its
// error text for them (most common with custom functions called repeatedly in one spreadsheet).
export const SIMULTANEOUS_EXECUTIONS_PER_USER = 30;
export const TOO_MANY_SIMULTANEOUS_MESSAGE =
  'There are too many scripts running simultaneously for this Google user account.';
/** How long a new worker thread may take to start an execution before the time limit applies anyway. */
export const WORKER_START_GRACE_MS = 10_000;
/** How long close() lets executions under way finish before it stops their worker threads. */
export const CLOSE_GRACE_MS = 2000;
/** Executions that may run at once by default (worker threads). Sheets evaluates custom functions in parallel. */
export const DEFAULT_MAX_CONCURRENT = 16;

/**
 * LockService's rate quota, as reported (googleworkspace/apps-script-oauth2#207); the other reported text is
 * "Service invoked too many times in a short time: lockBean rateMax" (nuadi/googlecrestscript#19).
 */
export const TOO_MANY_LOCK_OPERATIONS = 'There are too many LockService operations against the same script.';
export const LOCK_RATE_MAX_MESSAGE = 'Service invoked too many times in a short time: lockBean rateMax';
/**
 * The quota's figure is neither documented nor reported: the default is ours, of the order nuadi/googlecrestscript#19
 * met it at (a spreadsheet of 100+ custom functions, each taking and releasing a lock).
 */
export const DEFAULT_LOCK_RATE_LIMIT = { calls: 100, windowMs: 1000 } as const;
/**
 * "Spreadsheet operations are sometimes bundled together" (apps-script/reference/spreadsheet/spreadsheet-app#flush):
 * which are, is undocumented. By default half of the writes made before a flush are applied at once (seeded), so
 * neither a reader that needs a flush nor one that must not see a write early passes by luck.
 */
export const DEFAULT_LIVE_WRITES = { probability: 0.5, seed: 1 } as const;
/** What releaseLock throws with `strictFlush` when the execution's sheet writes are not flushed. */
export const RELEASE_WITH_PENDING_WRITES =
  'Lock released with sheet writes not flushed: call SpreadsheetApp.flush() before releaseLock().';
