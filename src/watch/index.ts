/**
 * The watch's entry points (src/main.ts exposes them): the sidebar's Watch tab (state, start, stop) and the
 * trigger runs. A watch belongs to the person who starts it: their key, their credits, their triggers. Every editor
 * sees who pays, and any editor may stop it.
 */
import { spreadsheetDay, systemClock, timeText } from '../adapters/clock';
import { askServiceAboutKey } from '../adapters/http';
import { withDocumentLock } from '../adapters/lock';
import { servicePorts } from '../adapters/ports';
import { runnerEmail, runnerId } from '../adapters/runner';
import { readScriptConfig } from '../adapters/scriptConfig';
import { readApiKey, readSettings } from '../adapters/settings';
import { activeRange } from '../adapters/spreadsheet';
import { createWatchTriggers, watchTriggersPresent } from '../adapters/triggers';
import type { PlacementKind, WatchStart, WatchView } from '../api';
import { type ColumnRead, columnName } from '../bulk/placement';
import { checkKeyForRun } from '../bulk/runKeyCheck';
import { planRun } from '../bulk/runPlan';
import { TriggersRefusedError } from '../platform/errors';
import { readWatched } from './plan';
import { runWatch, stopWatch, type WatchRunEnd } from './run';
import { loadWatch, saveWatch } from './store';
import { parseLimit, type Watch, watchedColumn, watchView } from './watch';

/** What the sidebar shows of this spreadsheet's watch to the viewer. */
export function getWatchState(): WatchView {
  const watch = loadWatch();
  const viewer = { runnerId: runnerId(), hasKey: readApiKey() !== null };
  const mine = watch?.state === 'watching' && viewer.runnerId === watch.creatorId;
  // Only the creator can see their triggers: a watch whose triggers were removed outside the add-on shows stopped.
  const missing = mine && watch ? !watchTriggersPresent(watch.triggerIds) : false;
  const lastChecked = watch?.lastCheckedAt ? timeText(watch.lastCheckedAt) : undefined;
  return watchView(watch, viewer, { lastChecked }, missing);
}

const TEST_DEPLOYMENT = `The watch needs triggers, and Google runs none in a test deployment of an add-on: install the add-on from its listing (a private or unlisted one will do) to watch a column. Until then, select new rows and choose Find e-mails.`;

/**
 * Starts watching the selection's column with a daily limit: only a person with a saved key (checked, free), and
 * one watch per spreadsheet. Asks for the placement when the columns beside the URLs hold data.
 */
