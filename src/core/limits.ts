/** Every limit and default, with its source (pages of developers.google.com). Pure: the sidebar reads it. */
import type { Settings } from '../api';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** An execution's limit, a custom function's (apps-script/guides/services/quotas). */
export const EXECUTION_LIMIT_MS = 6 * MINUTE;
const CUSTOM_FUNCTION_LIMIT_MS = 30 * SECOND;

// ------------------------------------------------------------------------------------------------ Apps Script
/** UTF-8 bytes of a record the store splits across property values: below a value's 9 KB. */
export const PROPERTY_RECORD_BYTES = 8000;
/** The document lock's one wait (our choice), bounded by a caller's deadline. */
export const LOCK_WAIT_MS = 5 * SECOND;

// ------------------------------------------------------------------------------------------------ Result store
/** Past this of the 500 KB properties, formulas' pending results stop new sends: batches still fit. */
export const PENDING_RESULTS_BUDGET_BYTES = 250 * 1024;
/** A pending result before it is known (key and a typical encoded answer). */
export const PENDING_RESULT_RESERVE_BYTES = 300;
/** Tries of a store write for the document lock (LOCK_WAIT_MS each). */
export const STORE_LOCK_ATTEMPTS = 4;
/** The results sheet's log rows (read in one call); past them a write merges it into the buckets. */
export const LOG_ROWS = 1000;
export const LOG_COMPACT_AT = LOG_ROWS;
/** Sheets holds at most 50,000 characters in a cell (its error message says so). */
export const CELL_CHARS = 45_000;
/** Above this many buckets, one read of all costs less than a read each (our measure). */
export const READ_ALL_BUCKETS_ABOVE = 16;
/**
 * UTF-16 bounds of a kept result's fields (cut, CUT_MARKER): one answer past a value's 9 KB ("Argument too
 * large: value", apps-script/guides/services/quotas) would lose its whole batch.
 */
export const FIELD_LIMITS = {
  name: 200,
  /** RFC 5321: 64 + 1 + 255; a longer one is refused, not cut. */
  email: 320,
  /** `email_status`, `account_type`: single words. */
  status: 40,
  updatedAt: 40,
  message: 500,
} as const;

// ------------------------------------------------------------------------------------------------ Requests
export const DEFAULT_RETRY = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 4000 } as const;
/** Tries of a request answered 429 (never charged; each waits for Retry-After): time, not credits. */
export const RATE_LIMITED_ATTEMPTS = 6;

// ------------------------------------------------------------------------------------------------ =FINDEMAIL
/** A formula's batch ends before this at its slowest; the rest of the 30 s is for loading and returning. */
export const FORMULA_WORK_BUDGET_MS = 26 * SECOND;
/** A formula's sending record outlives its execution (30 s at most): past it, its keys at the service are lost. */
export const FORMULA_RECORD_MS = CUSTOM_FUNCTION_LIMIT_MS + SECOND;
/**
 * A formula refused the lock (rate quota, reported: "too many LockService operations") pauses this, doubled
 * per refusal (16 at most), times 1 to 2 at random: the quota's window passes meanwhile.
 */
export const FORMULA_LOCK_PAUSE_MS = SECOND;
/** After a 401 or 402, formulas stop calling the service this long. */
export const HALT_SECONDS = 120;
/** A formula waiting on another cell's claim polls after this, doubling up to POLL_MAX_MS. */
export const POLL_FIRST_MS = 250;
export const POLL_MAX_MS = 1000;

/** Formulas' daily spend per spreadsheet unless its owner sets otherwise (our choice). */
export const DEFAULT_FORMULA_DAILY_CAP = 500;
export const MAX_FORMULA_DAILY_CAP = 1_000_000;

