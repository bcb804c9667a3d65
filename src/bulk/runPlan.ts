/**
 * The plan and the price of a bulk run, before anything in the sheet changes: what each row will cost, where the
 * results will go (src/bulk/placement.ts), and what moves. Pure: computed from one read of the column (the URL cell and every cell right
 * of it) and one read of the result store (a `stored` callback).
 */
import { outputHeaders, STATUS } from '../core/cells';
import { type NetworkHosts, parseProfileInput } from '../core/url';
import type { LookupResult } from '../lookup/contract';
import type { Progress } from './job';
import {
  type ColumnRead,
  cellsAt,
  choosePlacement,
  columnName,
  type Placement,
  type PlacementKind,
  placementOptions,
} from './placement';
import { cellText, isOwnStatus, isPendingStatus } from './rowPlan';

/** Which rows a run looks at: all of them, or (Retry failed rows) only the ones with these statuses. */
export type RunMode = 'all' | 'retry';

/** The numbers a plan shows. Rows = blanks + alreadyDone + notProfiles + lookupRows. */
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
  /**
   * Rows (of lookupRows) whose profile's answers were lost twice lately: not sent before `waitUntil`, so not
   * priced; the run marks them ERROR again, saying when.
   */
  waitingRows: number;
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
  /** Above this many credits the run starts only once confirmed (the user's setting). */
  confirmAbove: number;
  needsConfirm: boolean;
  /** Rows by status, for Retry failed rows. */
  errorRows: number;
  unprocessableRows: number;
  /** Until when (epoch ms) the waiting rows wait (the latest of their profiles), and that time in words. */
  waitUntil?: number;
  waitUntilText?: string;
  /** Set when the run cannot start (the column holds no profile URL at all). */
  refusal?: string;
  /** Said about the selection (several ranges or columns selected). */
  note?: string;
  /** A trial ("Try 10 rows first"): the new profiles of the whole range, of which this run looks up the first. */
  trialOf?: number;
  /** This spreadsheet's record from its credits log (src/credits/view.ts): lookups answered, and how many found. */
  lookupRecord?: { lookups: number; found: number };
}

