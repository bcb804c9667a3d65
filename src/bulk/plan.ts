/** Planning a run from the spreadsheet: its range, one read of its column and of the store, for ./runPlan.ts. */
import type { PlacementKind, RunPlan, RunRequest, RunTarget, Settings } from '../api';
import { columnLetters } from '../core/a1';
import { outputHeaders } from '../core/cells';
import { TRIAL_PROFILES } from '../core/limits';
import type { Platform } from '../core/ports';
import type { CellBlock, SheetPort } from '../core/sheet';
import { isRecord } from '../core/storedJson';
import { isBlankCell } from '../core/url';
import type { LookupResult } from '../lookup/result';
import { storeOf } from '../store/store';
import { type Block, ownedBeside, placedOn, readBlocks } from './blocks';
import { loadJob } from './jobStore';
import type { ColumnRead } from './placement';
import { isHeaderText, withFormulaCells } from './rowCells';
import { planRun } from './runPlan';

export interface PlannedRun {
  plan: RunPlan;
  read: ColumnRead;
  sheet: SheetPort;
  settings: Settings;
}

const EMPTY_SELECTION = 'The selected cells are empty: select the profile URLs, then try again.';
const NO_URLS_UNDER_HEADER = 'There are no profile URLs under the header: select the URLs, then try again.';

function targetRange(
  platform: Platform,
  request: RunRequest,
): { sheet: SheetPort; block: CellBlock; note?: string } {
  const ss = platform.spreadsheet();
  const { target } = request;
  if (target) {
    const sheet = ss.sheetById(target.sheetId);
    if (!sheet)
      throw new Error(
        'The sheet of this plan was deleted: select the profile URLs, then choose Find e-mails again.',
      );
    return { sheet, block: { row: target.row, column: target.column, rows: target.rows, columns: 1 } };
  }
  if (request.source === 'lastRun') {
    const job = loadJob(platform);
    const sheet = job && ss.sheetById(job.sheetId);
    const top = job?.headerRow ?? job?.firstRow ?? 1;
    if (job && sheet)
      return {
        sheet,
        block: { row: top, column: job.urlColumn, rows: Math.max(1, job.lastRow - top + 1), columns: 1 },
      };
  }
  const selection = ss.selection();
  if (!selection)
    throw new Error('Select the cells with profile URLs (one column), then choose Find e-mails again.');
  const { sheet, block } = selection;
  const notes: string[] = [];
  const rangeCount = selection.rangeCount();
  if (rangeCount > 1)
    notes.push(`${rangeCount} ranges are selected: using ${selection.a1()}, the last one selected.`);
  if (block.columns > 1)
    notes.push(`Several columns are selected: using the first one (${columnLetters(block.column)}).`);
  return { sheet, block, note: notes.length > 0 ? notes.join(' ') : undefined };
}

/** From a row above the selection (a header there) to its last URL, every column right. */
export function readColumn(
  { sheet, block }: { sheet: SheetPort; block: CellBlock },
  extraFields: boolean,
  blocks: readonly Block[],
): ColumnRead {
  const { row: top, column: urlColumn } = block;
  const maxColumns = sheet.maxColumns();
  // A whole-column selection (A:A) ends at the sheet's last row with data, not at row 1,000,000.
  const bottom = Math.min(block.row + block.rows - 1, sheet.lastRow());
  if (bottom < top) throw new Error(EMPTY_SELECTION);
  const blockTop = top > 1 ? top - 1 : top;
  const wanted = Math.max(1 + outputHeaders(extraFields).length, sheet.lastColumn() - urlColumn + 1);
  const width = Math.max(1, Math.min(wanted, maxColumns - urlColumn + 1));
  const cells = sheet.valuesAndFormulas({
    row: blockTop,
    column: urlColumn,
    rows: bottom - blockTop + 1,
    columns: width,
  });
  // A cell holding a formula is the user's data (even one showing ""): such columns are not reused.
  const rows = withFormulaCells(cells.values, cells.formulas);
  const at = (row: number) => rows[row - blockTop];
  let headerRow: number | null = null;
  if (isHeaderText(at(top)[0])) headerRow = top;
  else if (top > 1 && isHeaderText(rows[0][0])) headerRow = top - 1;
  const filled = (row: number) => !isBlankCell(at(row)[0]);
  let firstRow = headerRow === top ? top + 1 : top;
  while (firstRow <= bottom && !filled(firstRow)) firstRow++;
  let lastRow = bottom;
  while (lastRow >= firstRow && !filled(lastRow)) lastRow--;
  if (firstRow > lastRow) throw new Error(headerRow === null ? EMPTY_SELECTION : NO_URLS_UNDER_HEADER);
  return {
    sheetName: sheet.name(),
    urlColumn,
    maxColumns,
    headerRow,
    firstRow,
    lastRow,
    header: headerRow === null ? null : at(headerRow),
    rows: rows.slice(firstRow - blockTop, lastRow - blockTop + 1),
    owned: ownedBeside(blocks, urlColumn),
  };
}

