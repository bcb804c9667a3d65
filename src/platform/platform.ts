/**
 * Everything the features (formula, bulk, credits, settings, watch) reach Apps Script through, as one object an
 * entry point of src/main.ts passes down. src/adapters/platform.ts makes it over the real services; tests may
 * build one from plain objects. Types only.
 */
import type { Settings } from '../api';
import type { ScriptConfig } from '../core/config';
import type { EditedCells, SpreadsheetPort } from '../core/sheet';
import type { Clock, DocumentCache, LookupPorts } from '../lookup/ports';
import type { KeyCheck } from '../lookup/result';
import type { ChargeContext } from '../store/credits';
import type { CreditsLog, SheetResultStore } from '../store/ports';

/** Time as the features tell it: the lookup's clock, with times and days in the spreadsheet's time zone. */
export interface PlatformClock extends Clock {
  /** "14:32" in the spreadsheet's time zone ("25 Nov 02:10" on another day), else "14:32 UTC". */
  timeText(ms: number): string;
  /** The day of `ms` (yyyy-MM-dd) in the spreadsheet's time zone (UTC when it has none). */
  day(ms: number): string;
}

/** A properties store (PropertiesService's Properties): the calls the add-on makes. */
export interface Properties {
  getProperty(key: string): string | null;
  setProperty(key: string, value: string): unknown;
  deleteProperty(key: string): unknown;
  getProperties(): Record<string, string>;
  getKeys(): string[];
  setProperties(values: Record<string, string>, deleteAllOthers?: boolean): unknown;
}

/** The spreadsheet's document lock, with one wait policy for every caller. */
export interface DocumentLocking {
  /** Runs `work` holding the lock; throws DocumentBusyError (./errors.ts) when it stays busy or is refused. */
  with<T>(work: () => T): T;
  /**
   * Runs `work` holding the lock, trying a few times (even LockService's refusal): for what must not be left
   * undone (a paid result, a slice's lease). Throws DocumentBusyError when it stays busy.
   */
  withRetried<T>(work: () => T): T;
  /** Runs `work` holding the lock; undefined when it stayed busy (or LockService refused). */
  tryWith<T>(work: () => T): { value: T } | undefined;
}

/** Who runs this execution. */
export interface Runner {
  /** This user's runner id (a random id in their user properties); null until one is made. */
  id(): string | null;
  /** This user's runner id, made and saved on first use. */
  ensureId(): string;
  /** The user's e-mail address, or '' where Apps Script does not give it. */
  email(): string;
}

/** This user's API key and settings, in their user properties (in a custom function: the owner's). */
export interface UserSettings {
  apiKey(): string | null;
  saveApiKey(key: string): void;
  deleteApiKey(): void;
  read(): Settings;
  save(settings: Settings): void;
}

/** The view the sidebar opens on: `plan` and `retry` show a run's plan before it starts. */
export type SidebarView = 'settings' | 'progress' | 'plan' | 'retry' | 'watch';

/** What the person sees besides the cells. */
export interface Ui {
  showSidebar(view: SidebarView): void;
  /** A message in a dialog with an OK button. */
  showAlert(message: string): void;
  /** A question in a dialog with Yes and No buttons: whether the person pressed Yes. */
  confirm(message: string): boolean;
}

/** A watch's installable triggers, the current user's in this spreadsheet. */
export interface WatchTriggers {
  /** Creates the open, change and form-submit triggers; their ids. Throws TriggersRefusedError (./errors.ts). */
  create(): string[];
  /** Deletes them; how many there were. */
  deleteMine(): number;
  /** Deletes those of `ids` that still exist (a start that made them and then did not save its watch). */
  delete(ids: readonly string[]): void;
  /** Whether the triggers of `ids` all still exist. */
  present(ids: readonly string[]): boolean;
}

/** The sheets the add-on made in this spreadsheet (its hidden results and credits sheets), by name. */
export interface AddonSheets {
  /** Which of `names` this spreadsheet holds. */
  present(names: readonly string[]): string[];
  /** Deletes the sheets of `names` that exist (nothing else); their names. */
  remove(names: readonly string[]): string[];
}

/** The credits log's hidden sheet (src/store/ports.ts), and the visible sheets an export copies it into. */
export interface CreditsLogSheet extends CreditsLog {
  /** A new visible sheet with the log's header, named `name` or `name (2)`…; its name. */
  createExport(name: string): string;
  /** Writes rows into an export sheet from row `first`; false when it is gone or not an export. */
  writeExport(sheetName: string, first: number, rows: unknown[][]): boolean;
}

export interface Platform {
  clock: PlatformClock;
  lock: DocumentLocking;
  /** The document properties, shared by every user of the spreadsheet; throws when the execution has no document. */
  documentProperties(): Properties;
  /** The document properties, or null when the execution has no document (a time-driven trigger may have none). */
  documentPropertiesOrNull(): Properties | null;
  /** This user's own properties. */
  userProperties(): Properties;
  /** The document cache, or null when the execution has none. */
  documentCache(): DocumentCache | null;
  /** The add-on owner's script properties, read once per execution. */
  config(): ScriptConfig;
  /** For formulas: the script cache's copy of the config (the properties when the cache has none). */
  cachedConfig(): ScriptConfig;
  runner: Runner;
  settings: UserSettings;
  /** The spreadsheet of this execution; throws when it has none. */
  spreadsheet(): SpreadsheetPort;
  /** The spreadsheet of this execution, or null when it has none or cannot open it. */
  spreadsheetOrNull(): SpreadsheetPort | null;
  /** The cells an onEdit event reports, or null (no range, or AuthMode.NONE: nothing may be read). */
  editedCells(event: unknown): EditedCells | null;
  /**
   * The lookup's ports. `writable`: the execution may write the spreadsheet (not a custom function). `charges`: who
   * pays for what it sends (default: the formulas). `store`: the result store to use (else one of their own).
   */
  lookupPorts(writable: boolean, charges?: ChargeContext, store?: SheetResultStore): LookupPorts;
  /** The result store of an execution that may write the spreadsheet, `charges` paying for what it sends. */
  resultStore(charges?: ChargeContext): SheetResultStore;
  /**
   * Folds every final batch (what formulas, slices and the watch paid for) into the hidden sheets, a bulk run's
   * credits into its job; never throws. How many results were folded.
   */
  foldAnswers(): number;
  /** Asks the service about a key without spending a credit. */
  askServiceAboutKey(key: string): KeyCheck | { config: string };
  /** After a new key: formulas may call the service again at once (the halt marker is dropped). */
  clearHalt(): void;
  /**
   * Writes `token` into the document property `name` and reads it back: whether this execution may write document
   * properties (a custom function: not documented either way). The daily properties quota is rethrown.
   */
  documentPropertyWritable(name: string, token: string): boolean;
  creditsLog: CreditsLogSheet;
  addonSheets: AddonSheets;
  ui: Ui;
  triggers: WatchTriggers;
}
