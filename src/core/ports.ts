/** What the add-on reaches Apps Script through (src/adapters/platform.ts; tests: plain objects). */
import type { Settings } from '../api';
import type { ScriptConfig } from './config';
import type { EditedCells, SheetPort, SpreadsheetPort } from './sheet';

export interface Clock {
  now(): number;
  sleep(ms: number): void;
  /** "14:32" in the spreadsheet's time zone ("25 Nov 02:10" on another day), else "14:32 UTC". */
  timeText(ms: number): string;
  /** yyyy-MM-dd in the spreadsheet's time zone (UTC when it has none). */
  day(ms: number): string;
}

export interface Properties {
  getProperty(key: string): string | null;
  setProperty(key: string, value: string): unknown;
  deleteProperty(key: string): unknown;
  getProperties(): Record<string, string>;
  getKeys(): string[];
  setProperties(values: Record<string, string>, deleteAllOthers?: boolean): unknown;
}

export interface DocumentLock {
  /** Throws DocumentBusyError when it stays busy or LockService refuses. */
  with<T>(work: () => T): T;
  /** `with`, tried a few times: for what must not wait for the next execution. */
  withRetried<T>(work: () => T): T;
  /** Waits no later than `deadline`; undefined when it stayed busy or was refused. */
  tryWith<T>(work: () => T, deadline?: number): { value: T } | undefined;
}

/** The formulas' halt after a 401 or 402 (best-effort, nothing that guards money). */
export interface DocumentCache {
  get(key: string): string | null;
  put(key: string, value: string, seconds: number): void;
  remove(key: string): void;
}

export type RawAnswer =
  | { status: number; body: string; headers?: { location?: string; retryAfter?: string; date?: string } }
  | { thrown: string };

export interface Transport {
  /** `sent` 0 when nothing went out. */
  fetchAll(
    urls: readonly string[],
    plan: { apiKey: string; endpoint: string },
  ): { answers: RawAnswer[]; at: number } | { thrown: string; sent: number; at: number };
  /** A request without `network_url`: answered 400 for a good key, before any lookup. */
  checkKey(plan: { apiKey: string; endpoint: string }): RawAnswer;
}

/** How a hidden sheet is made when missing (plain-text columns). */
export interface SheetLayout {
  name: string;
  rows: number;
  columns: number;
  title?: string;
  header?: string[];
  /** A warning-only protection: a person's edit asks first, executions still write. */
  guard?: string;
}

export interface HiddenSheetRows
  extends Pick<SheetPort, 'lastRow' | 'maxRows' | 'maxColumns' | 'values' | 'write' | 'clear'> {
  addRows(after: number, count: number): void;
  addColumns(after: number, count: number): void;
}

export interface HiddenSheet {
  /** Reads by A1 notation inside the sheet, one call each; null when there is no sheet. */
  reader(): (a1: string) => unknown[][] | null;
  find(): HiddenSheetRows | null;
  /** Made hidden when missing (the person's sheet stays active). Holding the lock. */
  findOrCreate(): HiddenSheetRows;
}

export interface CreditsLogSheet {
  /** Creates the sheet when missing. Holding the document lock. */
  append(rows: string[][]): void;
  /** Below the header, in one read; null when there is no log. */
  readRows(): unknown[][] | null;
  /** The log's last row (its header's when empty); 0 when there is none. */
  lastRow(): number;
  readRowsBetween(first: number, last: number): unknown[][];
  readOutcomes(): unknown[] | null;
  /** A new visible sheet named `name` or `name (2)`…; its name. */
  createExport(name: string): string;
  /** false when it is gone or not an export. */
  writeExport(sheetName: string, first: number, rows: unknown[][]): boolean;
}

export interface Runner {
  /** A random id in the user's properties (a run's owner); null until one is made. */
  id(): string | null;
  ensureId(): string;
  /** '' where Apps Script does not give it. */
  email(): string;
}

/** In the user's properties (in a custom function: the owner's). */
export interface UserSettings {
  apiKey(): string | null;
  saveApiKey(key: string): void;
  deleteApiKey(): void;
  read(): Settings;
  save(settings: Settings): void;
}

/** The view the sidebar opens on: `plan` and `retry` show a run's plan before it starts. */
export type SidebarView = 'settings' | 'progress' | 'plan' | 'retry' | 'watch';

export interface Ui {
  showSidebar(view: SidebarView): void;
  showAlert(message: string): void;
  confirm(message: string): boolean;
}

export interface WatchTriggers {
  /** The open, change and form-submit triggers' ids. Throws TriggersRefusedError. */
  create(): string[];
  deleteMine(): number;
  delete(ids: readonly string[]): void;
  present(ids: readonly string[]): boolean;
}

export interface AddonSheets {
  present(names: readonly string[]): string[];
  remove(names: readonly string[]): string[];
}

export interface Platform {
  clock: Clock;
  lock: DocumentLock;
  /** Throws when the execution has no document. */
  documentProperties(): Properties;
  /** Null in an execution without a document (a time-driven trigger may have none). */
  documentPropertiesOrNull(): Properties | null;
  userProperties(): Properties;
  documentCache(): DocumentCache | null;
  config(): ScriptConfig;
  runner: Runner;
  settings: UserSettings;
  spreadsheet(): SpreadsheetPort;
  spreadsheetOrNull(): SpreadsheetPort | null;
  editedCells(event: unknown): EditedCells | null;
  transport: Transport;
  resultsSheet: HiddenSheet;
  creditsLog: CreditsLogSheet;
  addonSheets: AddonSheets;
  ui: Ui;
  triggers: WatchTriggers;
}

/** The lock stayed busy, or LockService refused it (`refused`: it threw, its rate quota): nothing was done. */
export class DocumentBusyError extends Error {
  constructor(refused = false) {
    super(
      refused
        ? "Apps Script refused the spreadsheet's lock for a moment (too many lock requests at once). Nothing was done; try again in a moment."
        : 'The spreadsheet is busy (another execution holds its lock). Try again in a moment.',
    );
    this.name = 'DocumentBusyError';
  }
}

/** Test deployments of an Editor add-on do not run installable triggers (apps-script/add-ons/test). */
export class TriggersRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TriggersRefusedError';
  }
}