/** What the sidebar or the menu asks for. */
export interface RunRequest {
  /** The selected column (default), or the last run's range (the sidebar's Retry failed rows). */
  source?: 'selection' | 'lastRun';
  mode?: RunMode;
  /** Retry failed rows: UNPROCESSABLE rows too. */
  includeUnprocessable?: boolean;
  /** Look up rows that already have a result again (a credit each): chosen for this run only. */
  recheck?: boolean;
  /** Where the results go, when the plan offered a choice. */
  placement?: PlacementKind;
  /** Only the rows of the first this many new profiles ("Try 10 rows first", src/bulk/trial.ts). */
  trial?: number;
  /** The credits of the plan the user confirmed; a plan that costs more now is shown again. */
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

export interface PlanOptions {
  mode: RunMode;
  /** Retry failed rows: UNPROCESSABLE rows too (a new credit each). */
  includeUnprocessable: boolean;
  /** Look rows with a result up again (a new credit each). */
  recheck: boolean;
  extraFields: boolean;
  confirmAbove: number;
  hosts: NetworkHosts;
  /** The placement chosen in the sidebar, when there was a choice. */
  chosen?: PlacementKind;
}

/** The statuses a run redoes: ERROR (and UNPROCESSABLE when asked), or null for a run over every row. */
export function redoStatuses(mode: RunMode, includeUnprocessable: boolean): string[] | null {
  if (mode !== 'retry') return null;
  return includeUnprocessable ? [STATUS.error, STATUS.unprocessable] : [STATUS.error];
}

/** Whether a row with this status is worked on: by the run's scope (redo), re-check, or the usual rule. */
export function isInScope(status: string, own: boolean, redo: string[] | null, recheck: boolean): boolean {
  if (redo) return own && redo.includes(status);
  if (recheck) return status === '' || own;
  return isPendingStatus(status, true);
}

/** What a run looks at in each row, from the options and the placement. */
interface RowScope {
  hosts: NetworkHosts;
  redo: string[] | null;
  recheck: boolean;
  /** Statuses are read only from the add-on's own (or empty) columns; inserted columns start empty. */
  readsStatus: boolean;
  /** The output block's offset from the URL cell, and its width. */
  offset: number;
  width: number;
}

/** The rows counted: the plan's numbers but the profiles' price, and the profiles to price. */
interface RowTally {
  counts: PlanCounts;
  profileRows: number;
  errorRows: number;
  unprocessableRows: number;
  /** Profiles of the rows to look up, with their rows. */
  wanted: Map<string, number>;
  /** The latest time a held profile may be sent again. */
  waitUntil?: number;
  /** Profiles of rows that keep a result of the add-on's. */
  written: Set<string>;
}

/**
 * Plans a run: `stored` reads the result store once for the distinct profiles to look up. Refuses a column with no
 * profile URL at all (the Email column selected by mistake) instead of filling it with INVALID_URL.
 */
export function planRun(
  read: ColumnRead,
  options: PlanOptions,
  stored: (keys: string[]) => Map<string, LookupResult>,
  held: (keys: string[]) => Map<string, number> = () => new Map(),
): RunPlan {
  const placements = placementOptions(read, options.extraFields);
  const retry = options.mode === 'retry';
  const placement = choosePlacement(placements, retry, options.chosen);
  const scope: RowScope = {
    hosts: options.hosts,
    redo: redoStatuses(options.mode, options.includeUnprocessable),
    recheck: options.mode === 'all' && options.recheck,
    readsStatus: placement.kind !== 'insert',
    offset: placement.outputColumn - read.urlColumn,
    width: outputHeaders(options.extraFields).length,
  };
  const tally = tallyRows(read.rows, scope);
  priceProfiles(tally, scope, stored, held);
  const { counts, errorRows, unprocessableRows } = tally;
  const credits = counts.newProfiles;
  const plan: RunPlan = {
    ...counts,
    mode: options.mode,
    redo: scope.redo,
    recheck: scope.recheck,
    sheetName: read.sheetName,
    range: `${columnName(read.urlColumn)}${read.firstRow}:${columnName(read.urlColumn)}${read.lastRow}`,
    credits,
    placements,
    placement,
    needsChoice: placements.length > 1 && !retry,
    confirmAbove: options.confirmAbove,
    needsConfirm: credits > options.confirmAbove,
    errorRows,
    unprocessableRows,
  };
  if (tally.waitUntil !== undefined) plan.waitUntil = tally.waitUntil;
  if (tally.profileRows === 0) plan.refusal = noProfilesMessage(read);
  else if (scope.redo && counts.lookupRows === 0)
    plan.refusal = `No row of ${plan.range} has the status ${scope.redo.join(' or ')}: nothing to retry.`;
  return plan;
}

/** Counts the rows by what the run does with them; the profiles' price is left to priceProfiles. */
function tallyRows(rows: unknown[][], scope: RowScope): RowTally {
  const tally: RowTally = {
    counts: {
      rows: rows.length,
      blanks: 0,
      alreadyDone: 0,
      notProfiles: 0,
      lookupRows: 0,
      newProfiles: 0,
      knownProfiles: 0,
      waitingRows: 0,
    },
    profileRows: 0,
    errorRows: 0,
    unprocessableRows: 0,
    wanted: new Map<string, number>(),
    written: new Set<string>(),
  };
  for (const row of rows) tallyRow(tally, row, scope);
  return tally;
}

function tallyRow(tally: RowTally, row: unknown[], scope: RowScope): void {
  const { counts } = tally;
  const input = parseProfileInput(row[0], scope.hosts);
  if (input.kind === 'empty') {
    counts.blanks++;
    return;
  }
  if (input.kind === 'url') tally.profileRows++;
  const output = scope.readsStatus ? cellsAt(row, scope.offset, scope.width) : [];
  const status = scope.readsStatus ? cellText(output[1]) : '';
  const own = isOwnStatus(status, output[0]);
  if (own && status === STATUS.error) tally.errorRows++;
  if (own && status === STATUS.unprocessable) tally.unprocessableRows++;
  if (!isInScope(status, own, scope.redo, scope.recheck)) {
    counts.alreadyDone++;
    if (input.kind === 'url' && own && !isPendingStatus(status, true)) tally.written.add(input.key);
    return;
  }
  if (input.kind === 'invalid') counts.notProfiles++;
  else {
    counts.lookupRows++;
    tally.wanted.set(input.key, (tally.wanted.get(input.key) ?? 0) + 1);
  }
}

/** Splits the profiles to look up into known (free) and new (a credit each), reading the store once. */
function priceProfiles(
  tally: RowTally,
  scope: RowScope,
  stored: (keys: string[]) => Map<string, LookupResult>,
  held: (keys: string[]) => Map<string, number>,
): void {
  const { redo, recheck } = scope;
  const keys = [...tally.wanted.keys()];
  const known = keys.length > 0 && !recheck ? stored(keys) : new Map<string, LookupResult>();
  // A profile lost twice was written ERROR: without such a row there is nothing to read (no property call).
  const unknown = keys.filter((key) => !known.has(key));
  const waiting = tally.errorRows > 0 && unknown.length > 0 ? held(unknown) : new Map<string, number>();
  for (const key of keys) {
    const result = known.get(key);
    const until = waiting.get(key);
    if (until !== undefined && !result) {
      tally.counts.waitingRows += tally.wanted.get(key) ?? 0;
      tally.waitUntil = Math.max(tally.waitUntil ?? 0, until);
      continue;
    }
    // A retried UNPROCESSABLE profile is bought again: its stored answer is the one being retried.
    const free =
      !recheck &&
      ((result && !(redo?.includes(STATUS.unprocessable) && result.kind === 'unprocessable')) ||
        (!redo && tally.written.has(key)));
    if (free) tally.counts.knownProfiles++;
    else tally.counts.newProfiles++;
  }
}

function noProfilesMessage(read: ColumnRead): string {
  const column = columnName(read.urlColumn);
  const emails = read.rows.filter((row) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(cellText(row[0]).trim())).length;
  const what = emails > 0 ? 'e-mail addresses, not profile URLs' : 'no profile URL';
  return `Column ${column} holds ${what}: nothing was changed. Select the column with the profile URLs, then try again.`;
}
