/** The emulator's public types: options, what an execution reports, and what the host records. */

export type AuthMode = 'NONE' | 'LIMITED' | 'FULL' | 'CUSTOM_FUNCTION';

export interface Limits {
  executionMs: number;
  customFunctionMs: number;
}

export interface EnvironmentOptions {
  /** The folder `clasp push` sends: Code.js, the HTML files (default dist/). */
  distDir?: string;
  scriptProperties?: Record<string, string>;
  timeZone?: string;
  limits?: Partial<Limits>;
  /** Executions that can run at once (worker threads). Sheets evaluates many custom functions in parallel. */
  maxConcurrent?: number;
  fetchTimeoutMs?: number;
  /**
   * Requests of one fetchAll at the service at once, the others waiting for a place: not documented (users report
   * from "10-20 at once" to the whole batch). Default: every request at once.
   */
  fetchAllAtOnce?: number;
  /**
   * UrlFetchApp's short-time limit (reported, no figure known: Blacksmoke16/GESI#99): past `calls` requests of a user
   * within `windowMs` of the environment's clock, the call throws "Service invoked too many times in a short time:
   * urlfetch. Try Utilities.sleep(1000) between calls." before sending anything.
   */
  urlFetchRateLimit?: { calls: number; windowMs: number };
  /** Whose daily quotas apply: a consumer account (gmail.com, the default) or a Google Workspace account. */
  account?: 'consumer' | 'workspace';
  /** UrlFetchApp calls a user may make in a day (default: the account's, 20,000 or 100,000). */
  urlFetchDailyQuota?: number;
  /** PropertiesService reads and writes a user may make in a day (default: the account's, 50,000 or 500,000). */
  propertiesDailyQuota?: number;
  /** Replaces `distDir/appsscript.json`: its `urlFetchWhitelist` and `oauthScopes` are enforced. */
  manifest?: Manifest;
  /**
   * CacheService is best-effort: with this, each read of a live entry drops it early with `probability`
   * (seeded: the same seed gives the same drops for the same sequence of reads).
   */
  cacheEviction?: { probability: number; seed?: number };
  /**
   * Sheet writes before a flush "may" be applied as they are made (apps-script/reference/spreadsheet/spreadsheet-app#flush):
   * each write applies the execution's pending writes at once with `probability` (seeded), so other executions may
   * see them before its flush; applied or not, a write counts as not flushed until SpreadsheetApp.flush(). Default
   * DEFAULT_LIVE_WRITES (half); `{ probability: 0 }` holds every write until the flush.
   */
  liveWrites?: { probability: number; seed?: number };
  /**
   * How the add-on is deployed: 'installed' (default; from the Marketplace or a domain install) or 'test' (a test
   * deployment of an Editor add-on, where installable triggers are not supported).
   */
  deployment?: 'installed' | 'test';
  /**
   * The daily "triggers total runtime" quota of each user, in ms of wall time (default: the account's, 90 min or
   * 6 h): past it the user's installable triggers do not run (`env.installableTriggers.refused`).
   */
  triggerRuntimeDailyMs?: number;
  /**
   * The old, forgiving trigger model: a time-driven trigger runs in the document that created it. Apps Script
   * gives it no active spreadsheet; only tests of the product's current trigger fallback set this.
   */
  legacyTriggerDocumentContext?: boolean;
  /**
   * Whether a custom function may write document properties: not documented either way (the product checks it at
   * run time). 'refused' throws `You do not have permission to call setProperty` (the text users report) for
   * every document-property write of a custom function. Default 'allowed'.
   */
  customFunctionDocumentWrites?: 'allowed' | 'refused';
  /**
   * Executions one user may have running at once, of every kind (default 30, apps-script/guides/services/quotas): one
   * past it is refused before its code runs (a cell shows `#ERROR!`, a sidebar call fails) with Apps Script's message.
   */
  simultaneousExecutionsPerUser?: number;
  /**
   * LockService's rate quota (reported, not on the quotas page): past `calls` Lock calls (tryLock, waitLock,
   * releaseLock) of the script within `windowMs` of the environment's clock, every Lock call throws `message`
   * (default "There are too many LockService operations against the same script."). Default
   * DEFAULT_LOCK_RATE_LIMIT; `false` for none.
   */
  lockRateLimit?: { calls: number; windowMs: number; message?: string } | false;
  /**
   * PropertiesService's short-time limit (reported, no figure known): past `calls` property calls of a user within
   * `windowMs` of the environment's clock, each throws "Service invoked too many times in a short time: properties.
   * Try Utilities.sleep(1000) between calls."
   */
  propertiesRateLimit?: { calls: number; windowMs: number };
  /**
   * A lock released while its execution has sheet writes not flushed is always counted
   * (`env.lockReleasesWithPendingWrites`); with this, releaseLock also throws in the execution.
   */
  strictFlush?: boolean;
}

