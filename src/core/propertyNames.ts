/**
 * Every name the add-on stores data under, shared with the playground. Pure. `pef.<name>`: document properties and
 * cache; `PEF_<NAME>`: user properties; script properties: the operator's configuration (README, "Configuration").
 */

export const API_KEY_PROPERTY = 'PEF_API_KEY';
export const SETTINGS_PROPERTY = 'PEF_SETTINGS';
/** Random, opaque: a bulk run the user starts records it as its owner. */
export const RUNNER_ID_PROPERTY = 'PEF_RUNNER_ID';

export const JOB_PROPERTY = 'pef.job';
/** The blocks of cells the add-on wrote (src/bulk/blocks.ts): the only cells it may change. */
export const BLOCKS_PROPERTY = 'pef.blocks';
/** A sender's keys at the service and claimed, until when, who pays; written under the lock, folded once final. */
export const SENDING_PREFIX = 'pef.s.';
/** One fetchAll's answers, kept until a writer folds them. */
export const ANSWERS_PREFIX = 'pef.a.';
/** Changes whenever the results sheet is written (a reader's copy is then stale). */
export const TABLE_VERSION_PROPERTY = 'pef.v';
/** Every paid result for the life of the spreadsheet. */
export const RESULTS_SHEET = '_pef_results';

export const CREDITS_SHEET = '_pef_credits';

/** The last runs' summaries, newest first. */
export const RUN_HISTORY_PROPERTY = 'pef.runs';
/** What =FINDEMAIL spent today in this spreadsheet. */
export const FORMULA_SPEND_PROPERTY = 'pef.formulaSpend';
/** + spreadsheet id, in the owner's user properties: only the owner sets what formulas spend of their credits. */
export const FORMULA_CAP_SETTING_PREFIX = 'PEF_FORMULAS.';

/** After a 401 or 402, formulas stop calling the service. */
export const HALT_KEY = 'pef.halt';

export const SCRIPT_PROPERTY = {
  apiBaseUrl: 'API_BASE_URL',
  stepBudgetMs: 'ENRICH_STEP_BUDGET_MS',
  batchSize: 'ENRICH_BATCH_SIZE',
  maxConcurrency: 'FETCH_MAX_CONCURRENCY',
  findEmailBudgetMs: 'FINDEMAIL_BUDGET_MS',
  networkHosts: 'NETWORK_HOSTS',
  slices: 'BULK_SLICES',
} as const;

export const WATCH_PROPERTY = 'pef.watch';
