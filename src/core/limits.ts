/**
 * Every limit and default of the add-on, in one place, each with where it comes from. Pure: no Apps Script global
 * (the sidebar's browser code reads some of these too). Documentation pages are under developers.google.com.
 */
import type { Settings } from '../api';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

// ------------------------------------------------------------------------------------------------ Apps Script
/** One execution runs at most 6 minutes (apps-script/guides/services/quotas). */
export const EXECUTION_LIMIT_MS = 6 * MINUTE;
/** A custom function returns within 30 seconds (apps-script/guides/sheets/functions#guidelines). */
export const CUSTOM_FUNCTION_LIMIT_MS = 30 * SECOND;
/** Properties: 500 KB per store, 9 KB per value (apps-script/guides/services/quotas). */
export const PROPERTY_STORE_BYTES = 500 * 1024;
/** UTF-8 bytes of a record the store splits across property values: below a value's 9 KB with room to spare. */
export const PROPERTY_RECORD_BYTES = 8000;
/**
 * Web requests (UrlFetchApp calls) a day: 20,000 for a consumer account, 100,000 for Google Workspace, per user
 * (apps-script/guides/services/quotas); src/core/webRequests.ts counts the add-on's own.
 */
export const DAILY_WEB_REQUESTS = 20_000;
export const WORKSPACE_DAILY_WEB_REQUESTS = 100_000;
/** The quotas reset 24 hours after the quota day's first request (apps-script/guides/services/quotas). */
export const QUOTA_DAY_MS = 24 * 3600 * 1000;
/** CacheService keeps an item at most 6 hours (apps-script/reference/cache/cache). */
export const CACHE_LONGEST_SECONDS = 6 * 3600;
/** Document lock: the one wait of every caller (our choice; LockService allows any). Bounded by a caller's deadline. */
export const LOCK_WAIT_MS = 5 * SECOND;

// ------------------------------------------------------------------------------------------------ Result store
/**
 * Results =FINDEMAIL paid for wait in document properties until a writing execution moves them into the results
 * sheet. While they take more than this, formulas send nothing new (the cell says why): 250 KB of the 500 KB
 * store, so batches already under way (a few KB each) and the job's state always fit.
 */
export const PENDING_RESULTS_BUDGET_BYTES = 250 * 1024;
/** What one pending result is counted as before it is known (key and a typical encoded answer). */
export const PENDING_RESULT_RESERVE_BYTES = 300;
/**
 * Claims one execution puts into the document cache at once. CacheService keeps at most 1,000 items and, past
 * that, only the 900 farthest from expiry (apps-script/reference/cache/cache): a quarter of it leaves room for
 * other executions' claims and the markers. The rest of the keys are claimed when these are done.
 */
export const MAX_CLAIMS_AT_ONCE = 250;
/** A store write waits for the document lock this many times (LOCK_WAIT_MS each) before giving up. */
export const STORE_LOCK_ATTEMPTS = 4;
/**
 * Rows kept for the results sheet's log (src/store/table.ts): a reader reads them all in one call anyway, and a
 * write that would make the log longer merges it into the buckets (one read and one write of 4,096 rows, a second
 * or more while it holds the lock: as seldom as the log allows).
 */
export const LOG_ROWS = 1000;
export const LOG_COMPACT_AT = LOG_ROWS;
/** Sheets holds at most 50,000 characters in a cell (its own error message says so); a bucket cell stays below. */
export const CELL_CHARS = 45_000;
/** Above this many buckets, one read of every bucket row costs less than a read per bucket (our measure). */
export const READ_ALL_BUCKETS_ABOVE = 16;
/**
 * Bounds on every field of a result the add-on keeps, in UTF-16 code units; a longer value is cut and ends with
 * src/lookup/result.ts's CUT_MARKER. A property value holds at most 9 KB (Apps Script throws "Argument too large:
 * value" above it, apps-script/guides/services/quotas), and one write carries a whole batch: one oversized answer
 * (a 10 KB name) would lose every result of its batch.
 */
export const FIELD_LIMITS = {
  /** A person's name: far above any real one. */
  name: 200,
  /** RFC 5321 caps an address at 64 + 1 + 255 characters; a longer one is refused, not cut (offContract). */
  email: 320,
  /** `email_status`, `account_type`: single words in the contract (VALID, professional). */
  status: 40,
  /** `updated_at`: an ISO 8601 timestamp is 25 characters. */
  updatedAt: 40,
  /** The 422 `message`: one sentence in the contract. */
  message: 500,
} as const;

