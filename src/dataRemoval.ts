/**
 * Settings › Remove this spreadsheet's add-on data: the hidden sheets, the document properties of the add-on (the
 * `pef.` names, nothing else), the document cache entries it can name, and the current user's watch triggers. The
 * person's cells, exported sheets, API key and settings stay, and so do the records that guard the owner's credits:
 * what =FINDEMAIL spent today (else any editor could give formulas another day's limit) and the answers lost lately
 * (else a profile whose answers were lost, maybe charged, is sent again). Refused while a run or a formula is sending.
 */
import type { DataRemovalPlan, DataRemovalResult } from './api';
import { isActive } from './bulk/jobMachine';
import { loadJob } from './bulk/jobStore';
import { columnLetters } from './core/a1';
import { WAITING_AFTER_MS } from './core/limits';
import {
  ACCOUNT_CHECK_KEY,
  ACCOUNT_OK_KEY,
  CREDITS_SHEET,
  FORMULA_GIVE_BACK_PREFIX,
  FORMULA_SPEND_PROPERTY,
  FORMULA_WRITES_REFUSED_KEY,
  HALT_KEY,
  JOB_PROPERTY,
  PACE_PREFIX,
  PACE_SCOPES,
  RESULTS_SHEET,
  WATCH_PROPERTY,
} from './core/propertyNames';
import type { Platform } from './platform/platform';
import { CREDITS_FIRST_ROW } from './store/credits';
import { mayBeAtService } from './store/sendingRecords';
import { parseWatch } from './watch/store';
import type { Watch } from './watch/watch';

/** The add-on's names in document properties and the document cache. */
const ADDON_PREFIX = 'pef.';
const ADDON_SHEETS = [RESULTS_SHEET, CREDITS_SHEET] as const;
/** The add-on's names the removal keeps: today's spending of formulas (it guards credits). */
const guardsCredits = (key: string) =>
  key === FORMULA_SPEND_PROPERTY || key.startsWith(FORMULA_GIVE_BACK_PREFIX);
/**
 * The cache entries with a fixed name. Claims (`pef.claim.<hash>`) cannot be listed (CacheService has no key
 * listing): they end by themselves within six minutes, and none is held while nothing is sending.
 */
const CACHE_KEYS = [
  HALT_KEY,
  FORMULA_WRITES_REFUSED_KEY,
  ACCOUNT_CHECK_KEY,
  ACCOUNT_OK_KEY,
  ...Object.values(PACE_SCOPES).map((scope) => PACE_PREFIX + scope),
];

/** What the spreadsheet holds of the add-on, from one read of its document properties (`addonKeys`: those to remove). */
interface Holdings {
  properties: Record<string, string>;
  addonKeys: string[];
  sheets: string[];
  watch: Watch | null;
}

function holdings(platform: Platform): Holdings {
  const properties = platform.documentProperties().getProperties();
  const addonKeys = Object.keys(properties).filter(
    (key) => key.startsWith(ADDON_PREFIX) && !guardsCredits(key),
  );
  const watch = parseWatch(properties[WATCH_PROPERTY]);
  return { properties, addonKeys, sheets: platform.addonSheets.present(ADDON_SHEETS), watch };
}

/** Why nothing may be removed now (a run at work, a formula's batch on its way), or ''. */
function refusalOf(platform: Platform, properties: Record<string, string>): string {
  const now = platform.clock.now();
  const job = properties[JOB_PROPERTY] ? loadJob(platform) : null;
  const atWork = job !== null && job.leaseUntil > now;
  if (job && isActive(job.state)) {
    const driven = job.state === 'running' && now - job.updatedAt < WAITING_AFTER_MS;
    if (atWork || driven) {
      const starter = job.ownerName || 'another editor';
      const pause =
        job.ownerId === platform.runner.id()
          ? 'or pause it in the Progress tab'
          : `or ask ${starter} to pause it in their Progress tab`;
      return `A run is under way in this spreadsheet (started by ${starter}). Wait until it ends, ${pause}, then press Remove again.`;
    }
  }
  if (job && atWork) {
    // A slice of a paused or cancelled run still holds the run (its last batch, or a wait for the service's
    // Retry-After): it writes the results and the credits log when it ends.
    const minutes = Math.max(1, Math.ceil((job.leaseUntil - now) / 60_000));
    return `The last run (${job.state}) is still finishing the lookups it had sent: their answers and charges are being written. Press Remove again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}, once the Progress tab no longer says the final count follows.`;
  }
  if (mayBeAtService(properties, now)) {
    return '=FINDEMAIL formulas are looking profiles up in this spreadsheet right now. Press Remove again in a minute.';
  }
  return '';
}

function watchOwnedBy(platform: Platform, watch: Watch | null): 'mine' | 'theirs' | 'none' {
  if (!watch) return 'none';
  return watch.creatorId === platform.runner.id() ? 'mine' : 'theirs';
}

const payerOf = (watch: Watch) => watch.creatorName || 'the editor who started it';

function columnOf(watch: Watch): string {
  const letters = columnLetters(watch.urlColumn);
  return `${watch.sheetName}!${letters}:${letters}`;
}

