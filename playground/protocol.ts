/** What the playground's server sends its page and what the page sends back (shared by server.ts and client/). */
import { columnName } from '../emulator/model/a1';

/** One non-empty cell; rows and columns are 1-based. */
export interface CellView {
  r: number;
  c: number;
  /** The text shown in the cell. */
  v: string;
  /** The formula, for a cell that holds one. */
  f?: string;
  /** How to show it: numbers and booleans right/centre aligned, errors red, formulas being evaluated grey. */
  k?: 'num' | 'bool' | 'error' | 'loading';
  /** A longer message, e.g. a formula's error. */
  note?: string;
}

export interface SheetView {
  name: string;
  rows: number;
  cols: number;
  cells: CellView[];
  /** Every visible sheet (the add-on's hidden ones are left out), in order; the shown one is `shown`. */
  tabs: SheetTab[];
  /** Only the first sheet can be edited here; the others (an exported credits log) are shown read-only. */
  readOnly: boolean;
}

export interface SheetTab {
  id: number;
  name: string;
  shown: boolean;
}

export interface RangeView {
  r1: number;
  c1: number;
  r2: number;
  c2: number;
}

export interface MenuItemView {
  label: string;
  fn?: string;
  separator?: boolean;
}

export interface MenuView {
  title: string;
  items: MenuItemView[];
}

export interface SidebarView {
  open: boolean;
  /** Bumped each time the bundle shows a sidebar: the page loads it again. */
  serial: number;
  title: string;
  url: string;
}

export interface DialogView {
  serial: number;
  title: string;
  url: string;
  width: number;
  height: number;
}

/**
 * An alert or prompt of the add-on (Ui.alert, Ui.prompt) waiting for the person: the script is suspended until
 * they press a button (`CLOSE`: the dialog's close button).
 */
export interface QuestionView {
  serial: number;
  kind: 'alert' | 'prompt';
  title: string;
  prompt: string;
  /** The buttons of its ButtonSet, in the order Sheets shows them: `OK`, `CANCEL`, `YES`, `NO`. */
  buttons: string[];
}

export interface QuestionAnswer {
  serial: number;
  button: string;
  /** A prompt's text. */
  text?: string;
}

export interface ToastView {
  serial: number;
  title: string;
  message: string;
}

export interface LedgerRow {
  n: number;
  at: number;
  url: string;
  status: string;
  charged: number;
  fault?: string;
  /** A key check (a body without network_url, answered 400/401): free by design, not an error. */
  keyCheck?: boolean;
  /** Refused by the sandbox's rate limit (429). */
  limited?: boolean;
}

export interface SandboxView {
  organization: string;
  maskedKey: string;
  credits: number;
  charged: number;
  /** Every request the service received, those still under way included: never fewer than `charged`. */
  requests: number;
  /** The fixed latency, or the median of a long-tailed one. */
  latencyMs: number;
  /** The 99th percentile of a long-tailed (log-normal) latency; 0 for a fixed one. */
  latencyP99Ms: number;
  /** The rate limit: requests in flight at once, requests a second; 0 for none. */
  maxInFlight: number;
  maxPerSecond: number;
  error500Rate: number;
  resetRate: number;
  /** Newest first, at most LEDGER_SHOWN rows. */
  ledger: LedgerRow[];
  /** Requests the service is still answering (counted in `requests` already, not in the ledger yet). */
  inFlight: number;
}

export interface RunView {
  state: string;
  processed: number;
  total: number;
  message: string;
  /** Running, but no slice driven lately: its sidebar was closed (src/bulk/job.ts, WAITING_AFTER_MS). */
  waiting: boolean;
  /** The run in the sidebar's own words (src/sidebar/progress.ts): its state ("Running", "Done", …) and fraction. */
  label: string;
  fraction: string;
}

/**
 * What the sidebar shows of the run, posted to the page by the playground's script in the sidebar's frame
 * (playground/sidebar.ts): the status line says the same while the sidebar is open.
 */
export interface SidebarRunReport {
  source: 'pef-sidebar-run';
  label: string;
  fraction: string;
}

export interface StateView {
  /** Changes whenever the sheet does; the page sends it back and gets `sheet` only when it changed. */
  version: string;
  sheet?: SheetView;
  selection: RangeView | null;
  menu: MenuView | null;
  sidebar: SidebarView;
  dialog: DialogView | null;
  /** The oldest alert or prompt waiting for an answer. */
  question: QuestionView | null;
  toasts: ToastView[];
  /** Menu functions and recalculations under way. */
  busy: string[];
  /** Calls of the sidebar's google.script.run under way (the page looks more often meanwhile: a question may come). */
  sidebarCalls: number;
  run: RunView | null;
  user: string;
  owner: string;
  sandbox: SandboxView;
}

export interface CellEdit {
  r: number;
  c: number;
  value: string;
}

export interface MenuAnswer {
  ok: boolean;
  error?: string;
  /** Text to show, e.g. a message returned by the function. */
  message?: string;
}

export interface SandboxChange {
  credits?: number;
  addCredits?: number;
  latencyMs?: number;
  /** 0: a fixed latency; above the median: a long tail with this 99th percentile. */
  latencyP99Ms?: number;
  /** 0: no limit. */
  maxInFlight?: number;
  maxPerSecond?: number;
  error500Rate?: number;
  resetRate?: number;
}

/** The sandbox panel's key box: the demo key shown, or saved again as the user's key. */
export interface KeyAnswer {
  key?: string;
  restored?: boolean;
}

export const LEDGER_SHOWN = 200;

/** A, B, …, Z, AA, … for a 1-based column. */
export const columnLetter = columnName;

export function a1(range: RangeView): string {
  const start = `${columnLetter(range.c1)}${range.r1}`;
  if (range.r1 === range.r2 && range.c1 === range.c2) return start;
  return `${start}:${columnLetter(range.c2)}${range.r2}`;
}

/** "1 request", "2 requests": a count and its noun in agreement. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : plural}`;
}