// ------------------------------------------------------------------------------------------------ Requests
/** Bounded exponential backoff for retryable failures (500, 429, transport, time-out). */
export const DEFAULT_RETRY = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 4000 } as const;
/**
 * Tries of a request answered 429 before its row is an ERROR: a refusal is never charged, and each try waits for
 * the answer's Retry-After (within the time budget), so more tries cost time, not credits.
 */
export const RATE_LIMITED_ATTEMPTS = 6;

// ------------------------------------------------------------------------------------------------ =FINDEMAIL
/**
 * No request batch starts unless it ends before this even when one request is as slow as the slowest plausible
 * answer (FORMULA_TAIL_FACTOR); the rest of the 30 s custom-function limit is the margin for the start of the
 * execution (loading the bundle) and returning the values.
 */
export const FORMULA_WORK_BUDGET_MS = 26 * SECOND;
/**
 * The slowest plausible answer of a formula's batch: this many times the slowest batch of the execution so far.
 * Our choice: a long-tailed service's slowest of 100 answers is near its 99th percentile; twice that is beyond what
 * it plausibly takes. UrlFetchApp has no per-request timeout (docs/design.md, "The 30-second budget of =FINDEMAIL").
 */
export const FORMULA_TAIL_FACTOR = 2;
/**
 * Until a batch was timed, none starts later than this share of the budget (about 14 s of 26): a batch may take 10 s
 * or more, and one started after waiting on another cell must still end within the 30 s.
 */
export const FORMULA_UNTIMED_START_SHARE = 12 / 22;
/**
 * Requests in a formula's first batch when no pace is kept (src/lookup/pace.ts adapts it from there; the script
 * property FETCH_CONCURRENCY fixes it instead): a formula has room for only a few batches in its 30 s.
 */
export const DEFAULT_CONCURRENCY = 20;
/**
 * A formula's claim outlives the execution that made it (30 s at most): a claim that expired belongs to an ended
 * execution, so taking the URL over never sends it while another cell still waits for its answer.
 */
export const FORMULA_CLAIM_SECONDS = Math.ceil(CUSTOM_FUNCTION_LIMIT_MS / SECOND) + 1;
/**
 * A formula whose claim found the document lock busy or refused (LockService's rate quota, reported: "too many
 * LockService operations") tries again after a pause of this much, doubled at each refusal of the same cell (at
 * most 16 times), times a random factor from 1 to 2 (cells refused together do not come back together), while its
 * budget allows: the quota's window passes meanwhile, so a refusal slows the cells by what the quota lets through,
 * not for a fixed time, and the retries do not keep the quota spent.
 */
export const FORMULA_LOCK_PAUSE_MS = SECOND;
/**
 * Give-back records (written while the document lock was busy) a locked reservation folds into the day's spend at
 * most, and deletes at most: it holds the lock for one property call each.
 */
export const GIVE_BACKS_FOLDED_AT_ONCE = 20;
/**
 * A reservation reads the document properties' names for give-back records at least this often even when the
 * cache's marker (best-effort) says none is waiting; the marker lives the cache's longest.
 */
export const GIVE_BACK_CHECK_MS = 10 * MINUTE;
export const GIVE_BACK_MARKER_SECONDS = CACHE_LONGEST_SECONDS;
/**
 * A spreadsheet where a formula was refused a document property write says so in the document cache this long (the
 * cache's longest), then a formula checks again (src/formula/writeCheck.ts).
 */
export const FORMULA_WRITES_REFUSED_SECONDS = CACHE_LONGEST_SECONDS;
/** After a 401 or 402 all formulas of the document stop calling the service this long. */
export const HALT_SECONDS = 120;
/** A charged answer within this long proves the owner's account works: no account check first. */
export const ACCOUNT_OK_SECONDS = 600;
/**
 * Formulas take the script properties from the script cache's copy this long (src/adapters/scriptConfig.ts): a
 * change of a script property reaches formulas within it; bulk runs and the sidebar read them fresh.
 */
export const SCRIPT_CONFIG_CACHE_SECONDS = 600;
/** A formula waiting on another cell's claim polls first after this, doubling up to POLL_MAX_MS. */
export const POLL_FIRST_MS = 250;
export const POLL_MAX_MS = 1000;

