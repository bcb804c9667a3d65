/**
 * Every type the sidebar receives from the server (the entry points of src/main.ts return them): the sidebar's code
 * imports these from here alone. Types only: no module of src/ is imported, so any module may import this one.
 */

export interface Settings {
  /** Write the output column titles in the header row. */
  writeHeader: boolean;
  /** Add Account type and Name columns. */
  extraFields: boolean;
  /**
   * Runs from the menu start at once, without showing their plan, when they cost under `startAtOnceUnder` credits
   * (off by default: every run shows its plan and price first).
   */
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
  /** The formulas' spending cap in this spreadsheet (this user's setting; the owner's governs formulas). */
  formulas: FormulaCapState;
  /** A column of single =FINDEMAIL cells on the active sheet past what Sheets runs at once, some not done. */
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

// The bulk run (src/bulk/): its state and counts (job.ts, outcomes.ts), its plan (runPlan.ts, placement.ts), its
// summary (runSummary.ts).

export type JobState = 'idle' | 'running' | 'paused' | 'stopped' | 'cancelled' | 'done';

/**
 * Why a run is paused, stopped or cancelled, for the sidebar to render without reading the message:
 * `user` (Pause or Cancel pressed), the service's verdicts, the add-on's configuration, or the sheet.
 */
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
  /** Rows with a result: the kinds plus alreadyDone. */
  processed: number;
  /** Rows that kept the result they had before the run (known when it started). */
  alreadyDone: number;
  /** Charged answers received (found, not found, unprocessable): the service's ledger for the run. */
  creditsUsed: number;
  /** Requests whose answer was lost to a connection failure: the service may have charged each. */
  creditsMaybeLost: number;
  /** Of the creditsUsed lookups, those that found an address (absent for a run started before it was counted). */
  lookupsFound?: number;
}

/** A run's progress, as the sidebar shows it. */
/** Why a running run's batches are held small (src/lookup/pace.ts paceReason). */
export type PaceReason = 'connection_failures' | 'rate_limited';

export interface Progress extends RunCounts {
  state: JobState;
  reason?: RunReason;
  message: string;
  sheetName?: string;
  /** The run's id (the sidebar fetches its summary when it ends). */
  runId?: string;
  plan?: PlanSummary;
  /** Set for a viewer who did not start the run: who did, as the sidebar shows it. */
  startedBy?: string;
  /** The viewer did not start the run: they see it, and can neither run, pause, resume nor cancel it. */
  readOnly?: boolean;
  /** Running, but no execution has worked on it lately: it waits for its starter's sidebar to be open. */
  waiting?: boolean;
  /** Running with batches held small: 'connection_failures' or 'rate_limited' (src/lookup/pace.ts paceReason). */
  paceReason?: PaceReason;
  /** For the run's starter while it runs: how many slices of it the sidebar may drive at once, at most. */
  slices?: number;
  /**
   * Paused or cancelled while a slice still works on the run: the lookups it had sent, whose answers may still be
   * charged (0: it is writing the rows already answered). Absent once it is done (the counts are then final).
   */
  inFlight?: number;
  /** 'watch': a run the watch started (src/watch/), not a person's. */
  origin?: 'watch';
}

/** What the progress view shows of the plan a run started with. */
export type PlanSummary = Pick<
  RunPlan,
  'range' | 'rows' | 'newProfiles' | 'knownProfiles' | 'notProfiles' | 'blanks' | 'alreadyDone' | 'credits'
> & { columns: string; effect: string; retry: boolean; recheck: boolean };

/**
 * Where the results go: the add-on's own (or empty) columns beside the URLs; new columns inserted beside them;
 * the first empty columns further right; or, with the extra fields, the add-on's four columns plus two inserted.
 */
export type PlacementKind = 'reuse' | 'insert' | 'right' | 'extend';

export interface Placement {
  kind: PlacementKind;
  /** The first output column once the sheet is prepared (1-based). */
  outputColumn: number;
  /** Columns are inserted after this one (1-based), or none. */
  insertAfter: number | null;
  insertCount: number;
  /** The output columns in A1 letters once prepared, e.g. "B:E". */
  columns: string;
  /** What the sheet will look like, in words: what moves, or that nothing does. */
  effect: string;
}

/**
 * Which rows a run looks at: all of them, (Retry failed rows) only the ones with these statuses, or (a watch) only
 * rows without a result of any kind: a row it sent once waits for a person's Retry, whatever its answer.
 */
export type RunMode = 'all' | 'retry' | 'new';

/**
 * The numbers a plan shows. Rows = blanks + alreadyDone + notProfiles + lookupRows, and lookupRows = newProfiles +
 * knownProfiles + duplicateRows: the plan's lines add up to its rows.
 */
