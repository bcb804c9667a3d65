/** The watch's entry points: the sidebar's Watch tab and the trigger runs. */
import type { PlacementKind, WatchStart, WatchView } from '../api';
import { blocksOn, checkKeyForRun, watchPlanner } from '../bulk/forWatch';
import { columnLetters } from '../core/a1';
import type { Platform } from '../core/ports';
import { TriggersRefusedError } from '../core/ports';
import type { SheetPort } from '../core/sheet';
import { askAboutKey } from '../lookup/keyCheck';
import { readWatched } from './plan';
import { runWatch, stopWatch, type WatchRunEnd } from './run';
import { loadWatch, saveWatch } from './store';
import { onDay, parseLimit, type Watch, watchedColumn, watchView } from './watch';

export function getWatchState(platform: Platform): WatchView {
  const stored = loadWatch(platform);
  const watch = stored && onDay(stored, platform.clock.day(platform.clock.now()));
  const viewer = { runnerId: platform.runner.id(), hasKey: platform.settings.apiKey() !== null };
  const mine = watch?.state === 'watching' && viewer.runnerId === watch.creatorId;
  // Only the creator can see their triggers: a watch whose triggers were removed outside the add-on shows stopped.
  const missing = mine && watch ? !platform.triggers.present(watch.triggerIds) : false;
  const lastChecked = watch?.lastCheckedAt ? platform.clock.timeText(watch.lastCheckedAt) : undefined;
  return watchView(watch, viewer, { lastChecked }, missing);
}

const TEST_DEPLOYMENT = `The watch needs triggers, and Google runs none in a test deployment of an add-on: install the add-on from its listing (a private or unlisted one will do) to watch a column. Until then, select new rows and choose Find e-mails.`;

interface CheckedStart {
  watch: Omit<Watch, 'triggerIds'>;
  column: string;
  /** Rows with a profile URL and no result yet: the first trigger run looks them up. */
  waiting: number;
}

type Refusal = { refusal: string } & Partial<WatchStart>;

export function startWatch(platform: Platform, raw: unknown): WatchStart {
  const refuse = ({ refusal, ...extra }: Refusal): WatchStart => ({
    started: false,
    view: getWatchState(platform),
    message: refusal,
    ...extra,
  });
  const checked = checkStart(platform, raw && typeof raw === 'object' ? raw : {});
  if ('refusal' in checked) return refuse(checked);
  const { column, waiting } = checked;
  let saved: boolean;
  try {
    saved = saveWithTriggers(platform, checked.watch);
  } catch (error) {
    if (error instanceof TriggersRefusedError)
      return refuse({ refusal: `${TEST_DEPLOYMENT} (Google said: ${error.reason})`, column });
    throw error;
  }
  if (!saved) return refuse({ refusal: 'Another editor started a watch a moment ago: see it in this tab.' });
  return {
    started: true,
    view: getWatchState(platform),
    message:
      waiting > 0
        ? `Watching. ${waiting === 1 ? '1 row of the column has no result yet: it is' : `${waiting} rows of the column have no result yet: they are`} looked up at the first change or opening, within the limit.`
        : 'Watching.',
    column,
  };
}

