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
  urlFetchDailyQuota?: number;
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
  url: string;
  method: string;
  headers: Record<string, string>;
  payload?: string;
  status?: number;
  error?: string;
  startedAt: number;
  endedAt: number;
}

export interface RecalcReport {
  evaluated: number;
  results: ExecutionResult[];
}