export interface PlanCounts {
  /** Rows from the first to the last URL (header excluded). */
  rows: number;
  blanks: number;
  /** Rows that keep the result they hold. */
  alreadyDone: number;
  /** Cells that are not profile URLs: INVALID_URL, free. */
  notProfiles: number;
  /** Rows with a profile URL to look up. */
  lookupRows: number;
  /** Distinct profiles nobody paid for yet: at most this many credits. */
  newProfiles: number;
  /** Distinct profiles whose result is already known (result store, or another row of the range): free. */
  knownProfiles: number;
  /** Rows (of lookupRows) repeating a profile of a row above them: they get its result, free. */
  duplicateRows: number;
}

export interface RunPlan extends PlanCounts {
  mode: RunMode;
  /** The statuses a retry run redoes (null for a run over all rows). */
  redo: string[] | null;
  recheck: boolean;
  sheetName: string;
  /** The URL rows, e.g. "A2:A41". */
  range: string;
  /** At most this many credits (= newProfiles). */
  credits: number;
  /** One placement when there is nothing to choose; two (insert, right) when the columns beside hold data. */
  placements: Placement[];
  /** The placement the numbers are for (the only one, or the one chosen). */
  placement: Placement;
  needsChoice: boolean;
  /** Runs under this many credits start at once (the user's setting), or null: every run shows its plan first. */
  startAtOnceUnder: number | null;
  /** The run starts only from its plan (Start, at the price shown): always, unless it is under startAtOnceUnder. */
  needsConfirm: boolean;
  /** Rows by status, for Retry failed rows. */
  errorRows: number;
  unprocessableRows: number;
  /** Set when the run cannot start (the column holds no profile URL at all). */
  refusal?: string;
  /** Said about the selection (several ranges or columns selected). */
  note?: string;
  /** A trial ("Try 10 rows first"): the new profiles of the whole range, of which this run looks up the first. */
  trialOf?: number;
  /** This spreadsheet's record from its credits log (src/credits/view.ts): lookups answered, and how many found. */
  lookupRecord?: { lookups: number; found: number };
  /** The cells the plan read (the selection, or the last run's range): Start sends them back to run these. */
  target?: RunTarget;
}

/** The cells a plan was made for: a sheet (by id) and one column's block of rows, whatever is selected later. */
export interface RunTarget {
  sheetId: number;
  column: number;
  row: number;
  rows: number;
}

/** What the sidebar or the menu asks for. */
export interface RunRequest {
  /** The selected column (default), or the last run's range (the sidebar's Retry failed rows). */
  source?: 'selection' | 'lastRun';
  /** The cells of the plan shown (its `target`): planned and run again whatever is selected now. */
  target?: RunTarget;
  mode?: RunMode;
  /** Retry failed rows: UNPROCESSABLE rows too. */
  includeUnprocessable?: boolean;
  /** Look up rows that already have a result again (a credit each): chosen for this run only. */
  recheck?: boolean;
  /** Where the results go, when the plan offered a choice. */
  placement?: PlacementKind;
  /** Only the rows of the first this many new profiles ("Try 10 rows first", src/bulk/trial.ts). */
  trial?: number;
  /** The credits of the plan the user confirmed; a plan whose price differs now is shown again. */
  confirmedCredits?: number;
}

/** What starting a run returns: the plan (null when another run is under way), and whether the run started. */
export interface RunStart {
  plan: RunPlan | null;
  started: boolean;
  progress: Progress;
  /** The run did not start: the starter's key is missing or the service rejected it (nothing changed). */
  keyRefusal?: string;
}

/** An ended run, in the counts its progress line showed and its working time. */
export interface RunSummary extends KindCounts {
  id: string;
  state: JobState;
  /** Retry failed rows, or a run over every row. */
  retry: boolean;
  sheetName: string;
  /** The URL rows, e.g. "A2:A41". */
  range: string;
  /** Rows that kept the result they had. */
  alreadyDone: number;
  creditsSpent: number;
  /** Requests whose answer was lost to a connection failure: each may have been charged. */
  creditsMaybeLost: number;
  /** Of the creditsSpent lookups, those that found an address (absent for runs before it was counted). */
  lookupsFound?: number;
  startedAt: number;
  endedAt: number;
  /** Working time: from start to end without the paused and stopped stretches. */
  durationMs: number;
  /** The paused and stopped stretches, in ms by the reason of the halt. */
  waited: Partial<Record<RunReason, number>>;
  /**
   * 'watch': the watch's runs of one day (the spreadsheet's) in one entry, their figures summed (its range the watched column);
   * absent: a person's run.
   */
  origin?: 'watch';
  /** For the watch's entry: how many of its runs it sums. */
  runs?: number;
}

export interface RunHistory {
  /** The summary of the spreadsheet's last run once it has ended, else null. */
  last: RunSummary | null;
  /** The last few ended runs of people, newest first, and the watch's line of the day (one at most). */
  history: RunSummary[];
}

