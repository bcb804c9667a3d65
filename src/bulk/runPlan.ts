/** A bulk run's plan and price before anything in the sheet changes. Pure: ./plan.ts does the reading. */
import type { PlacementKind, PlanCounts, RunMode, RunPlan } from '../api';
import { columnLetters } from '../core/a1';
import { outputHeaders, STATUS } from '../core/cells';
import { type NetworkHosts, parseProfileInput } from '../core/url';
import type { LookupResult } from '../lookup/result';
import { type ColumnRead, cellsAt, choosePlacement, placementOptions } from './placement';
import { cellText, isFinalResult, isOwnStatus } from './rowCells';
import { RunScope } from './runScope';

export interface PlanOptions {
  mode: RunMode;
  includeUnprocessable: boolean;
  recheck: boolean;
  extraFields: boolean;
  startAtOnceUnder: number | null;
  hosts: NetworkHosts;
  chosen?: PlacementKind;
}

interface RowScope {
  hosts: NetworkHosts;
  run: RunScope;
  /** The output block's offset from the URL cell. */
  offset: number;
  width: number;
}

interface RowTally {
  counts: PlanCounts;
  profileRows: number;
  errorRows: number;
  unprocessableRows: number;
  /** Profiles to look up, with their row counts. */
  wanted: Map<string, number>;
  written: Set<string>;
}

/** Refuses a column with no profile URL (the Email column selected by mistake) rather than fill it with INVALID_URL. */
export function planRun(
  read: ColumnRead,
  options: PlanOptions,
  stored: (keys: string[]) => Map<string, LookupResult>,
): RunPlan {
  const placements = placementOptions(read, options.extraFields);
  const retry = options.mode === 'retry';
  const placement = choosePlacement(placements, retry, options.chosen);
  const run = RunScope.forRun(options, placement.kind);
  const scope: RowScope = {
    hosts: options.hosts,
    run,
    offset: placement.outputColumn - read.urlColumn,
    width: outputHeaders(options.extraFields).length,
  };
  const tally = tallyRows(read.rows, scope);
  priceProfiles(tally, scope, stored);
  const { counts, errorRows, unprocessableRows } = tally;
  const credits = counts.newProfiles;
  const plan: RunPlan = {
    ...counts,
    mode: options.mode,
    redo: run.redo ? [...run.redo] : null,
    recheck: run.recheck,
    sheetName: read.sheetName,
    range: `${columnLetters(read.urlColumn)}${read.firstRow}:${columnLetters(read.urlColumn)}${read.lastRow}`,
    credits,
    placements,
    placement,
    needsChoice: placements.length > 1 && !retry,
    startAtOnceUnder: options.startAtOnceUnder,
    needsConfirm: options.startAtOnceUnder === null || credits >= options.startAtOnceUnder,
    errorRows,
    unprocessableRows,
  };
  if (tally.profileRows === 0) plan.refusal = noProfilesMessage(read);
  else if (run.redo && counts.lookupRows === 0)
    plan.refusal = `No row of ${plan.range} has the status ${run.redo.join(' or ')}: nothing to retry.`;
  return plan;
}

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
      duplicateRows: 0,
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
  const output = scope.run.readsOutput ? cellsAt(row, scope.offset, scope.width) : [];
  const status = cellText(output[1]);
  const own = isOwnStatus(status, output[0]);
  if (own && status === STATUS.error) tally.errorRows++;
  if (own && status === STATUS.unprocessable) tally.unprocessableRows++;
  if (!scope.run.touches(status, output[0], 1)) {
    counts.alreadyDone++;
    if (input.kind === 'url' && isFinalResult(status, output[0])) tally.written.add(input.key);
    return;
  }
  if (input.kind === 'invalid') counts.notProfiles++;
  else {
    counts.lookupRows++;
    tally.wanted.set(input.key, (tally.wanted.get(input.key) ?? 0) + 1);
  }
}

function priceProfiles(
  tally: RowTally,
  scope: RowScope,
  stored: (keys: string[]) => Map<string, LookupResult>,
): void {
  const { run } = scope;
  const keys = [...tally.wanted.keys()];
  const known = keys.length > 0 && !run.recheck ? stored(keys) : new Map<string, LookupResult>();
  for (const key of keys) {
    const result = known.get(key);
    const free =
      (result && run.keepsStored(result, false)) || (run.copiesWritten(1) && tally.written.has(key));
    if (free) tally.counts.knownProfiles++;
    else tally.counts.newProfiles++;
    tally.counts.duplicateRows += (tally.wanted.get(key) ?? 1) - 1;
  }
}

function noProfilesMessage(read: ColumnRead): string {
  const column = columnLetters(read.urlColumn);
  const emails = read.rows.filter((row) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(cellText(row[0]).trim())).length;
  const what = emails > 0 ? 'e-mail addresses, not profile URLs' : 'no profile URL';
  return `Column ${column} holds ${what}: nothing was changed. Select the column with the profile URLs, then try again.`;
}
