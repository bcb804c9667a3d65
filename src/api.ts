/** The types the sidebar receives from src/main.ts. Types only: imports no module of src/. */

export interface Settings {
  writeHeader: boolean;
  /** Add Account type and Name columns. */
  extraFields: boolean;
  /** Menu runs under `startAtOnceUnder` credits start without showing their plan (off by default). */
  startAtOnce: boolean;
  startAtOnceUnder: number;
}

export interface SidebarState {
  hasKey: boolean;
  /** e.g. ••••••••3f9a: the only form of the key that leaves the server. */
  maskedKey: string;
  settings: Settings;
  progress: Progress;
  configError: string;
  /** This user's setting; the owner's governs formulas. */
  formulas: FormulaCapState;
  singleCells?: SingleCellsState;
}

/** A column of single =FINDEMAIL cells (=FINDEMAIL(A2) dragged down) and the one range formula that replaces it. */
export interface SingleCellsState {
  /** H2:H1001 */
  range: string;
  cells: number;
  /** Cells showing #ERROR! or a "not looked up yet" text. */
  unfinished: number;
  /** =FINDEMAIL(A2:A1001) */
  formula: string;
  /** Formulas Sheets runs at once for one person. */
  atOnce: number;
}

export interface KeyCheckResult {
  ok: boolean;
  message: string;
}

export type JobState = 'idle' | 'running' | 'paused' | 'stopped' | 'cancelled' | 'done';

export type RunReason =
  | 'user'
  | 'out_of_credits'
  | 'key_rejected'
  | 'no_key'
  | 'quota'
  | 'configuration'
  | 'error'
  | 'no_spreadsheet'
  | 'sheet_missing'
  | 'sheet_changed'
  | 'sidebar_closed';

export type ResultKind = 'found' | 'noAddress' | 'unprocessable' | 'notProfile' | 'error';

export type KindCounts = Record<ResultKind, number>;

/** What a run did, in counters that do not overlap. */
export interface RunCounts extends KindCounts {
  /** Rows with something in the URL cell. */
  total: number;
  processed: number;
  alreadyDone: number;
  /** Charged answers received: the service's ledger for the run. */
  creditsUsed: number;
  /** Answers lost to a connection failure: each may have been charged. */
  creditsMaybeLost: number;
  /** Of creditsUsed, those that found an address (absent for a run started before it was counted). */
  lookupsFound?: number;
}

export type PaceReason = 'connection_failures' | 'rate_limited';

export interface Progress extends RunCounts {
  state: JobState;
  reason?: RunReason;
  message: string;
  sheetName?: string;
  runId?: string;
  plan?: PlanSummary;
  startedBy?: string;
  /** The viewer did not start the run: they can neither run, pause, resume nor cancel it. */
  readOnly?: boolean;
  /** Running, but no execution worked on it lately: it waits for its starter's sidebar. */
  waiting?: boolean;
  paceReason?: PaceReason;
  /** For the starter while it runs: the most slices the sidebar may drive at once. */
  slices?: number;
  /** Paused or cancelled while a slice still works: the lookups it sent, maybe charged. */
  inFlight?: number;
  origin?: 'watch';
}

export type PlanSummary = Pick<
  RunPlan,
  'range' | 'rows' | 'newProfiles' | 'knownProfiles' | 'notProfiles' | 'blanks' | 'alreadyDone' | 'credits'
> & { columns: string; effect: string; retry: boolean; recheck: boolean };

/** Columns beside the URLs (the add-on's or empty), inserted, the first empty ones right, or 4 + 2 new. */
export type PlacementKind = 'reuse' | 'insert' | 'right' | 'extend';

export interface Placement {
  kind: PlacementKind;
  /** 1-based, once the sheet is prepared. */
  outputColumn: number;
  /** Columns are inserted after this one (1-based), or none. */
  insertAfter: number | null;
  insertCount: number;
  columns: string;
  effect: string;
}

/** `retry`: only rows with `redo` statuses; `new` (a watch): only rows without any result. */
export type RunMode = 'all' | 'retry' | 'new';

/** rows = blanks + alreadyDone + notProfiles + lookupRows (newProfiles + knownProfiles + duplicateRows). */
export interface PlanCounts {
  /** From the first to the last URL (header excluded). */
  rows: number;
  blanks: number;
  alreadyDone: number;
  /** INVALID_URL, free. */
  notProfiles: number;
  lookupRows: number;
  /** Distinct profiles nobody paid for yet: at most this many credits. */
  newProfiles: number;
  /** Distinct profiles whose result is known (result store, or another row of the range): free. */
  knownProfiles: number;
  /** Rows repeating a profile of a row above: they get its result, free. */
  duplicateRows: number;
}

export interface RunPlan extends PlanCounts {
  mode: RunMode;
  /** null for a run over all rows. */
  redo: string[] | null;
  recheck: boolean;
  sheetName: string;
  range: string;
  credits: number;
  /** One when there is nothing to choose; two (insert, right) when the columns beside hold data. */
  placements: Placement[];
  placement: Placement;
  needsChoice: boolean;
  /** null: every run shows its plan first. */
  startAtOnceUnder: number | null;
  needsConfirm: boolean;
  errorRows: number;
  unprocessableRows: number;
  /** The run cannot start (the column holds no profile URL at all). */
  refusal?: string;
  note?: string;
  /** A trial: the new profiles of the whole range, of which this run looks up the first. */
  trialOf?: number;
  lookupRecord?: { lookups: number; found: number };
  /** The cells the plan read: Start sends them back to run these. */
  target?: RunTarget;
}

