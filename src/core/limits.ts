/**
 * Every limit and default of the add-on, in one place, each with where it comes from. Pure: no Apps Script global
 * (the sidebar's browser code reads some of these too). Documentation pages are under developers.google.com.
 */
import type { Settings } from './sidebarState';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

// ------------------------------------------------------------------------------------------------ Apps Script
/** One execution runs at most 6 minutes (apps-script/guides/services/quotas). */
export const EXECUTION_LIMIT_MS = 6 * MINUTE;
/** A custom function returns within 30 seconds (apps-script/guides/sheets/functions#guidelines). */
export const CUSTOM_FUNCTION_LIMIT_MS = 30 * SECOND;
/** Properties: 500 KB per store, 9 KB per value (apps-script/guides/services/quotas). */
export const PROPERTY_STORE_BYTES = 500 * 1024;
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

// ------------------------------------------------------------------------------------------------ Requests
/** Bounded exponential backoff for retryable failures (500, 429, transport, time-out). */
export const DEFAULT_RETRY = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 4000 } as const;

// ------------------------------------------------------------------------------------------------ =FINDEMAIL
/**
 * No request batch starts unless, judging by the slowest batch so far, it ends before this; the rest of the 30 s
 * custom-function limit is the margin.
 */
export const FORMULA_WORK_BUDGET_MS = 22 * SECOND;
/**
 * Until a batch was timed, none starts later than this share of the budget (12 s of 22): a batch may take 10 s
 * or more, and one started after waiting on another cell must still end within the 30 s.
 */
export const FORMULA_UNTIMED_START_SHARE = 12 / 22;
/** Requests per fetchAll of a formula (script property FETCH_CONCURRENCY overrides). */
export const DEFAULT_CONCURRENCY = 20;
/**
 * A formula's claim outlives the execution that made it (30 s at most): a claim that expired belongs to an ended
 * execution, so taking the URL over never sends it while another cell still waits for its answer.
 */
export const FORMULA_CLAIM_SECONDS = Math.ceil(CUSTOM_FUNCTION_LIMIT_MS / SECOND) + 1;
/** After a 401 or 402 all formulas of the document stop calling the service this long. */
export const HALT_SECONDS = 120;
/** A charged answer within this long proves the owner's account works: no probe request first. */
export const ACCOUNT_OK_SECONDS = 600;
/** A formula waiting on another cell's claim polls first after this, doubling up to POLL_MAX_MS. */
export const POLL_FIRST_MS = 250;
export const POLL_MAX_MS = 1000;

/** What formulas may spend per day in a spreadsheet unless its owner sets otherwise (our choice: a few hundred rows). */
export const DEFAULT_FORMULA_DAILY_CAP = 500;
export const MAX_FORMULA_DAILY_CAP = 1_000_000;

// ------------------------------------------------------------------------------------------------ Bulk run
/** A slice works at most this long, a wide margin under the 6-minute execution limit for the last batch and save. */
export const DEFAULT_STEP_BUDGET_MS = 45 * SECOND;
/** The first slice, started from the menu, is short: the sidebar, open then, drives the rest. */
export const FIRST_SLICE_MAX_MS = 15 * SECOND;
/** Rows per window and requests per fetchAll (script property ENRICH_BATCH_SIZE overrides, up to the maximum). */
export const DEFAULT_BATCH_SIZE = 20;
export const MAX_BATCH_SIZE = 100;
/**
 * A slice's lease lasts as long as an execution may: its last batch always goes out, and UrlFetchApp gives up on
 * a request only after about a minute, so a shorter lease could end while the slice still works.
 */
export const LEASE_MS = EXECUTION_LIMIT_MS;
/** The bulk run's claims on URLs it sends outlive the execution sending them (same reason). */
export const BULK_CLAIM_SECONDS = LEASE_MS / SECOND;
/** Passes over the range: later ones pick up rows that moved during the run. */
export const MAX_PASSES = 3;

// ------------------------------------------------------------------------------------------------ Sidebar
/** Retries of continueEnrichment() after a failure before the sidebar's loop stops and waits for Resume. */
export const DRIVE_ATTEMPTS = 3;
/** Longest pause between two continueEnrichment() calls that made no progress (another execution holds the run). */
export const MAX_IDLE_WAIT_MS = 10 * SECOND;
/** How often a sidebar shows the progress of someone else's run (one short execution each). */
export const WATCH_INTERVAL_MS = 5 * SECOND;

// ------------------------------------------------------------------------------------------------ Defaults
export const DEFAULT_SETTINGS: Settings = { writeHeader: true, extraFields: false, confirmAbove: 100 };
/** The largest "ask before a run above N credits" a user may set. */
export const MAX_CONFIRM_ABOVE = 1_000_000;