/** The parts of appsscript.json the emulator reads. */
export interface Manifest {
  oauthScopes?: string[];
  urlFetchWhitelist?: string[];
  [key: string]: unknown;
}

/** Daily quota use of one user, or of all users. */
export interface QuotaUsage {
  properties: number;
  urlfetch: number;
}

export interface RunOptions {
  /** The user running it (default: the spreadsheet's owner, or `owner@example.com`). */
  user?: string;
  /** The document the execution is bound to (the add-on's open spreadsheet). */
  spreadsheetId?: string;
  authMode?: AuthMode;
  /** Overrides the limit of the execution's kind. */
  timeLimitMs?: number;
  /** For trigger functions: the event object (authMode is added). */
  event?: Record<string, unknown>;
  /** False for executions without a user interface (time-driven triggers): SpreadsheetApp.getUi() throws. */
  ui?: boolean;
}

export interface ExecutionResult {
  id: number;
  fn: string;
  user: string;
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string; stack?: string };
  timedOut: boolean;
  durationMs: number;
  /** When the script function was called, its files loaded (wall clock, as FetchRecord times); absent if ended first. */
  calledAt?: number;
  /** Service calls made by this execution, by method name. */
  counts: Record<string, number>;
}

export interface RecordedOutput {
  serial: number;
  kind: 'sidebar' | 'modal' | 'modeless';
  html: string;
  title: string;
  width?: number;
  height?: number;
  user: string;
  spreadsheetId?: string;
}

export interface UiRecord {
  menus: Array<{ title?: string; addon: boolean; items: unknown[]; spreadsheetId?: string; user: string }>;
  sidebars: RecordedOutput[];
  dialogs: RecordedOutput[];
  toasts: Array<{ message: string; title: string; spreadsheetId: string }>;
  alerts: Array<{ title?: string; prompt: string; buttons?: string }>;
  /** Answers for Ui.alert/prompt, first in first out (default: OK / empty text). */
  answers: Array<{ button: string; text?: string }>;
  /**
   * A person answering in a page (the playground): while set, Ui.alert and Ui.prompt wait for its answer, as Apps
   * Script suspends the script while the dialog is open, instead of taking `answers`.
   */
  person?: (question: DialogQuestion) => Promise<DialogAnswer>;
}

/** An alert or prompt shown to a person: its title, text and button set (`OK`, `OK_CANCEL`, `YES_NO`, `YES_NO_CANCEL`). */
export interface DialogQuestion {
  kind: 'alert' | 'prompt';
  title?: string;
  prompt: string;
  buttons: string;
  user: string;
  spreadsheetId?: string;
}

/** The button pressed (`OK`, `CANCEL`, `YES`, `NO`, or `CLOSE` for the dialog's close button) and a prompt's text. */
export interface DialogAnswer {
  button: string;
  text?: string;
}

export interface TriggerRecord {
  id: string;
  handler: string;
  eventType: string;
  source: string;
  user: string;
  spreadsheetId?: string;
  spec: Record<string, unknown>;
}

export interface LogLine {
  execId: number;
  level: string;
  message: string;
}

export interface FetchRecord {
  execId: number;
  /** The UrlFetchApp call the request came in: every request of one fetchAll has the same number. */
  call: number;
  url: string;
  method: string;
  headers: Record<string, string>;
  payload?: string;
  status?: number;
  error?: string;
  startedAt: number;
  endedAt: number;
}

/** A service call of an execution, as `Environment.onServiceCall` listeners hear it. */
export interface ServiceCall {
  execId: number;
  /** The script function the execution runs. */
  fn: string;
  user: string;
  /** `Service.method`, e.g. `Properties.getProperties`, `Cache.putAll`, `Range.setValues`, `UrlFetchApp.fetchAll`. */
  op: string;
  /** The call's arguments; a service object's descriptor first (a property store's or cache's `{ kind, id }`). */
  args: unknown[];
  /** Heard before the call is answered, or after (the answer not yet returned to the script). */
  phase: 'before' | 'after';
}

export interface RecalcReport {
  evaluated: number;
  results: ExecutionResult[];
}