export function startWatch(raw: unknown): WatchStart {
  const request = (raw && typeof raw === 'object' ? raw : {}) as { limit?: unknown; placement?: unknown };
  const refuse = (message: string, extra: Partial<WatchStart> = {}): WatchStart => ({
    started: false,
    view: getWatchState(),
    message,
    ...extra,
  });
  const limit = parseLimit(request.limit);
  if (typeof limit !== 'number') return refuse(limit.error);
  const current = loadWatch();
  if (current?.state === 'watching') {
    return refuse(
      `${watchedColumn(current)} is already watched, paid by ${current.creatorName || 'another editor'}: stop that watch in this tab first.`,
    );
  }
  const selection = activeRange();
  if (!selection)
    return refuse(
      'Select the column of profile URLs to watch (its header or its first cell), then press Start again.',
    );
  const sheet = selection.getSheet();
  const topRow = selection.getRow();
  const urlColumn = selection.getColumn();
  const settings = readSettings();
  const read = readWatched({ topRow, urlColumn }, sheet, settings.extraFields);
  const column = watchedColumn({ sheetName: sheet.getName(), urlColumn });
  const placement = typeof request.placement === 'string' ? (request.placement as PlacementKind) : undefined;
  const plan = read ? planOf(read, settings.extraFields, placement) : null;
  if (plan?.refusal) return refuse(plan.refusal, { column });
  if (plan?.needsChoice && !placement) {
    return refuse(
      `Choose where the watch writes its results (the columns beside ${columnName(urlColumn)} hold data), then press Start again.`,
      {
        column,
        placements: plan.placements,
        waitingRows: plan.lookupRows,
      },
    );
  }
  // The starter's key pays: checked now (free), so a refused key never starts a watch.
  const keyCheck = checkKeyForRun(
    'press Start in the Watch tab again',
    systemClock.now,
    readApiKey(),
    askServiceAboutKey,
  );
  if (keyCheck.refusal) return refuse(keyCheck.refusal, { column });
  const creatorId = runnerId(true) as string;
  let triggerIds: string[];
  try {
    triggerIds = createWatchTriggers();
  } catch (error) {
    if (error instanceof TriggersRefusedError)
      return refuse(`${TEST_DEPLOYMENT} (Google said: ${error.reason})`, { column });
    throw error;
  }
  const now = systemClock.now();
  const watch: Watch = {
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    urlColumn,
    topRow,
    headerText: read?.header ? String(read.header[0] ?? '') : headerTextAt(sheet, topRow, urlColumn),
    placement: plan?.placement.kind ?? placement,
    limit,
    creatorId,
    creatorName: runnerEmail(),
    startedAt: now,
    state: 'watching',
    day: spreadsheetDay(now),
    usedToday: 0,
    jobCredits: 0,
    message: 'Started. New rows are looked up when they arrive.',
    triggerIds,
  };
  const saved = withDocumentLock(() => {
    const stored = loadWatch();
    if (stored?.state === 'watching') return false;
    saveWatch(watch);
    return true;
  });
  if (!saved) return refuse('Another editor started a watch a moment ago: see it in this tab.');
  const waiting = plan ? plan.lookupRows + plan.notProfiles : 0;
  return {
    started: true,
    view: getWatchState(),
    message:
      waiting > 0
        ? `Watching. ${waiting === 1 ? '1 row of the column has no result yet: it is' : `${waiting} rows of the column have no result yet: they are`} looked up at the first change or opening, within the limit.`
        : 'Watching.',
    column,
  };
}

/** The plan of the column as a run would price it (the placement offered and chosen). */
function planOf(read: ColumnRead, extraFields: boolean, chosen?: PlacementKind) {
  const store = servicePorts().store;
  return planRun(
    read,
    {
      mode: 'all',
      includeUnprocessable: false,
      recheck: false,
      extraFields,
      startAtOnceUnder: Number.POSITIVE_INFINITY,
      hosts: readScriptConfig().networkHosts,
      chosen,
    },
    (keys) => store.getMany(keys),
  );
}

/** The header cell of an empty column (the first row when it reads as a header): to notice the column moved later. */
function headerTextAt(sheet: GoogleAppsScript.Spreadsheet.Sheet, topRow: number, column: number): string {
  const value = sheet.getRange(topRow, column).getValue();
  return typeof value === 'string' && !/^https?:/i.test(value.trim()) ? value : '';
}

/** Any editor stops the watch (one click); logged with who stopped it. */
export function stopWatchFromSidebar(): WatchView {
  const who = runnerEmail() || 'an editor';
  stopWatch('stopped from the Watch tab', who);
  return getWatchState();
}

/** Changes that add no row (apps-script/guides/triggers/events, changeType): a formatting or a removal. */
const CHANGES_WITHOUT_ROWS = ['FORMAT', 'REMOVE_ROW', 'REMOVE_COLUMN', 'REMOVE_GRID'];

/**
 * A trigger run: open, change or form submit; each looks at the whole column (what is new has no result). A change
 * that adds no row is not looked at: every change counts against the creator's daily trigger runtime.
 */
export function onWatchEvent(event?: unknown): WatchRunEnd | 'ignored' {
  const changeType = (event as { changeType?: unknown } | undefined)?.changeType;
  if (typeof changeType === 'string' && CHANGES_WITHOUT_ROWS.includes(changeType)) return 'ignored';
  return runWatch();
}