// ------------------------------------------------------------------------------------------------ Bulk run
/** A slice's work, a wide margin under the 6 minutes for the last batch and save. */
export const DEFAULT_STEP_BUDGET_MS = 45 * SECOND;
/** Start's or Resume's own slice is short: the sidebar, open then, drives the rest. */
export const FIRST_SLICE_MAX_MS = 15 * SECOND;
/** Requests per fetchAll at most (FETCH_MAX_CONCURRENCY sets another): Apps Script documents no limit. */
export const DEFAULT_MAX_CONCURRENCY = 100;
/** The sidebar looks for single =FINDEMAIL cells (reading every formula) only on sheets this small. */
export const SINGLE_CELLS_LOOK_MAX_CELLS = 100_000;
/** The largest FETCH_MAX_CONCURRENCY, ENRICH_BATCH_SIZE or FETCH_CONCURRENCY taken (our bound). */
export const MAX_BATCH_SIZE = 1000;
/** Rows a bulk window plans at most (bounds a slice's reads and memory). */
export const MAX_WINDOW_ROWS = 500;
/** UrlFetchApp gives up after about a minute (reported; no timeout option); a request outlives its sender. */
export const REQUEST_OUTLIVES_MS = 60 * SECOND;
/** A slice's window, claims and records: its execution has ended by then (apps-script/guides/services/quotas). */
export const LEASE_MS = EXECUTION_LIMIT_MS;
/** Past it: "too many scripts running simultaneously" (apps-script/guides/services/quotas). */
export const USER_SIMULTANEOUS_EXECUTIONS = 30;
/** google.script.run calls of a page at once (apps-script/guides/html/communication; Firefox: 6). */
export const PAGE_CONCURRENT_CALLS = 10;
/** Slices of a run at once unless BULK_SLICES says: four gain over three (bench/README.md). */
export const DEFAULT_SLICES = 4;
/** One page call stays for the progress look, two for clicks: a click never waits behind a slice's 45 s. */
export const MAX_SLICES = PAGE_CONCURRENT_CALLS - 3;
/** Later passes pick up rows that moved during the run. */
export const MAX_PASSES = 3;
/** "Try 10 rows first". */
export const TRIAL_PROFILES = 10;
/** A running job unleased and untouched this long has no driver (a sidebar calls within MAX_IDLE_WAIT_MS). */
export const WAITING_AFTER_MS = 30 * SECOND;
/** Larger edits leave a run's results alone: onEdit must stay cheap. */
export const MAX_EDITED_ROWS = 5000;
export const HISTORY_LENGTH = 5;

// ------------------------------------------------------------------------------------------------ Watch
/** As src/sidebar/Sidebar.html's field first offers it. */
export const DEFAULT_WATCH_LIMIT = 100;
/** Our bound; the Watch tab's field says it too. */
export const MAX_WATCH_LIMIT = 100_000;
export const WATCH_RUN_BUDGET_MS = EXECUTION_LIMIT_MS - 90 * SECOND;
/** Rounds of one trigger run (rows keep arriving while it works). */
export const WATCH_MAX_ROUNDS = 20;

// ------------------------------------------------------------------------------------------------ Credits log
/** Rows added at once when the credits log is full. */
export const CREDITS_LOG_GROW_ROWS = 2000;
export const CREDITS_RUNS_SHOWN = 8;
/** Rows an export copies per execution, far from the 6-minute limit. */
export const EXPORT_ROWS_PER_CALL = 5000;
/** Executions of one export at most (a million rows). */
export const MAX_EXPORT_STEPS = 200;

// ------------------------------------------------------------------------------------------------ Profile URLs
/** Our bound. */
export const MAX_URL_LENGTH = 2048;
/** Our bounds (the service names none). */
export const API_KEY_MIN_CHARS = 8;
export const API_KEY_MAX_CHARS = 256;
/** The network's cap on a public profile id ("custom URL"). */
export const MAX_PROFILE_ID_LENGTH = 100;

// ------------------------------------------------------------------------------------------------ Sidebar
/** Failed continueEnrichment() calls before the sidebar's loop waits for Resume. */
export const DRIVE_ATTEMPTS = 3;
/** Longest pause between continueEnrichment() calls that made no progress. */
export const MAX_IDLE_WAIT_MS = 10 * SECOND;
/** While its call works on the run, the sidebar reads the progress saved after each window this often. */
export const PROGRESS_LOOK_MS = 2 * SECOND;
/** How often a sidebar shows someone else's run. */
export const WATCH_INTERVAL_MS = 5 * SECOND;

// ------------------------------------------------------------------------------------------------ Defaults
export const DEFAULT_SETTINGS: Settings = {
  writeHeader: true,
  extraFields: false,
  startAtOnce: false,
  startAtOnceUnder: 10,
};
/** The Settings tab's field says it too. */
export const MAX_START_AT_ONCE_UNDER = 1_000_000;