/** What formulas may spend a day in a spreadsheet unless its owner sets otherwise (our choice: a few hundred rows). */
export const DEFAULT_FORMULA_DAILY_CAP = 500;
export const MAX_FORMULA_DAILY_CAP = 1_000_000;

// ------------------------------------------------------------------------------------------------ Bulk run
/** A slice works at most this long, a wide margin under the 6-minute execution limit for the last batch and save. */
export const DEFAULT_STEP_BUDGET_MS = 45 * SECOND;
/**
 * Start's or Resume's own slice (a run, or its rest, of one batch's lookups) is short: the sidebar, open then, drives
 * anything left (src/bulk/slice.ts openingSlice).
 */
export const FIRST_SLICE_MAX_MS = 15 * SECOND;
/**
 * Windows Start's or Resume's own slice works (its batch and that batch's retries) before it answers; more lookups
 * than one batch are left to the sidebar's slices from the answer.
 */
export const FIRST_SLICE_WINDOWS = 1;
/**
 * Requests per fetchAll at most, for the adaptive size of the bulk run and formulas (src/lookup/pace.ts); the script
 * property FETCH_MAX_CONCURRENCY sets another cap. Apps Script documents no limit for fetchAll.
 */
export const DEFAULT_MAX_CONCURRENCY = 100;
/**
 * A =FINDEMAIL execution sends the free key check (src/lookup/keyCheck.ts) only when its first batch
 * may hold more than this many URLs: cells of one URL (the common case) must not send one each.
 */
export const FORMULA_KEY_CHECK_ABOVE = 4;
/**
 * The sidebar looks for a column of single =FINDEMAIL cells only on sheets of at most this many cells (rows ×
 * columns of the data): the look reads the formulas of every cell, on each opening. Refresh looks on any sheet.
 */
export const SINGLE_CELLS_LOOK_MAX_CELLS = 100_000;
/** The largest FETCH_MAX_CONCURRENCY, ENRICH_BATCH_SIZE or FETCH_CONCURRENCY taken (our bound). */
export const MAX_BATCH_SIZE = 1000;
/** Rows a bulk window plans at most, whatever share of them needs a lookup (bounds a slice's reads and memory). */
export const MAX_WINDOW_ROWS = 500;
/**
 * UrlFetchApp gives up on a request after about a minute (reported: it has no timeout option), and a request an
 * execution sent is not recalled when the execution ends: its answer (and its charge) may come this long after.
 */
export const REQUEST_OUTLIVES_MS = 60 * SECOND;
/**
 * A slice's window, its claims and sending records last this long from the slice's start: its execution has ended
 * by then (apps-script/guides/services/quotas), so a window, a claim or a record past it belongs to no one.
 */
export const LEASE_MS = EXECUTION_LIMIT_MS;
/**
 * Executions a person may have at once: 30 (apps-script/guides/services/quotas); past it a call fails with "too
 * many scripts running simultaneously".
 */
export const USER_SIMULTANEOUS_EXECUTIONS = 30;
/**
 * One sidebar page runs at most 10 google.script.run calls at once; an 11th waits for one to end
 * (apps-script/guides/html/communication; Firefox's own limit is 6).
 */
export const PAGE_CONCURRENT_CALLS = 10;
/**
 * Slices of one bulk run at once, at most, by default (script property BULK_SLICES for more or fewer): four of a
 * person's 30 executions, where the bench shows four gain over three (bench/README.md).
 */
export const DEFAULT_SLICES = 4;
/**
 * The most slices of one run at once BULK_SLICES may ask for: of the page's calls, one stays for the progress look
 * and two for a person's clicks (Pause, Cancel, a tab), so a click never waits behind a slice's 45 s; of the
 * person's 30 executions, the rest stay free for formulas and other sidebars.
 */
export const MAX_SLICES = PAGE_CONCURRENT_CALLS - 3;
/**
 * Requests in flight a slice sends at least for the sidebar to drive one more (our choice): the run's pace split
 * finer costs a lock per window and an execution each, for little less waiting on the slowest answer.
 */
export const SLICE_MIN_SHARE = 5;
/**
 * A slice waiting for room in its run's pace (the other slices' batches fill it) holds the lock again when the first
 * of those batches may be back, at least and at most this long (our choice: each look is a LockService call).
 */
