/**
 * Starting a bulk run on the selected column (or Retry failed rows): its plan first (src/bulk/plan.ts), then,
 * when the plan allows, the job, the output columns and the counts of the rows as they are.
 */

import type { Progress, RunPlan, RunRequest, RunStart } from '../api';
import { CELL, outputHeaders } from '../core/cells';
import type { Platform } from '../core/ports';
import { KEY_SOURCE, SETTINGS_PATH } from '../core/product';
import { quoteService } from '../core/text';
import { timeId } from '../core/timeId';
import { redactKey } from '../lookup/apiKey';
import { askAboutKey } from '../lookup/keyCheck';
import type { KeyCheck } from '../lookup/result';
import { storeOf } from '../store/store';
import { frameOf, recordBlock } from './blocks';
import { idleProgress, type Job, mayDrive, notYourRun, progressOf } from './job';
import { isActive, transition } from './jobMachine';
import { deleteJob, loadJob, saveJob } from './jobStore';
import { addFolded, countSelection } from './outcomes';
import { type PlannedRun, planFor } from './plan';
import { cellHash, textCells } from './rowCells';
import { recordRun } from './runHistory';
import { RunScope } from './runScope';
import { openingSlice, PACE_START } from './slice';

export function enrichSelection(platform: Platform): Progress {
  return startFromMenu(platform, { source: 'selection', mode: 'all' });
}

/** Retry failed rows (the menu): only the selected column's rows whose status is ERROR. */
export function retryFailedRows(platform: Platform): Progress {
  return startFromMenu(platform, { source: 'selection', mode: 'retry' });
}

/**
 * The menu: the sidebar opens on the plan, with its price and Start, and nothing in the sheet changes; only a run
 * under the credits the user chose in Settings ("start runs under N credits at once", off by default) that needs
 * no choice of columns starts at once.
 */
function startFromMenu(platform: Platform, request: RunRequest): Progress {
  const { ui } = platform;
  const outcome = startRun(platform, request, 'choose Find e-mails again');
  // The key refused: one message, in a dialog; no sidebar (it would say the same again).
  if (outcome.keyRefusal) ui.showAlert(outcome.keyRefusal);
  else if (outcome.started || outcome.plan === null) ui.showSidebar('progress');
  else ui.showSidebar(request.mode === 'retry' ? 'retry' : 'plan');
  return outcome.progress;
}

/**
 * What starting a run found under the lock: a run under way, a run created, a plan that waits for the user, or a
 * plan that may start once the starter's key is checked.
 */
type StartOutcome =
  | { existing: Job }
  | { created: Job; plan: RunPlan }
  | { plan: RunPlan }
  | { ready: PlannedRun };

/**
 * Starts the run the request asks for when its plan allows it (the sidebar's Start, and the menu). `then`: what the
 * person does once a valid key is saved, where the refusal is shown.
 */
export function startRun(platform: Platform, request: RunRequest, then = 'press Start again'): RunStart {
  const { clock, lock } = platform;
  const viewerId = platform.runner.id();
  let outcome = lock.with(() => planUnderLock(platform, request));
  if ('ready' in outcome) {
    const { ready } = outcome;
    // The plan may start: the starter's key first (one free key check, outside the lock; no request when none is
    // saved), so a key the service refuses leaves the sheet as it was, with no header, column or job. A run that
    // will send no lookup (its rows known, or all waiting) needs no key and sends nothing.
    const keyRefusal =
      ready.plan.credits > 0
        ? checkKeyForRun(then, platform.settings.apiKey(), (key) => askAboutKey(platform, key)).refusal
        : undefined;
    if (keyRefusal)
      return { plan: ready.plan, started: false, progress: idleProgress(keyRefusal), keyRefusal };
    // Check and create under one lock: two quick clicks must not create two jobs (nor insert columns twice).
    outcome = lock.with(() => createUnderLock(platform, ready, viewerId));
  }
  if ('existing' in outcome) {
    // Another run under way: its progress, and whether this user may drive it.
    const { existing } = outcome;
    const viewer = { runnerId: viewerId, now: clock.now() };
    const next = mayDrive(existing, viewerId)
      ? 'Resume or cancel it before starting another.'
      : notYourRun(existing);
    const message = `A run is already under way in this spreadsheet (${existing.state}). ${next}`;
    return { plan: null, started: false, progress: { ...progressOf(existing, viewer), message } };
  }
  const { plan } = outcome;
  if (!('created' in outcome)) {
    const message = plan.refusal ?? 'Check the plan in the sidebar, then start the run.';
    return { plan, started: false, progress: idleProgress(message) };
  }
  const { created } = outcome;
  // A run of one batch's lookups is done in a short first slice; a longer one is driven by the sidebar, open now,
  // from Start's answer (no trigger: none is needed).
  return { plan, started: true, progress: openingSlice(platform, created, created.ownerId, plan.credits) };
}

