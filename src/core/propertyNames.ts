/**
 * Every name the add-on stores data under, shared with the playground. Pure: no Apps Script global.
 * Scheme: `pef.<name>` for what the add-on writes into document properties and the document cache. The user
 * properties are named `PEF_<NAME>`, and the script properties are the operator's configuration names (README,
 * "Configuration").
 */

/** User property: the user's API key. */
export const API_KEY_PROPERTY = 'PEF_API_KEY';
/** User property: the user's settings (JSON). */
export const SETTINGS_PROPERTY = 'PEF_SETTINGS';
/** User property: the user's runner id, which a bulk run they start records as its owner (random, opaque). */
export const RUNNER_ID_PROPERTY = 'PEF_RUNNER_ID';

/**
 * User property: how many requests in flight the user's key's service took when it last answered 429 (JSON: the
 * key's hash, never the key; the figure; its date), so a bulk run on another spreadsheet starts at that pace.
 */
export const KEY_PACE_PROPERTY = 'PEF_KEY_PACE';
/**
 * User property: the web requests the user's bulk runs sent in the 24 hours of Google's daily quota (JSON: the
 * window's first request, the count; src/core/webRequests.ts).
 */
export const WEB_REQUESTS_PROPERTY = 'PEF_WEB_REQUESTS';

/** Document property: the spreadsheet's bulk-run state. */
export const JOB_PROPERTY = 'pef.job';
/** Document property: the blocks of cells the add-on wrote (src/bulk/blocks.ts): the only cells it may change. */
export const BLOCKS_PROPERTY = 'pef.blocks';
/**
 * Document properties: a sending record (src/store/sendingRecords.ts): a sender's keys at the service and claimed,
 * until when, who pays. Written under the lock with the claims, then by its sender alone; folded once final.
 */
export const SENDING_PREFIX = 'pef.s.';
/** Document properties: one fetchAll's answers (charged results, lost answers), kept until a writer folds them. */
export const ANSWERS_PREFIX = 'pef.a.';
/** Document properties an earlier version kept formulas' results under (URL hash): folded as answers. */
export const PENDING_PREFIX = 'pef.p.';
/** Document property: changes whenever the results sheet is written (a reader's copy of it is then stale). */
export const TABLE_VERSION_PROPERTY = 'pef.v';
/** The hidden sheet that keeps every paid result for the life of the spreadsheet. */
export const RESULTS_SHEET = '_pef_results';

/**
 * The hidden sheet that logs every credit the add-on spent, one row per charge (src/store/credits.ts), beside the
 * results sheet.
 */
export const CREDITS_SHEET = '_pef_credits';
/** Document properties an earlier version kept formulas' charges under: folded into the credits log. */
export const CHARGE_PREFIX = 'pef.c.';

/** Document property: the last runs' summaries (JSON, newest first). */
export const RUN_HISTORY_PROPERTY = 'pef.runs';
/** Document property: what =FINDEMAIL spent today in this spreadsheet (JSON: day and credits). */
export const FORMULA_SPEND_PROPERTY = 'pef.formulaSpend';
/**
 * Document properties: credits of the day's reservation an execution gave back while the document lock was busy
 * (JSON: day and credits, one property each), deducted from FORMULA_SPEND_PROPERTY at the next locked reservation,
 * which names them in it until they are deleted (deducted once).
 */
export const FORMULA_GIVE_BACK_PREFIX = 'pef.giveBack.';
/** Document cache: a give-back record was written without the lock; the next locked reservation folds it in. */
export const FORMULA_GIVE_BACK_MARKER = 'pef.givenBack';
/**
 * User property prefix + spreadsheet id: the owner's cap for formulas in that spreadsheet (JSON). In the owner's
 * user properties, so only the owner sets what formulas spend of the owner's credits.
 */
export const FORMULA_CAP_SETTING_PREFIX = 'PEF_FORMULAS.';

/**
 * Document property: written (a token) by the first formula that checked that custom functions may write document
 * properties here (src/formula/writeCheck.ts); later formulas find it in the read they make anyway.
 */
export const FORMULA_WRITES_PROPERTY = 'pef.fw';
/** Document cache: that check failed (formulas cannot write document properties, so they send nothing). */
export const FORMULA_WRITES_REFUSED_KEY = 'pef.fw.no';

/** Document cache: a claim on a normalised URL, under this prefix and the URL's hash. */
export const CLAIM_PREFIX = 'pef.claim.';
/** Document cache: after a 401 or 402, formulas stop calling the service (JSON: message and key hash). */
export const HALT_KEY = 'pef.halt';
/** Document cache: one formula checks the owner's account with a single request (src/lookup/accountCheck.ts). */
export const ACCOUNT_CHECK_KEY = 'pef.accountCheck';
/** Document cache: the hash of the key that got a charged answer lately. */
export const ACCOUNT_OK_KEY = 'pef.ok';
/**
 * Document cache, and a document property of the same name with its date (kept for days): the adaptive batch
 * size and latencies of the bulk run and of formulas (src/lookup/pace.ts), under this prefix and 'bulk' or
 * 'formula'.
 */
export const PACE_PREFIX = 'pef.pace.';
/** The two paces kept under PACE_PREFIX: the bulk run's and the formulas'. */
export const PACE_SCOPES = { bulk: 'bulk', formula: 'formula' } as const;

/**
 * Script cache (shared by every user and document of the script): a copy of the script properties below, for
 * formulas (src/adapters/scriptConfig.ts). No secret: the API key is in user properties.
 */
export const SCRIPT_CONFIG_CACHE_KEY = 'pef.config';

/** Script properties (set by the add-on's operator). */
export const SCRIPT_PROPERTY = {
  apiBaseUrl: 'API_BASE_URL',
  stepBudgetMs: 'ENRICH_STEP_BUDGET_MS',
  batchSize: 'ENRICH_BATCH_SIZE',
  concurrency: 'FETCH_CONCURRENCY',
  maxConcurrency: 'FETCH_MAX_CONCURRENCY',
  findEmailBudgetMs: 'FINDEMAIL_BUDGET_MS',
  networkHosts: 'NETWORK_HOSTS',
  slices: 'BULK_SLICES',
} as const;

/** Document property: the spreadsheet's watch of a column (src/watch/watch.ts, JSON). */
export const WATCH_PROPERTY = 'pef.watch';
