/**
 * Planning a run from the spreadsheet: the range (the selection or the last run's), one read of its column (the URL
 * cells and every cell right of them, header included) and one read of the result store, handed to ./runPlan.ts.
 */

import { timeText } from '../adapters/clock';
import { appsScript } from '../adapters/platform';
import { heldAfterLosses, servicePorts } from '../adapters/ports';
import { readScriptConfig } from '../adapters/scriptConfig';
import { readSettings } from '../adapters/settings';
import { activeSpreadsheet, sheetWithId } from '../adapters/spreadsheet';
import type { PlacementKind, RunPlan, RunRequest, Settings } from '../api';
import { outputHeaders } from '../core/cells';
import { MAX_LOST_SENDS, TRIAL_PROFILES } from '../core/limits';
import { isBlankCell } from '../core/url';
import type { Job } from './job';
import { loadJob } from './jobStore';
import { type ColumnRead, columnName } from './placement';
import { isHeaderText, withFormulaCells } from './rowCells';
import { planRun } from './runPlan';
import { rememberingStore, trialRead } from './trial';

type Range = GoogleAppsScript.Spreadsheet.Range;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** A plan with what creating its job needs. */
export interface PlannedRun {
  plan: RunPlan;
  read: ColumnRead;
  sheet: Sheet;
  settings: Settings;
}

const EMPTY_SELECTION = 'The selected cells are empty: select the profile URLs, then try again.';

/** The range the request is about, and what to say about the selection. */
function targetRange(request: RunRequest): { range: Range; note?: string } {
  const ss = activeSpreadsheet();
  if (request.source === 'lastRun') {
    const job = loadJob(appsScript);
    const sheet = job && sheetWithId(ss, job.sheetId);
    if (job && sheet) return { range: lastRunRange(sheet, job) };
  }
  // With several ranges selected, getActiveRange() is the last one selected
  // (apps-script/reference/spreadsheet/spreadsheet#getactiverange).
  const selection = ss.getActiveRange();
  if (!selection)
    throw new Error('Select the cells with profile URLs (one column), then choose Find e-mails again.');
  const notes: string[] = [];
  const ranges = ss.getActiveRangeList()?.getRanges() ?? [];
  if (ranges.length > 1) {
    notes.push(
      `${ranges.length} ranges are selected: using ${selection.getA1Notation()}, the last one selected.`,
    );
  }
  if (selection.getNumColumns() > 1) {
    notes.push(`Several columns are selected: using the first one (${columnName(selection.getColumn())}).`);
  }
  return { range: selection, note: notes.length > 0 ? notes.join(' ') : undefined };
}

function lastRunRange(sheet: Sheet, job: Job): Range {
  const top = job.headerRow ?? job.firstRow;
  return sheet.getRange(top, job.urlColumn, Math.max(1, job.lastRow - top + 1), 1);
}

/** One read of the column: from a row above the selection (a header there) to its last URL, every column right. */
export function readColumn(range: Range, extraFields: boolean): { read: ColumnRead; sheet: Sheet } {
  const sheet = range.getSheet();
  const urlColumn = range.getColumn();
  const maxColumns = sheet.getMaxColumns();
  const top = range.getRow();
  // A whole-column selection (A:A) ends at the sheet's last row with data, not at row 1,000,000.
  const bottom = Math.min(range.getLastRow(), sheet.getLastRow());
  if (bottom < top) throw new Error(EMPTY_SELECTION);
  const blockTop = top > 1 ? top - 1 : top;
  // Every column to the last one with data (the first empty ones right of the URLs are found there), at least
  // the output columns beside the URLs.
  const wanted = Math.max(1 + outputHeaders(extraFields).length, sheet.getLastColumn() - urlColumn + 1);
  const width = Math.max(1, Math.min(wanted, maxColumns - urlColumn + 1));
  const cells = sheet.getRange(blockTop, urlColumn, bottom - blockTop + 1, width);
  // A cell holding a formula is the user's data (even one showing ""): such columns are not reused.
  const block = withFormulaCells(cells.getValues(), cells.getFormulas());
  const at = (row: number) => block[row - blockTop];
  let headerRow: number | null = null;
  if (isHeaderText(at(top)[0])) headerRow = top;
  else if (top > 1 && isHeaderText(block[0][0])) headerRow = top - 1;
  // The job's rows run from the first to the last non-empty URL cell: its ends identify it later.
  const filled = (row: number) => !isBlankCell(at(row)[0]);
  let firstRow = headerRow === top ? top + 1 : top;
  while (firstRow <= bottom && !filled(firstRow)) firstRow++;
  let lastRow = bottom;
  while (lastRow >= firstRow && !filled(lastRow)) lastRow--;
  if (firstRow > lastRow) {
    throw new Error(
      headerRow === null
        ? EMPTY_SELECTION
        : 'There are no profile URLs under the header: select the URLs, then try again.',
    );
  }
  return {
    sheet,
    read: {
      sheetName: sheet.getName(),
      urlColumn,
      maxColumns,
      headerRow,
      firstRow,
      lastRow,
      header: headerRow === null ? null : at(headerRow),
      rows: block.slice(firstRow - blockTop, lastRow - blockTop + 1),
    },
  };
}

/** Plans the run the request asks for. Throws (with the reason) when there is nothing to plan. */
export function planFor(request: RunRequest): PlannedRun {
  const settings = readSettings();
  const { range, note } = targetRange(request);
  const whole = readColumn(range, settings.extraFields);
  const store = servicePorts().store;
  const options = {
    mode: request.mode === 'retry' ? ('retry' as const) : ('all' as const),
    includeUnprocessable: request.includeUnprocessable === true,
    recheck: request.recheck === true,
    extraFields: settings.extraFields,
    startAtOnceUnder: settings.startAtOnce ? settings.startAtOnceUnder : null,
    hosts: readScriptConfig().networkHosts,
    chosen: request.placement,
  };
  const stored = rememberingStore((keys) => store.getMany(keys));
  const planOf = (read: ColumnRead, chosen = options.chosen) =>
    planRun(read, { ...options, chosen }, stored, (keys) => heldAfterLosses(keys, MAX_LOST_SENDS));
  let plan = planOf(whole.read);
  const { sheet } = whole;
  let { read } = whole;
  // A trial keeps the whole range's placement: "Run the rest" then writes beside the trial's results.
  const trial = request.trial && !plan.refusal ? trialRead(read, planOf, request.trial, plan) : undefined;
  if (trial) {
    const newProfiles = plan.newProfiles;
    read = trial;
    plan = { ...planOf(trial, options.chosen ?? plan.placement.kind), trialOf: newProfiles };
  }
  if (plan.waitUntil !== undefined) plan.waitUntilText = timeText(plan.waitUntil);
  if (note) plan.note = note;
  return { plan, read, sheet, settings };
}

/** The request as received from the sidebar (plain values), checked. */
export function parseRunRequest(raw: unknown): RunRequest {
  const record = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const request: RunRequest = {
    source: record.source === 'lastRun' ? 'lastRun' : 'selection',
    mode: record.mode === 'retry' ? 'retry' : 'all',
    includeUnprocessable: record.includeUnprocessable === true,
    recheck: record.recheck === true,
  };
  if (['reuse', 'insert', 'right', 'extend'].includes(String(record.placement))) {
    request.placement = record.placement as PlacementKind;
  }
  if (record.trial === true || record.trial === TRIAL_PROFILES) request.trial = TRIAL_PROFILES;
  if (typeof record.confirmedCredits === 'number' && record.confirmedCredits >= 0) {
    request.confirmedCredits = record.confirmedCredits;
  }
  return request;
}
