/** What a watch's next run covers: the column planned by the bulk run's planner, cut to the work and today's credits. */
import type { RunPlan } from '../api';
import {
  type Block,
  blocksOn,
  type ColumnRead,
  type PlannedRun,
  readColumn,
  trialRead,
  watchPlanner,
} from '../bulk/forWatch';
import { columnLetters } from '../core/a1';
import type { Platform } from '../core/ports';
import type { SheetPort } from '../core/sheet';
import type { WaitingRows, Watch } from './watch';

export type WatchPlan =
  | { kind: 'nothing' }
  | { kind: 'limit'; waiting: WaitingRows }
  | { kind: 'stop'; reason: string }
  | { kind: 'run'; planned: PlannedRun };

/** From the top row to the sheet's last row; null when it holds nothing. */
export function readWatched(
  watch: Pick<Watch, 'topRow' | 'urlColumn'>,
  sheet: SheetPort,
  extraFields: boolean,
  blocks: readonly Block[],
): ColumnRead | null {
  const last = sheet.lastRow();
  if (last < watch.topRow || watch.urlColumn > sheet.maxColumns()) return null;
  try {
    const block = { row: watch.topRow, column: watch.urlColumn, rows: last - watch.topRow + 1, columns: 1 };
    return readColumn({ sheet, block }, extraFields, blocks);
  } catch {
    return null;
  }
}

function rowsFrom(read: ColumnRead, from: number): ColumnRead {
  return { ...read, firstRow: read.firstRow + from, rows: read.rows.slice(from) };
}

const work = (plan: RunPlan) => plan.lookupRows + plan.notProfiles;

/** The rows from the first one a run would work on, found by halving. */
function fromFirstWork(read: ColumnRead, planOf: (read: ColumnRead) => RunPlan, whole: RunPlan): ColumnRead {
  let low = 0;
  let high = read.rows.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (work(planOf(rowsFrom(read, middle))) === work(whole)) low = middle;
    else high = middle - 1;
  }
  return low > 0 ? rowsFrom(read, low) : read;
}

export function planWatchedRows(platform: Platform, watch: Watch, remaining: number): WatchPlan {
  const sheet = platform.spreadsheet().sheetById(watch.sheetId);
  if (!sheet) return { kind: 'stop', reason: `the sheet "${watch.sheetName}" no longer exists` };
  const settings = platform.settings.read();
  const whole = readWatched(watch, sheet, settings.extraFields, blocksOn(platform, sheet));
  if (!whole) return { kind: 'nothing' };
  if (watch.headerText && String(whole.header?.[0] ?? '') !== watch.headerText) {
    return {
      kind: 'stop',
      reason: `the watched column's header "${watch.headerText}" is no longer there (the column moved or was deleted)`,
    };
  }
  const planOf = watchPlanner(platform, settings, watch.placement);
  const plan = planOf(whole);
  if (plan.refusal || work(plan) === 0) return { kind: 'nothing' };
  const column = watch.outputColumn;
  if (column !== undefined && plan.placement.outputColumn !== column) {
    return {
      kind: 'stop',
      reason: 'its result columns hold other data now (or moved), so it would write elsewhere',
    };
  }
  let read = fromFirstWork(whole, planOf, plan);
  let cut = planOf(read);
  if (cut.placement.outputColumn !== plan.placement.outputColumn) {
    read = whole;
    cut = plan;
  }
  const waiting = { first: `${columnLetters(watch.urlColumn)}${read.firstRow}`, rows: work(plan) };
  if (cut.newProfiles > remaining) {
    if (remaining === 0) return { kind: 'limit', waiting };
    const first = trialRead(read, planOf, remaining, cut);
    if (first) {
      read = first;
      cut = planOf(first);
    }
    if (cut.placement.outputColumn !== plan.placement.outputColumn || cut.newProfiles > remaining)
      return { kind: 'limit', waiting };
  }
  return { kind: 'run', planned: { plan: cut, read, sheet, settings } };
}
