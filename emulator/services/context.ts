/** What every service module sees: the execution making the call, and the host's shared state. */
import { fail } from '../errors';
import type { QuotaKind } from '../host/quotas';
import type { CacheStore } from '../model/cache';
import type { LockManager } from '../model/locks';
import type { PropertyStore } from '../model/properties';
import type { SheetModel, SpreadsheetModel } from '../model/spreadsheet';
import type { SheetD } from '../protocol';
import type { AuthMode, FetchRecord, Manifest, TriggerRecord, UiRecord } from '../types';
import type { PendingWrite } from './pending';

/** One execution, as the host tracks it. */
export interface Exec {
  id: number;
  fn: string;
  user: string;
  spreadsheetId?: string;
  authMode: AuthMode;
  kind: 'execution' | 'custom';
  ui: boolean;
  counts: Record<string, number>;
  done: boolean;
  /** Cells this execution entered a formula in (Sheets evaluates their custom functions again). */
  formulasEntered?: Array<{ ss: string; sheet: string; a1: string }>;
  /** Sheet writes not flushed yet, by spreadsheet id (services/pending.ts). */
  pendingWrites?: Map<string, PendingWrite[]>;
  /** A write the platform applied at once (`liveWrites`) that no SpreadsheetApp.flush() has followed yet. */
  liveSinceFlush?: boolean;
}

/** The environment's state the services read and change (Environment implements it). */
export interface ServiceHost {
  readonly distDir: string;
  readonly ui: UiRecord;
  readonly triggers: TriggerRecord[];
  readonly fetches: FetchRecord[];
  readonly scriptProperties: PropertyStore;
  readonly scriptCache: CacheStore;
  readonly locks: LockManager;
  readonly fetchTimeoutMs: number;
  readonly fetchAllAtOnce: number;
  now(): number;
  hasSpreadsheet(id: string): boolean;
  spreadsheet(id: string): SpreadsheetModel;
  documentProperties(spreadsheetId: string): PropertyStore;
  userProperties(user: string): PropertyStore;
  documentCache(spreadsheetId: string): CacheStore;
  userCache(user: string): CacheStore;
  /** The next serial number of an HTML output shown, or of a trigger. */
  nextSerial(kind: 'output' | 'trigger'): number;
  readonly manifest: Manifest;
  readonly deployment: 'installed' | 'test';
  /** The `customFunctionDocumentWrites` option. */
  readonly customFunctionDocumentWrites: 'allowed' | 'refused';
  /** The `liveWrites` option: whether a write is applied at once. */
  readonly writeGoesLive?: () => boolean;
  /** LockService's rate quota (EnvironmentOptions.lockRateLimit): throws Apps Script's reported error past it. */
  chargeLockCall(exec: Exec): void;
  /** A whole property store written anew (`setProperties(values, true)`: every other key deleted), recorded. */
  noteStoreRewrite(exec: Exec, store: 'script' | 'document' | 'user'): void;
  /** A lock released while its execution had sheet writes not flushed (counted; thrown with `strictFlush`). */
  noteReleaseWithPendingWrites(exec: Exec): void;
  /** Counts `calls` of `user` against a daily quota; throws Apps Script's error past it. */
  chargeQuota(user: string, kind: QuotaKind, calls: number): void;
}

/** Answers one method of one service: `Range.getValues` is `range(host, exec, 'getValues', [d])`. */
export type ServiceHandler = (
  host: ServiceHost,
  exec: Exec,
  method: string,
  args: unknown[],
) => unknown | Promise<unknown>;

/**
 * AuthMode.NONE (onOpen and onEdit where the add-on is installed but not enabled): no access to the file nor to
 * services that need authorisation; "Other services: Logger, Utilities" and menus only
 * (workspace/add-ons/concepts/editor-auth-lifecycle, the modes' table; workspace/add-ons/concepts/menus: "Do not
 * attempt to take any action that requires authorization (such as checking the script Properties)").
 */
export function requireAuth(exec: Exec, what: string): void {
  if (exec.authMode === 'NONE')
    fail(`You do not have permission to call ${what}. Required permissions are missing.`);
}

/**
 * Simple triggers (onEdit, and onOpen once the add-on is used in the document) run in AuthMode.LIMITED: they "cannot
 * access services that require authorization" but may change the file they are bound to
 * (apps-script/guides/triggers#restrictions, apps-script/reference/script/auth-mode).
 */
export function requireFullAuth(exec: Exec, what: string, scope: string): void {
  requireAuth(exec, what);
  if (exec.authMode === 'LIMITED')
    fail(`You do not have permission to call ${what}. Required permissions: ${scope}`);
}

export function checkWrite(exec: Exec, op: string): void {
  // Custom functions: Spreadsheet is "Read-only (can use most get*() methods, but not set*())"
  // (https://developers.google.com/apps-script/guides/sheets/functions#using_apps_script_services).
  if (exec.kind === 'custom') fail(`You do not have permission to call ${op}`);
  requireAuth(exec, op);
}

export function sheetOf(host: ServiceHost, d: SheetD): { ss: SpreadsheetModel; sheet: SheetModel } {
  const ss = host.spreadsheet(d.ss);
  return { ss, sheet: ss.sheetById(d.sheet) };
}

/** Methods that change a spreadsheet: refused in custom functions and without authorisation. */
export const SPREADSHEET_WRITES = new Set([
  'setValues',
  'setValue',
  'setFormulas',
  'setFormula',
  'setNumberFormat',
  'setNumberFormats',
  'setNotes',
  'setNote',
  'clearContent',
  'clear',
  'clearFormat',
  'clearContents',
  'appendRow',
  'sort',
  'protect',
  'setName',
  'setFrozenRows',
  'insertSheet',
  'deleteSheet',
  'insertColumnsAfter',
  'insertColumnsBefore',
  'insertColumns',
  'insertColumnAfter',
  'insertColumnBefore',
  'insertRowsAfter',
  'insertRowsBefore',
  'insertRows',
  'insertRowAfter',
  'insertRowBefore',
  'deleteRows',
  'deleteRow',
  'deleteColumns',
  'deleteColumn',
]);