/** In the order a person fixes them. */
function checkStart(
  platform: Platform,
  request: { limit?: unknown; placement?: unknown },
): CheckedStart | Refusal {
  const limit = parseLimit(request.limit);
  if (typeof limit !== 'number') return { refusal: limit.error };
  const current = loadWatch(platform);
  if (current?.state === 'watching') {
    return {
      refusal: `${watchedColumn(current)} is already watched, paid by ${current.creatorName || 'another editor'}: stop that watch in this tab first.`,
    };
  }
  const selection = platform.spreadsheet().selection();
  if (!selection)
    return {
      refusal:
        'Select the column of profile URLs to watch (its header or its first cell), then press Start again.',
    };
  const { sheet } = selection;
  const { row: topRow, column: urlColumn } = selection.block;
  const settings = platform.settings.read();
  const read = readWatched({ topRow, urlColumn }, sheet, settings.extraFields, blocksOn(platform, sheet));
  const sheetName = sheet.name();
  const column = watchedColumn({ sheetName, urlColumn });
  const placement = isPlacementKind(request.placement) ? request.placement : undefined;
  const plan = read ? watchPlanner(platform, settings, placement)(read) : null;
  if (plan?.refusal) return { refusal: plan.refusal, column };
  if (plan?.needsChoice && !placement) {
    return {
      refusal: `Choose where the watch writes its results (the columns beside ${columnLetters(urlColumn)} hold data), then press Start again.`,
      column,
      placements: plan.placements,
      waitingRows: plan.lookupRows,
    };
  }
  // The starter's key pays: checked now (free), so a refused key never starts a watch.
  const keyCheck = checkKeyForRun('press Start in the Watch tab again', platform.settings.apiKey(), (key) =>
    askAboutKey(platform, key),
  );
  if (keyCheck.refusal) return { refusal: keyCheck.refusal, column };
  const now = platform.clock.now();
  const watch: CheckedStart['watch'] = {
    sheetId: sheet.id,
    sheetName,
    urlColumn,
    topRow,
    headerText: read?.header ? String(read.header[0] ?? '') : headerTextAt(sheet, topRow, urlColumn),
    placement: plan?.placement.kind ?? placement,
    limit,
    creatorId: platform.runner.ensureId(),
    creatorName: platform.runner.email(),
    startedAt: now,
    state: 'watching',
    day: platform.clock.day(now),
    usedToday: 0,
    jobCredits: 0,
    message: 'Started. New rows are looked up when they arrive.',
  };
  return { watch, column, waiting: plan ? plan.lookupRows : 0 };
}

/** A watch not saved deletes its triggers: no trigger without a watch. */
function saveWithTriggers(platform: Platform, watch: CheckedStart['watch']): boolean {
  const triggerIds = platform.triggers.create();
  let saved = false;
  try {
    saved = platform.lock.with(() => {
      if (loadWatch(platform)?.state === 'watching') return false;
      saveWatch(platform, { ...watch, triggerIds });
      return true;
    });
  } finally {
    if (!saved) platform.triggers.delete(triggerIds);
  }
  return saved;
}

const PLACEMENT_KINDS: Record<PlacementKind, true> = { reuse: true, insert: true, right: true, extend: true };
const PLACEMENT_KIND_NAMES: ReadonlySet<unknown> = new Set(Object.keys(PLACEMENT_KINDS));
const isPlacementKind = (value: unknown): value is PlacementKind => PLACEMENT_KIND_NAMES.has(value);

/** An empty column's header (the first row when it reads as one): to notice the column moved later. */
function headerTextAt(sheet: SheetPort, topRow: number, column: number): string {
  const [[value]] = sheet.values({ row: topRow, column, rows: 1, columns: 1 });
  return typeof value === 'string' && !/^https?:/i.test(value.trim()) ? value : '';
}

export function stopWatchFromSidebar(platform: Platform): WatchView {
  stopWatch(platform, 'stopped from the Watch tab', platform.runner.email() || 'an editor');
  return getWatchState(platform);
}

/** Changes that add no row (apps-script/guides/triggers/events, changeType): a formatting or a removal. */
const CHANGES_WITHOUT_ROWS = ['FORMAT', 'REMOVE_ROW', 'REMOVE_COLUMN', 'REMOVE_GRID'];

/** A change adding no row is ignored (daily trigger runtime). */
export function onWatchEvent(platform: Platform, event?: unknown): WatchRunEnd | 'ignored' {
  const changeType = (event as { changeType?: unknown } | undefined)?.changeType;
  if (typeof changeType === 'string' && CHANGES_WITHOUT_ROWS.includes(changeType)) return 'ignored';
  return runWatch(platform);
}