// =FINDEMAIL's daily limit (src/formula/dailyLimitRules.ts).

export interface FormulaCapSetting {
  /** New lookups by formulas allowed at all (results already known are always shown). */
  enabled: boolean;
  /** Credits formulas may spend per day (the spreadsheet's day) in this spreadsheet. */
  dailyCap: number;
}

/** What the sidebar shows: the cap setting and what formulas spent today in this spreadsheet. */
export interface FormulaCapState {
  setting: FormulaCapSetting;
  /** Credits formulas reserved today in this spreadsheet. */
  usedToday: number;
  /** The day `usedToday` counts (yyyy-MM-dd, the spreadsheet's time zone, as the watch's daily limit). */
  day: string;
}

/** One payer's spend in the credits log: a person's runs, or the formulas. */
export interface CreditsSource {
  source: 'run' | 'formulas' | 'watch';
  /** The person (their e-mail address when Apps Script gave it), or whose key the formulas use. */
  payer: string;
  /** The viewer's own runs. */
  mine: boolean;
  /** Credits charged for answers received (found, no address, unprocessable). */
  credits: number;
  /** Answers lost to connection failures (each may have been charged). */
  lost: number;
}

/** One run in the credits log. */
export interface CreditsRun {
  runId: string;
  /** The run's range ('Sheet1'!A2:A100). */
  range: string;
  payer: string;
  mine: boolean;
  /** When its last charge was logged (epoch ms). */
  lastAt: number;
  credits: number;
  found: number;
  lost: number;
}

/** What the credits log says: the sidebar's Credits tab, and a run's plan (the share found). */
export interface CreditsSummary {
  /** The spreadsheet has a credits log (false: nothing was spent since the add-on started logging). */
  hasLog: boolean;
  /** Credits charged for answers received: on `day`, in the last 7 and 30 days, in all. */
  today: number;
  /** The day `today` counts (yyyy-MM-dd), the spreadsheet's (its time zone), as the daily limits count. */
  day?: string;
  last7: number;
  last30: number;
  total: number;
  /** Answers lost to connection failures (maybe charged), apart: the same periods. */
  lostToday: number;
  lost7: number;
  lost30: number;
  lostTotal: number;
  /** Of `total` lookups answered, how many found an address. */
  found: number;
  sources: CreditsSource[];
  /** The last runs, newest first. */
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
  /** Of the rows written: answers lost (maybe charged) and notes (a watch's limit, its stop), neither a charge. */
  lost?: number;
  notes?: number;
}

export interface CreditsExport extends Required<CreditsExportRequest> {
  done: boolean;
  /** What to tell the person (progress, or the end: the sheet, the rows, what was skipped). */
  message: string;
}

/** The watch of a column (src/watch/): what every editor's sidebar shows. */
export interface WatchView {
  /** 'none': no watch in this spreadsheet. */
  state: 'none' | 'watching' | 'stopped';
  /** The sentence that says it all: "Watching Leads!B:B for new rows — paid by …, up to 100 credits a day, …". */
  status: string;
  /** The last thing the watch did or met (a stop, the day's limit, a run waited for). */
  message: string;
  /** The viewer may start a watch (a key saved, no watch running). */
  canStart: boolean;
  column?: string;
  payer?: string;
  /** The viewer started it (their key pays). */
  mine?: boolean;
  limit?: number;
  usedToday?: number;
  limitReached?: boolean;
  /** The creator's triggers are gone (removed outside the add-on): the watch does nothing. */
  triggersMissing?: boolean;
}

/** What Start answered: the watch, or why it did not start (and the placements to choose from). */
export interface WatchStart {
  started: boolean;
  view: WatchView;
  /** A refusal or a question, in words a person can act on. */
  message: string;
  /** The selection's column, as the watch would read it ("Leads!B:B"). */
  column?: string;
  /** Where results may go when the columns beside the URLs hold data: the person picks one. */
  placements?: Placement[];
  /** Rows already in the column without a result: looked up at the first check, within the limit. */
  waitingRows?: number;
}

/** Settings › Remove this spreadsheet's add-on data: what goes, asked before anything is removed. */
export interface DataRemovalPlan {
  /** What goes, one line each, in words a person reads (empty when the spreadsheet holds nothing of the add-on). */
  items: string[];
  /** Why it cannot be done now, and what to do (a run under way), or ''. */
  refusal: string;
  /** The credits log holds rows: the sidebar offers to export it first. */
  creditsLog: boolean;
}

/** What the removal did. */
export interface DataRemovalResult {
  removed: boolean;
  /** What was removed and what was kept, or why nothing was. */
  message: string;
  /** Whose watch triggers remain (Apps Script lets only their creator delete them), or ''. */
  triggersLeftWith: string;
}