/** Holding the document lock: the plan, unless a run is under way; `ready` when nothing more is asked of the user. */
function planUnderLock(platform: Platform, request: RunRequest): StartOutcome {
  const stored = loadJob(platform);
  if (stored && isActive(stored.state)) return { existing: stored };
  const planned = planFor(platform, request);
  const { plan } = planned;
  if (plan.refusal || (plan.needsChoice && !request.placement)) return { plan };
  // Start sends the price it showed: a plan whose price differs now comes back before anything is spent.
  const confirmed = request.confirmedCredits;
  if (confirmed === undefined ? plan.needsConfirm : plan.credits !== confirmed) return { plan };
  return { ready: planned };
}

/**
 * Holding the document lock again after the key check: the job and the prepared sheet, unless a run began meanwhile.
 * A watch (src/watch/) creates its runs here too, with `origin` 'watch' and its creator's address (a trigger's
 * execution may not get it from Apps Script).
 */
export function createUnderLock(
  platform: Platform,
  planned: PlannedRun,
  viewerId: string | null,
  origin?: Job['origin'],
  ownerName?: string,
): Extract<StartOutcome, { existing: Job } | { created: Job }> {
  const stored = loadJob(platform);
  if (stored && isActive(stored.state)) return { existing: stored };
  // The finished run this one replaces goes into the history first, with what its slices left to fold (a slice
  // killed at the service), and its cells into the add-on's blocks.
  if (stored) {
    const mine = storeOf(platform).fold(undefined, true).folded.byRun.get(stored.id);
    if (mine) addFolded(stored.counts, mine);
    recordRun(platform, stored);
    recordBlock(platform, frameOf(stored));
  }
  // The run belongs to whoever starts it: their id goes into the job, and only their executions drive it.
  const owner = { id: viewerId ?? platform.runner.ensureId(), name: ownerName || platform.runner.email() };
  const created = createJob(platform, planned, owner, origin);
  // The job's state is saved first: if it cannot be, the sheet is left untouched.
  saveJob(platform, created);
  try {
    prepareSheet(planned);
  } catch (error) {
    deleteJob(platform);
    throw error;
  }
  return { created, plan: planned.plan };
}

/** Inserts output columns where the plan says; plain-text format; the titles. */
function prepareSheet({ sheet, read, settings, plan }: PlannedRun): void {
  const { placement } = plan;
  const titles = outputHeaders(settings.extraFields);
  // Never overwrite the user's data: the plan inserts columns, or uses empty ones further right.
  if (placement.insertAfter !== null && placement.insertCount > 0)
    sheet.insertColumnsAfter(placement.insertAfter, placement.insertCount);
  // Service values are written as plain text so an address such as =HYPERLINK(...) can never become a formula.
  // The Catch-all column keeps real booleans.
  const rows = read.lastRow - read.firstRow + 1;
  sheet.formatAsText(textCells(read.firstRow, rows, placement.outputColumn, titles.length));
  if (read.headerRow !== null && settings.writeHeader)
    sheet.write(read.headerRow, placement.outputColumn, [titles]);
}