const valuesText = (n: number) => `${n.toLocaleString('en-US')} stored ${n === 1 ? 'value' : 'values'}`;

/** A watch that still looks rows up is named on its own; a stopped one is only a record among the stored values. */
const watching = (held: Holdings): Watch | null => (held.watch?.state === 'watching' ? held.watch : null);

/** The stored values the question and the result count alike: the add-on's names, the watch named apart left out. */
function storedValues(held: Holdings): number {
  const apart = watching(held) ? WATCH_PROPERTY : undefined;
  return held.addonKeys.filter((key) => key !== apart).length;
}

/** What removing would take away, for the sidebar to ask first. Nothing changes. */
export function planDataRemoval(platform: Platform): DataRemovalPlan {
  const held = holdings(platform);
  const items: string[] = [];
  if (held.sheets.includes(RESULTS_SHEET))
    items.push(
      `The hidden sheet ${RESULTS_SHEET}: every result paid for here. A profile looked up again afterwards costs a credit again.`,
    );
  if (held.sheets.includes(CREDITS_SHEET))
    items.push(
      `The hidden sheet ${CREDITS_SHEET}: the credits log. Export it first (below, or in the Credits tab) to keep a copy.`,
    );
  const watch = watching(held);
  if (watch) {
    const who = payerOf(watch);
    items.push(
      watchOwnedBy(platform, watch) === 'mine'
        ? `Your watch of ${columnOf(watch)} and its triggers: new rows are no longer looked up.`
        : `The watch of ${columnOf(watch)}, paid by ${who}: new rows are no longer looked up. Apps Script lets only ${who} delete their triggers; they delete themselves the next time they run.`,
    );
  }
  const others = storedValues(held);
  if (others > 0)
    items.push(
      `${valuesText(others)} in the spreadsheet's document properties, such as the last run and its history and results formulas paid for that wait to be saved. What =FINDEMAIL spent today stays, so the daily limit of formulas still counts it.`,
    );
  return {
    items,
    refusal: refusalOf(platform, held.properties),
    creditsLog: held.sheets.includes(CREDITS_SHEET) && platform.creditsLog.lastRow() > CREDITS_FIRST_ROW - 1,
  };
}

const KEPT =
  "Your cells, exported sheets, API key and settings are kept, and so is what =FINDEMAIL spent today (the Settings tab's daily limit still counts it). A profile looked up again costs a credit again.";

/**
 * Removes the add-on's data from this spreadsheet, holding the document lock (no run or formula stores meanwhile).
 * Asked first in the sidebar; refused while a run or a formula is sending.
 */
export function removeSpreadsheetData(platform: Platform): DataRemovalResult {
  const done = platform.lock.with(() => {
    const before = holdings(platform);
    const refusal = refusalOf(platform, before.properties);
    if (refusal) return { refusal, held: before };
    // Batches whose sender ended first are settled before their records go: their charges reach the credits log.
    platform.resultStore().fold(before.properties);
    const held = holdings(platform);
    const removedSheets = platform.addonSheets.remove(ADDON_SHEETS);
    if (held.addonKeys.length > 0) {
      const removed = new Set(held.addonKeys);
      const kept = Object.fromEntries(Object.entries(held.properties).filter(([key]) => !removed.has(key)));
      // One call for every name (a spreadsheet may hold 2,000 results formulas paid for): the others are kept.
      platform.documentProperties().setProperties(kept, true);
    }
    return { refusal: '', held, removedSheets };
  });
  if (done.refusal) return { removed: false, message: done.refusal, triggersLeftWith: '' };
  platform.documentCache()?.removeAll(CACHE_KEYS);
  const triggersDeleted = platform.triggers.deleteMine();
  const { held } = done;
  const parts: string[] = [];
  if (done.removedSheets && done.removedSheets.length > 0)
    parts.push(
      `the hidden ${done.removedSheets.length === 1 ? 'sheet' : 'sheets'} ${done.removedSheets.join(' and ')}`,
    );
  const watch = watching(held);
  if (watch) parts.push(`the watch of ${columnOf(watch)}`);
  if (storedValues(held) > 0) parts.push(`${valuesText(storedValues(held))} of the add-on`);
  if (triggersDeleted > 0)
    parts.push(`your ${triggersDeleted === 1 ? 'trigger' : `${triggersDeleted} triggers`} of the watch`);
  const theirs = watch && watchOwnedBy(platform, watch) === 'theirs' ? payerOf(watch) : '';
  const removed =
    parts.length > 0
      ? `Removed from this spreadsheet: ${parts.join(', ')}.`
      : 'This spreadsheet held no data of the add-on.';
  const triggers = theirs
    ? ` The watch's triggers belong to ${theirs}: Apps Script lets only them delete their triggers. They delete themselves the next time they run (the next change or opening of this spreadsheet), or ${theirs} can delete them in script.google.com › Triggers.`
    : '';
  return { removed: true, message: `${removed}${triggers} ${KEPT}`, triggersLeftWith: theirs };
}
