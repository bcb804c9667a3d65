/**
 * The watch's entry points (src/main.ts exposes them): the sidebar's Watch tab (state, start, stop) and the
 * trigger runs. A watch belongs to the person who starts it: their key, their credits, their triggers. Every editor
 * sees who pays, and any editor may stop it.
 */
import type { PlacementKind, Settings, WatchStart, WatchView } from '../api';
import { blocksOn, type ColumnRead, checkKeyForRun, watchPlanner } from '../bulk/forWatch';
import { columnLetters } from '../core/a1';
import type { SheetPort } from '../core/sheet';
import { TriggersRefusedError } from '../platform/errors';
import type { Platform } from '../platform/platform';
import { readWatched } from './plan';
import { runWatch, stopWatch, type WatchRunEnd } from './run';
import { loadWatch, saveWatch } from './store';
import { onDay, parseLimit, type Watch, watchedColumn, watchView } from './watch';

/** What the sidebar shows of this spreadsheet's watch to the viewer. */
export function getWatchState(platform: Platform): WatchView {
  // Shown on today's count: a watch not run yet today has used nothing today.
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

/** What a start asks for: the daily limit typed, and the placement chosen when the columns beside hold data. */
interface StartRequest {
  limit?: unknown;
  placement?: unknown;
}

/** A start that passed every check: the watch to save (its triggers not made yet) and what the person is told. */
interface CheckedStart {
  watch: Omit<Watch, 'triggerIds'>;
  column: string;
  /** Rows of the column with a profile URL and no result yet: the first trigger run looks them up. */
  waiting: number;
}

type Refusal = { refusal: string } & Partial<WatchStart>;

/**
 * Starts watching the selection's column with a daily limit: only a person with a saved key (checked, free), and
 * one watch per spreadsheet. Asks for the placement when the columns beside the URLs hold data.
 */
export function startWatch(platform: Platform, raw: unknown): WatchStart {
  const request: StartRequest = raw && typeof raw === 'object' ? raw : {};
  const refuse = ({ refusal, ...extra }: Refusal): WatchStart => ({
    started: false,
    view: getWatchState(platform),
    message: refusal,
    ...extra,
  });
  const checked = checkStart(platform, request);
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

/** The checks of a start, in the order a person fixes them: the limit, no other watch, the column, the key. */
function checkStart(platform: Platform, request: StartRequest): CheckedStart | Refusal {
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
  const plan = read ? planOf(platform, read, settings, placement) : null;
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
  const keyCheck = checkKeyForRun(
    'press Start in the Watch tab again',
    platform.clock.now,
    platform.settings.apiKey(),
    platform.askServiceAboutKey,
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
  // Cells that are not profile URLs are marked free at the first run: nothing of theirs waits for a lookup.
  return { watch, column, waiting: plan ? plan.lookupRows : 0 };
}

/**
 * Makes the creator's triggers, then saves the watch with their ids under the document lock. Whatever keeps the
 * watch from being saved (another editor's watch saved first, the lock busy, a throw), the triggers made here are
 * deleted: no trigger runs without its watch. Throws TriggersRefusedError when none could be made.
 */
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

function isPlacementKind(value: unknown): value is PlacementKind {
  return PLACEMENT_KIND_NAMES.has(value);
}

/** The plan of the column as the watch's runs will price it (the placement offered and chosen). */
function planOf(platform: Platform, read: ColumnRead, settings: Settings, chosen?: PlacementKind) {
  return watchPlanner(platform, settings, chosen)(read);
}

/** The header cell of an empty column (the first row when it reads as a header): to notice the column moved later. */
function headerTextAt(sheet: SheetPort, topRow: number, column: number): string {
  const [[value]] = sheet.values({ row: topRow, column, rows: 1, columns: 1 });
  return typeof value === 'string' && !/^https?:/i.test(value.trim()) ? value : '';
}

/** Any editor stops the watch (one click); logged with who stopped it. */
export function stopWatchFromSidebar(platform: Platform): WatchView {
  const who = platform.runner.email() || 'an editor';
  stopWatch(platform, 'stopped from the Watch tab', who);
  return getWatchState(platform);
}

/** Changes that add no row (apps-script/guides/triggers/events, changeType): a formatting or a removal. */
const CHANGES_WITHOUT_ROWS = ['FORMAT', 'REMOVE_ROW', 'REMOVE_COLUMN', 'REMOVE_GRID'];

/**
 * A trigger run: open, change or form submit; each looks at the whole column (what is new has no result). A change
 * that adds no row is not looked at: every change counts against the creator's daily trigger runtime.
 */
export function onWatchEvent(platform: Platform, event?: unknown): WatchRunEnd | 'ignored' {
  const changeType = (event as { changeType?: unknown } | undefined)?.changeType;
  if (typeof changeType === 'string' && CHANGES_WITHOUT_ROWS.includes(changeType)) return 'ignored';
  return runWatch(platform);
}