/** A sheet (by id) and one column's block of rows, whatever is selected later. */
export interface RunTarget {
  sheetId: number;
  column: number;
  row: number;
  rows: number;
}

export interface RunRequest {
  /** The selected column (default), or the last run's range (the sidebar's Retry failed rows). */
  source?: 'selection' | 'lastRun';
  /** The plan shown's `target`: run again whatever is selected now. */
  target?: RunTarget;
  mode?: RunMode;
  /** Retry failed rows: UNPROCESSABLE rows too. */
  includeUnprocessable?: boolean;
  /** Look up rows that already have a result again (a credit each), this run only. */
  recheck?: boolean;
  placement?: PlacementKind;
  /** Only the rows of the first this many new profiles (src/bulk/plan.ts). */
  trial?: number;
  /** The price the user confirmed; a plan whose price differs now is shown again. */
  confirmedCredits?: number;
}

export interface RunStart {
  /** null when another run is under way. */
  plan: RunPlan | null;
  started: boolean;
  progress: Progress;
  /** The starter's key is missing or rejected (nothing changed). */
  keyRefusal?: string;
}

export interface RunSummary extends Omit<RunCounts, 'total' | 'processed' | 'creditsUsed'> {
  id: string;
  state: JobState;
  retry: boolean;
  sheetName: string;
  range: string;
  creditsSpent: number;
  startedAt: number;
  endedAt: number;
  /** From start to end without the paused and stopped stretches. */
  durationMs: number;
  waited: Partial<Record<RunReason, number>>;
  /** 'watch': the watch's runs of one day summed in one entry (its range the watched column). */
  origin?: 'watch';
  runs?: number;
}

export interface RunHistory {
  last: RunSummary | null;
  /** People's last few ended runs, newest first, and the watch's line of the day. */
  history: RunSummary[];
}

// =FINDEMAIL's daily limit (src/formula/dailyLimit.ts).

export interface FormulaCapSetting {
  /** New lookups by formulas allowed at all (known results are always shown). */
  enabled: boolean;
  dailyCap: number;
}

export interface FormulaCapState {
  setting: FormulaCapSetting;
  usedToday: number;
  day: string;
}

export interface CreditsSource {
  source: 'run' | 'formulas' | 'watch';
  payer: string;
  mine: boolean;
  credits: number;
  lost: number;
}

export interface CreditsRun extends Omit<CreditsSource, 'source'> {
  runId: string;
  range: string;
  lastAt: number;
  found: number;
}

export interface CreditsSummary {
  /** false: nothing was spent since the add-on started logging. */
  hasLog: boolean;
  /** Charged for answers received: on `day`, in the last 7 and 30 days, in all. */
  today: number;
  day?: string;
  last7: number;
  last30: number;
  total: number;
  /** Answers lost (maybe charged), apart: the same periods. */
  lostToday: number;
  lost7: number;
  lost30: number;
  lostTotal: number;
  found: number;
  sources: CreditsSource[];
  runs: CreditsRun[];
  /** Rows of the log that are not charges (edited by hand): left out. */
  unreadable: number;
}

/** Export of the credits log into a visible sheet, one execution at a time. */
export interface CreditsExportRequest {
  /** Absent on the first call; then as the last answer gave it. */
  sheetName?: string;
  /** The log's next row to copy (1-based, below the header), the rows to copy in all, and the tallies so far. */
  next?: number;
  last?: number;
  written?: number;
  skipped?: number;
  /** Of the rows written: answers lost and notes of a watch, neither a charge. */
  lost?: number;
  notes?: number;
}

export interface CreditsExport extends Required<CreditsExportRequest> {
  done: boolean;
  message: string;
}

/** The watch of a column (src/watch/): what every editor's sidebar shows. */
export interface WatchView {
  state: 'none' | 'watching' | 'stopped';
  status: string;
  message: string;
  /** A key saved, no watch running. */
  canStart: boolean;
  column?: string;
  payer?: string;
  mine?: boolean;
  limit?: number;
  usedToday?: number;
  limitReached?: boolean;
  /** The creator's triggers were removed outside the add-on: the watch does nothing. */
  triggersMissing?: boolean;
}

export interface WatchStart {
  started: boolean;
  view: WatchView;
  message: string;
  column?: string;
  placements?: Placement[];
  /** Rows already without a result: looked up at the first check, within the limit. */
  waitingRows?: number;
}

/** Settings › Remove this spreadsheet's add-on data, asked before anything is removed. */
export interface DataRemovalPlan {
  items: string[];
  refusal: string;
  /** The credits log holds rows: the sidebar offers to export it first. */
  creditsLog: boolean;
}

export interface DataRemovalResult {
  removed: boolean;
  message: string;
  /** Whose watch triggers remain (only their creator may delete them), or ''. */
  triggersLeftWith: string;
}