/** A row as the job reads it: the URL cell, then the output cells where the plan puts them (empty if inserted). */
function jobCells(planned: PlannedRun, row: unknown[]): unknown[] {
  const width = outputHeaders(planned.settings.extraFields).length;
  const { placement } = planned.plan;
  const offset = placement.outputColumn - planned.read.urlColumn;
  const cells: unknown[] = [row[0]];
  for (let index = 0; index < width; index++) {
    const inserted = placement.insertAfter !== null && placement.outputColumn + index > placement.insertAfter;
    cells.push(inserted && placement.kind !== 'right' ? '' : (row[offset + index] ?? ''));
  }
  return cells;
}

function createJob(
  platform: Platform,
  planned: PlannedRun,
  owner: { id: string; name: string },
  origin?: Job['origin'],
): Job {
  const { plan, read, sheet, settings } = planned;
  const dataRows = read.rows.map((row) => jobCells(planned, row));
  const scope = new RunScope({
    redo: plan.redo,
    recheck: plan.recheck,
    readsOutput: plan.placement.kind !== 'insert',
    newRowsOnly: plan.mode === 'new',
  });
  const { counts, hasDuplicates } = countSelection(dataRows, scope, platform.config().networkHosts);
  const titles = outputHeaders(settings.extraFields);
  const header = read.header ? jobCells(planned, read.header) : null;
  const owned = plan.placement.kind === 'insert' ? [] : (read.owned.get(plan.placement.outputColumn) ?? []);
  const now = platform.clock.now();
  const idle: Job = {
    id: timeId(now, 1e6),
    sheetId: sheet.id,
    sheetName: sheet.name(),
    urlColumn: read.urlColumn,
    firstRow: read.firstRow,
    lastRow: read.lastRow,
    headerRow: read.headerRow,
    outputColumn: plan.placement.outputColumn,
    extraFields: settings.extraFields,
    recheck: plan.recheck,
    cursor: read.firstRow,
    pass: 1,
    maxRows: sheet.maxRows(),
    maxColumns: sheet.maxColumns() + plan.placement.insertCount,
    topValue: cellHash(dataRows[0][CELL.url]),
    bottomValue: cellHash(dataRows[dataRows.length - 1][CELL.url]),
    headerTexts: header
      ? [header[CELL.url], ...(settings.writeHeader ? titles : header.slice(CELL.email))].map(cellHash)
      : null,
    hasDuplicates,
    owns: owned.map(([first, last]): [number, number] => [first, last]),
    state: 'idle',
    message: plan.note ?? 'Starting…',
    counts,
    startedAt: now,
    updatedAt: now,
    leaseUntil: 0,
    // The results the run leaves alone: its summary counts what it added beyond these.
    plan: {
      range: plan.range,
      rows: plan.rows,
      newProfiles: plan.newProfiles,
      knownProfiles: plan.knownProfiles,
      notProfiles: plan.notProfiles,
      blanks: plan.blanks,
      alreadyDone: plan.alreadyDone,
      credits: plan.credits,
      columns: plan.placement.columns,
      effect: plan.placement.effect,
      retry: plan.mode === 'retry',
      recheck: plan.recheck,
    },
    ownerId: owner.id,
    ownerName: owner.name,
    pace: { size: PACE_START },
  };
  if (plan.redo) idle.redo = plan.redo;
  if (origin) idle.origin = origin;
  return transition(idle, { type: 'start' }, now);
}

/** Refuses a missing key or a 401 from one free check (`ask`); any other answer lets the run start. Pure. */
export function checkKeyForRun(
  then: string,
  key: string | null,
  ask: (key: string) => KeyCheck | { config: string },
): { refusal?: string } {
  const advice = `so the run did not start and nothing in the sheet changed. Get a ${key ? 'valid ' : ''}key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.`;
  if (!key) return { refusal: `No API key is saved for you, ${advice}` };
  const check = ask(key);
  if (!('valid' in check) || check.valid) return {};
  return {
    refusal: redactKey(`The service rejected your API key, ${advice}${quoteService(check.message)}`, key),
  };
}
