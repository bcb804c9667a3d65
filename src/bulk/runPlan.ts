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
  const offset = placement.outputColumn - read.urlColumn;
  const width = outputHeaders(options.extraFields).length;
  const counts: PlanCounts = {
    rows: read.rows.length,
    blanks: 0,
    alreadyDone: 0,
    notProfiles: 0,
    lookupRows: 0,
    newProfiles: 0,
    knownProfiles: 0,
    duplicateRows: 0,
  };
  let profileRows = 0;
  let errorRows = 0;
  let unprocessableRows = 0;
  /** Profiles to look up, with their row counts. */
  const wanted = new Map<string, number>();
  const written = new Set<string>();
  for (const row of read.rows) {
    const input = parseProfileInput(row[0], options.hosts);
    if (input.kind === 'empty') {
      counts.blanks++;
      continue;
    }
    if (input.kind === 'url') profileRows++;
    const output = run.readsOutput ? cellsAt(row, offset, width) : [];
    const status = cellText(output[1]);
    const own = isOwnStatus(status, output[0]);
    if (own && status === STATUS.error) errorRows++;
    if (own && status === STATUS.unprocessable) unprocessableRows++;
    if (!run.touches(status, output[0], 1)) {
      counts.alreadyDone++;
      if (input.kind === 'url' && isFinalResult(status, output[0])) written.add(input.key);
    } else if (input.kind === 'invalid') counts.notProfiles++;
    else {
      counts.lookupRows++;
      wanted.set(input.key, (wanted.get(input.key) ?? 0) + 1);
    }
  }
  const keys = [...wanted.keys()];
  const known = keys.length > 0 && !run.recheck ? stored(keys) : new Map<string, LookupResult>();
  for (const [key, rows] of wanted) {
    const result = known.get(key);
    if ((result && run.keepsStored(result, false)) || (run.copiesWritten(1) && written.has(key)))
      counts.knownProfiles++;
    else counts.newProfiles++;
    counts.duplicateRows += rows - 1;
  }
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
  if (profileRows === 0) {
    const emails = read.rows.some((row) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(cellText(row[0]).trim()));
    const what = emails ? 'e-mail addresses, not profile URLs' : 'no profile URL';
    plan.refusal = `Column ${columnLetters(read.urlColumn)} holds ${what}: nothing was changed. Select the column with the profile URLs, then try again.`;
  } else if (run.redo && counts.lookupRows === 0)
    plan.refusal = `No row of ${plan.range} has the status ${run.redo.join(' or ')}: nothing to retry.`;
  return plan;
}
