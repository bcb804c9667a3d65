/**
 * The plan and the price of a bulk run, before anything in the sheet changes: what each row will cost, where the
 * results will go, and what moves. Pure: computed from one read of the column (the URL cell and every cell right
 * of it) and one read of the result store (a `stored` callback).
 */
import { outputHeaders, STATUS } from './cells';
import type { Progress } from './job';
import type { LookupResult } from './lookup';
import { canReuseOutputColumns, cellText, isBlank, isOwnStatus, isPendingStatus } from './rowPlan';
import { countText } from './text';
import { type NetworkHosts, parseProfileInput } from './url';

/** Which rows a run looks at: all of them, or (Retry failed rows) only the ones with these statuses. */
export type RunMode = 'all' | 'retry';

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
  /** Set when the run cannot start (the column holds no profile URL at all). */
  refusal?: string;
  /** Said about the selection (several ranges or columns selected). */
  note?: string;
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
  /** The credits of the plan the user confirmed; a plan that costs more now is shown again. */
  confirmedCredits?: number;
}

/** What starting a run returns: the plan (null when another run is under way), and whether the run started. */
export interface RunStart {
  plan: RunPlan | null;
  started: boolean;
  progress: Progress;
}

/** One read of the column: the header row and the URL rows, each from the URL cell to the last column read. */
export interface ColumnRead {
  sheetName: string;
  urlColumn: number;
  /** The sheet's column count (getMaxColumns). */
  maxColumns: number;
  headerRow: number | null;
  firstRow: number;
  lastRow: number;
  /** The header row's cells (URL cell first), or null. */
  header: unknown[] | null;
  /** Rows firstRow..lastRow, URL cell first. Shorter rows read as blank beyond their end. */
  rows: unknown[][];
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

/** Column number (1-based) to its letters: 1 → A, 27 → AA. */
export function columnName(column: number): string {
  let name = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function span(first: number, count: number): string {
  return `${columnName(first)}:${columnName(first + count - 1)}`;
}

/** The cells of a row at `offset` (from the URL cell) for `width` columns, blank beyond the row's end. */
function cellsAt(row: unknown[] | null, offset: number, width: number): unknown[] {
  const cells: unknown[] = [];
  for (let index = 0; index < width; index++) cells.push(row?.[offset + index] ?? '');
  return cells;
}

/** The output block at `offset`: the header row's cells first (when there is one), then the URL rows'. */
function blockAt(read: ColumnRead, offset: number, width: number): unknown[][] {
  const rows = read.rows.map((row) => cellsAt(row, offset, width));
  return read.header ? [cellsAt(read.header, offset, width), ...rows] : rows;
}

function columnsEmpty(block: unknown[][]): boolean {
  return block.every((row) => row.every(isBlank));
}

/** Where the results can go, from the cells right of the URLs. */
export function placementOptions(read: ColumnRead, extraFields: boolean): Placement[] {
  const width = outputHeaders(extraFields).length;
  const headerIndex = read.header ? 0 : null;
  const beside = read.urlColumn + 1;
  const fits = read.urlColumn + width <= read.maxColumns;
  if (fits && canReuseOutputColumns(blockAt(read, 1, width), headerIndex, extraFields)) {
    return [reuse(beside, width, false)];
  }
  if (extraFields) {
    // The add-on's own four columns stay; only Account type and Name are added.
    const base = outputHeaders(false).length;
    const baseBlock = blockAt(read, 1, base);
    if (!columnsEmpty(baseBlock) && canReuseOutputColumns(baseBlock, headerIndex, false)) {
      const after = read.urlColumn + base;
      if (read.urlColumn + width <= read.maxColumns && columnsEmpty(blockAt(read, 1 + base, width - base))) {
        return [reuse(beside, width, true)];
      }
      const count = width - base;
      return [
        {
          kind: 'extend',
          outputColumn: beside,
          insertAfter: after,
          insertCount: count,
          columns: span(beside, width),
          effect: `Your results stay in ${span(beside, base)}; ${countText(count, 'column')} for Account type and Name are inserted after ${columnName(after)}, so ${columnName(after + 1)} and every column right of it move ${count} to the right (on every row of the sheet).`,
        },
      ];
    }
  }
  return [insertBeside(read, width), firstFreeRight(read, width)];
}

function reuse(column: number, width: number, adding: boolean): Placement {
  return {
    kind: 'reuse',
    outputColumn: column,
    insertAfter: null,
    insertCount: 0,
    columns: span(column, width),
    effect: adding
      ? `Results go into the add-on's columns ${span(column, width)} (Account type and Name are added in empty columns). Nothing moves.`
      : `Results go into ${span(column, width)} beside the URLs. Nothing moves.`,
  };
}

function insertBeside(read: ColumnRead, width: number): Placement {
  const beside = read.urlColumn + 1;
  return {
    kind: 'insert',
    outputColumn: beside,
    insertAfter: read.urlColumn,
    insertCount: width,
    columns: span(beside, width),
    effect: `${countText(width, 'column')} are inserted after ${columnName(read.urlColumn)}: ${columnName(beside)} and every column right of it move ${width} to the right, on every row of the sheet (other tables too).`,
  };
}

/** The first `width` adjacent columns right of the URLs that are empty (or the add-on's own) in the run's rows. */
function firstFreeRight(read: ColumnRead, width: number): Placement {
  const headerIndex = read.header ? 0 : null;
  let offset = 2;
  while (read.urlColumn + offset <= read.maxColumns) {
    const block = blockAt(read, offset, width);
    if (canReuseOutputColumns(block, headerIndex, width > outputHeaders(false).length)) break;
    offset++;
  }
  const column = read.urlColumn + offset;
  const missing = Math.max(0, column + width - 1 - read.maxColumns);
  return {
    kind: 'right',
    outputColumn: column,
    insertAfter: missing > 0 ? read.maxColumns : null,
    insertCount: missing,
    columns: span(column, width),
    effect:
      missing > 0
        ? `Results go into ${span(column, width)}, after the sheet's last column (${countText(missing, 'column')} added at the end). Nothing moves.`
        : `Results go into the empty columns ${span(column, width)}. Nothing moves.`,
  };
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

/**
 * Plans a run: `stored` reads the result store once for the distinct profiles to look up. Refuses a column with no
 * profile URL at all (the Email column selected by mistake) instead of filling it with INVALID_URL.
 */
export function planRun(
  read: ColumnRead,
  options: PlanOptions,
  stored: (keys: string[]) => Map<string, LookupResult>,
): RunPlan {
  const placements = placementOptions(read, options.extraFields);
  // A retry works where the results are: the add-on's columns beside the URLs or further right, never new ones.
  const retry = options.mode === 'retry';
  const needsChoice = placements.length > 1 && !retry;
  const placement =
    (retry
      ? placements.find((candidate) => candidate.kind !== 'insert')
      : placements.find((candidate) => candidate.kind === options.chosen)) ?? placements[0];
  const redo = redoStatuses(options.mode, options.includeUnprocessable);
  const recheck = options.mode === 'all' && options.recheck;
  const width = outputHeaders(options.extraFields).length;
  // Statuses are read only from the add-on's own (or empty) columns; inserted columns start empty.
  const readsStatus = placement.kind !== 'insert';
  const offset = placement.outputColumn - read.urlColumn;
  const counts: PlanCounts = {
    rows: read.rows.length,
    blanks: 0,
    alreadyDone: 0,
    notProfiles: 0,
    lookupRows: 0,
    newProfiles: 0,
    knownProfiles: 0,
  };
  let profileRows = 0;
  let errorRows = 0;
  let unprocessableRows = 0;
  const wanted = new Set<string>();
  const written = new Set<string>();
  for (const row of read.rows) {
    const input = parseProfileInput(row[0], options.hosts);
    if (input.kind === 'empty') {
      counts.blanks++;
      continue;
    }
    if (input.kind === 'url') profileRows++;
    const output = readsStatus ? cellsAt(row, offset, width) : [];
    const status = readsStatus ? cellText(output[1]) : '';
    const own = isOwnStatus(status, output[0]);
    if (own && status === STATUS.error) errorRows++;
    if (own && status === STATUS.unprocessable) unprocessableRows++;
    if (!isInScope(status, own, redo, recheck)) {
      counts.alreadyDone++;
      if (input.kind === 'url' && own && !isPendingStatus(status, true)) written.add(input.key);
      continue;
    }
    if (input.kind === 'invalid') counts.notProfiles++;
    else {
      counts.lookupRows++;
      wanted.add(input.key);
    }
  }
  const keys = [...wanted];
  const known = keys.length > 0 && !recheck ? stored(keys) : new Map<string, LookupResult>();
  for (const key of keys) {
    const result = known.get(key);
    // A retried UNPROCESSABLE profile is bought again: its stored answer is the one being retried.
    const free =
      !recheck &&
      ((result && !(redo?.includes(STATUS.unprocessable) && result.kind === 'unprocessable')) ||
        (!redo && written.has(key)));
    if (free) counts.knownProfiles++;
    else counts.newProfiles++;
  }
  const credits = counts.newProfiles;
  const plan: RunPlan = {
    ...counts,
    mode: options.mode,
    redo,
    recheck,
    sheetName: read.sheetName,
    range: `${columnName(read.urlColumn)}${read.firstRow}:${columnName(read.urlColumn)}${read.lastRow}`,
    credits,
    placements,
    placement,
    needsChoice,
    confirmAbove: options.confirmAbove,
    needsConfirm: credits > options.confirmAbove,
    errorRows,
    unprocessableRows,
  };
  if (profileRows === 0) plan.refusal = noProfilesMessage(read);
  else if (redo && counts.lookupRows === 0)
    plan.refusal = `No row of ${plan.range} has the status ${redo.join(' or ')}: nothing to retry.`;
  return plan;
}

function noProfilesMessage(read: ColumnRead): string {
  const column = columnName(read.urlColumn);
  const emails = read.rows.filter((row) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(cellText(row[0]).trim())).length;
  const what = emails > 0 ? 'e-mail addresses, not profile URLs' : 'no profile URL';
  return `Column ${column} holds ${what}: nothing was changed. Select the column with the profile URLs, then try again.`;
}