export const MIN_ROOM_WAIT_MS = 500;
export const MAX_ROOM_WAIT_MS = 5000;
/** Passes over the range: later ones pick up rows that moved during the run. */
export const MAX_PASSES = 3;
/** The new profiles a trial run ("Try 10 rows first") looks up: the sidebar offers it, the plan runs it. */
export const TRIAL_PROFILES = 10;
/**
 * A running job whose lease is free (no slice works on it) and untouched this long has no driver: its sidebar was
 * closed. A sidebar that drives calls the next slice at once after one ends, or within MAX_IDLE_WAIT_MS (10 s)
 * when another execution holds the run; a slice holds the lease while it works.
 */
export const WAITING_AFTER_MS = 30 * SECOND;
/** Edits larger than this (a paste of a whole table) leave a run's results alone: onEdit must stay cheap. */
export const MAX_EDITED_ROWS = 5000;
/** How many runs a spreadsheet remembers. */
export const HISTORY_LENGTH = 5;

// ------------------------------------------------------------------------------------------------ Watch
/** A watch's daily limit as the Watch tab first offers it (the field's value in src/sidebar/Sidebar.html). */
export const DEFAULT_WATCH_LIMIT = 100;
/** The largest daily limit a watch takes (our bound; the Watch tab's field says it too). */
export const MAX_WATCH_LIMIT = 100_000;
/** A watch's trigger run ends its last slice well inside the 6-minute limit. */
export const WATCH_RUN_BUDGET_MS = EXECUTION_LIMIT_MS - 90 * SECOND;
/** Plans and runs one trigger run makes at most (rows keep arriving while it works). */
export const WATCH_MAX_ROUNDS = 20;

// ------------------------------------------------------------------------------------------------ Credits log
/** Rows added at once when the credits log's sheet is full: fewer row insertions over a long log. */
export const CREDITS_LOG_GROW_ROWS = 2000;
/** The last runs the Credits tab lists. */
export const CREDITS_RUNS_SHOWN = 8;
/** Rows one execution copies: 20,000 rows take four executions, each far from the 6-minute limit. */
export const EXPORT_ROWS_PER_CALL = 5000;
/** Executions one export of the Credits tab calls at most (EXPORT_ROWS_PER_CALL rows each: a million rows). */
export const MAX_EXPORT_STEPS = 200;

// ------------------------------------------------------------------------------------------------ Profile URLs
/** Text longer than this is not a profile URL (our bound; no credit is spent on it). */
export const MAX_URL_LENGTH = 2048;
/** An API key's length, our plausible bounds (the service names none): a shorter or longer paste is refused. */
export const API_KEY_MIN_CHARS = 8;
export const API_KEY_MAX_CHARS = 256;
/** The network caps a public profile id ("custom URL") at 100 characters. */
export const MAX_PROFILE_ID_LENGTH = 100;

// ------------------------------------------------------------------------------------------------ Sidebar
/** Retries of continueEnrichment() after a failure before the sidebar's loop stops and waits for Resume. */
export const DRIVE_ATTEMPTS = 3;
/** Longest pause between two continueEnrichment() calls that made no progress (another execution holds the run). */
export const MAX_IDLE_WAIT_MS = 10 * SECOND;
/**
 * While one of its calls works on the run (Start's first slice, a continueEnrichment), how often the sidebar asks
 * for the progress the slice saved after each window, so its figures move with the credits charged.
 */
export const PROGRESS_LOOK_MS = 2 * SECOND;
/**
 * The first looks of a drive come sooner (our choice): a run's slices join its pace in its first seconds, and the
 * sidebar adds them as the looks say so; at a fast service a run of 1,000 rows is done within a few looks.
 */
export const EARLY_LOOK_MS = SECOND / 2;
export const EARLY_LOOKS = 4;
/** How often a sidebar shows the progress of someone else's run (one short execution each). */
export const WATCH_INTERVAL_MS = 5 * SECOND;

// ------------------------------------------------------------------------------------------------ Defaults
export const DEFAULT_SETTINGS: Settings = {
  writeHeader: true,
  extraFields: false,
  startAtOnce: false,
  startAtOnceUnder: 10,
};
/** The largest "start runs under N credits at once" a user may set (the Settings tab's field says it too). */
export const MAX_START_AT_ONCE_UNDER = 1_000_000;