export function blocksOn(platform: Platform, sheet: SheetPort): Block[] {
  return placedOn(readBlocks(platform.documentProperties()), sheet).placed;
}

export type ColumnPlanner = (read: ColumnRead, chosen?: PlacementKind) => RunPlan;

/**
 * How every run (the sidebar's and the watch's) prices a column read, the store read once per profile.
 * `startAtOnceUnder`: runs under this many credits start without their plan (null: every run shows it first).
 */
export function columnPlanner(
  platform: Platform,
  settings: Settings,
  request: Pick<RunRequest, 'mode' | 'includeUnprocessable' | 'recheck' | 'placement'>,
  startAtOnceUnder: number | null,
): ColumnPlanner {
  const options = {
    mode: request.mode ?? 'all',
    includeUnprocessable: request.includeUnprocessable === true,
    recheck: request.recheck === true,
    extraFields: settings.extraFields,
    startAtOnceUnder,
    hosts: platform.config().networkHosts,
  };
  const store = storeOf(platform);
  const stored = rememberingStore((keys) => store.getMany(keys));
  return (read, chosen = request.placement) => planRun(read, { ...options, chosen }, stored);
}

/** Halving reads each key from the store once. */
export function rememberingStore(
  stored: (keys: string[]) => Map<string, LookupResult>,
): (keys: string[]) => Map<string, LookupResult> {
  const known = new Map<string, LookupResult | null>();
  return (keys) => {
    const unknown = keys.filter((key) => !known.has(key));
    if (unknown.length > 0) {
      const found = stored(unknown);
      for (const key of unknown) known.set(key, found.get(key) ?? null);
    }
    const answer = new Map<string, LookupResult>();
    for (const key of keys) {
      const result = known.get(key);
      if (result) answer.set(key, result);
    }
    return answer;
  };
}

/** "Try 10 rows first": a run over the rows of a range's first few new profiles only. */
export function firstRowsOf(read: ColumnRead, count: number): ColumnRead {
  return { ...read, lastRow: read.firstRow + count - 1, rows: read.rows.slice(0, count) };
}

/** The shortest first rows holding `profiles` new profiles, by halving; undefined when that is the whole range. */
export function trialRead(
  read: ColumnRead,
  planOf: (read: ColumnRead) => RunPlan,
  profiles: number,
  whole: RunPlan,
): ColumnRead | undefined {
  if (whole.newProfiles <= profiles) return undefined;
  let low = 1;
  let high = read.rows.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (planOf(firstRowsOf(read, middle)).newProfiles >= profiles) high = middle;
    else low = middle + 1;
  }
  return firstRowsOf(read, low);
}

/** Throws (with the reason) when there is nothing to plan. */
export function planFor(platform: Platform, request: RunRequest): PlannedRun {
  const settings = platform.settings.read();
  const { note, ...target } = targetRange(platform, request);
  const { sheet, block } = target;
  let read = readColumn(target, settings.extraFields, blocksOn(platform, sheet));
  const startAtOnceUnder = settings.startAtOnce ? settings.startAtOnceUnder : null;
  const planOf = columnPlanner(platform, settings, request, startAtOnceUnder);
  let plan = planOf(read);
  // A trial keeps the whole range's placement: "Run the rest" then writes beside the trial's results.
  const trial = request.trial && !plan.refusal ? trialRead(read, planOf, request.trial, plan) : undefined;
  if (trial) {
    plan = { ...planOf(trial, request.placement ?? plan.placement.kind), trialOf: plan.newProfiles };
    read = trial;
  }
  if (note) plan.note = note;
  plan.target = { sheetId: sheet.id, column: block.column, row: block.row, rows: block.rows };
  return { plan, read, sheet, settings };
}

export function parseRunRequest(raw: unknown): RunRequest {
  const record = isRecord(raw) ? raw : {};
  const request: RunRequest = {
    source: record.source === 'lastRun' ? 'lastRun' : 'selection',
    mode: record.mode === 'retry' ? 'retry' : 'all',
    includeUnprocessable: record.includeUnprocessable === true,
    recheck: record.recheck === true,
  };
  if (['reuse', 'insert', 'right', 'extend'].includes(String(record.placement)))
    request.placement = record.placement as PlacementKind;
  if (record.trial === true || record.trial === TRIAL_PROFILES) request.trial = TRIAL_PROFILES;
  const target = parseTarget(record.target);
  if (target) request.target = target;
  if (typeof record.confirmedCredits === 'number' && record.confirmedCredits >= 0)
    request.confirmedCredits = record.confirmedCredits;
  return request;
}

function parseTarget(raw: unknown): RunTarget | undefined {
  const record = isRecord(raw) ? raw : {};
  const whole = (key: keyof RunTarget, min: number) =>
    typeof record[key] === 'number' && Number.isInteger(record[key]) && record[key] >= min;
  if (!whole('sheetId', 0) || !whole('column', 1) || !whole('row', 1) || !whole('rows', 1)) return undefined;
  const { sheetId, column, row, rows } = record as unknown as RunTarget;
  return { sheetId, column, row, rows };
}
