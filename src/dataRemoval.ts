/** Removal keeps what =FINDEMAIL spent today: else any editor could give formulas another day's limit. */
import type { DataRemovalPlan, DataRemovalResult } from './api';
import { isActive } from './bulk/jobMachine';
import { loadJob } from './bulk/jobStore';
import { WAITING_AFTER_MS } from './core/limits';
import type { Platform } from './core/ports';
import {
  CREDITS_SHEET,
  FORMULA_SPEND_PROPERTY,
  HALT_KEY,
  JOB_PROPERTY,
  RESULTS_SHEET,
  WATCH_PROPERTY,
} from './core/propertyNames';
import { numberText } from './core/text';
import { CREDITS_FIRST_ROW } from './store/credits';
import { mayBeAtService } from './store/records';
import { storeOf } from './store/store';
import { parseWatch } from './watch/store';
import { payerOf, type Watch, watchedColumn } from './watch/watch';

const ADDON_PREFIX = 'pef.';
const ADDON_SHEETS = [RESULTS_SHEET, CREDITS_SHEET] as const;

/** From one read of the document properties: `addonKeys` to remove, and the watch (a stopped one is only a record). */
function holdings(platform: Platform) {
  const properties = platform.documentProperties().getProperties();
  const addonKeys = Object.keys(properties).filter(
    (key) => key.startsWith(ADDON_PREFIX) && key !== FORMULA_SPEND_PROPERTY,
  );
  const stored = parseWatch(properties[WATCH_PROPERTY]);
  const watch = stored?.state === 'watching' ? stored : null;
  return { properties, addonKeys, sheets: platform.addonSheets.present(ADDON_SHEETS), watch };
}

type Holdings = ReturnType<typeof holdings>;

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
    // A paused or cancelled run's slice still at work (its last batch, a Retry-After) writes results and charges.
    const minutes = Math.max(1, Math.ceil((job.leaseUntil - now) / 60_000));
    return `The last run (${job.state}) is still finishing the lookups it had sent: their answers and charges are being written. Press Remove again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}, once the Progress tab no longer says the final count follows.`;
  }
  if (mayBeAtService(properties, now)) {
    return '=FINDEMAIL formulas are looking profiles up in this spreadsheet right now. Press Remove again in a minute.';
  }
  return '';
}

const mine = (platform: Platform, watch: Watch) => watch.creatorId === platform.runner.id();

/** A watching watch's record is said apart. */
function storedValues(held: Holdings): number {
  return held.addonKeys.filter((key) => !held.watch || key !== WATCH_PROPERTY).length;
}

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
  const { watch } = held;
  if (watch) {
    const who = payerOf(watch);
    items.push(
      mine(platform, watch)
        ? `Your watch of ${watchedColumn(watch)} and its triggers: new rows are no longer looked up.`
        : `The watch of ${watchedColumn(watch)}, paid by ${who}: new rows are no longer looked up. Apps Script lets only ${who} delete their triggers; they delete themselves the next time they run.`,
    );
  }
  const others = storedValues(held);
  if (others > 0)
    items.push(
      `${numberText(others, 'stored value')} in the spreadsheet's document properties, such as the last run and its history and results formulas paid for that wait to be saved. What =FINDEMAIL spent today stays, so the daily limit of formulas still counts it.`,
    );
  return {
    items,
    refusal: refusalOf(platform, held.properties),
    creditsLog: held.sheets.includes(CREDITS_SHEET) && platform.creditsLog.lastRow() > CREDITS_FIRST_ROW - 1,
  };
}

const KEPT =
  "Your cells, exported sheets, API key and settings are kept, and so is what =FINDEMAIL spent today (the Settings tab's daily limit still counts it). A profile looked up again costs a credit again.";

export function removeSpreadsheetData(platform: Platform): DataRemovalResult {
  const done = platform.lock.with(() => {
    const before = holdings(platform);
    const refusal = refusalOf(platform, before.properties);
    if (refusal) return refusal;
    // Batches whose sender ended are settled first: their charges reach the credits log.
    storeOf(platform).fold(before.properties, true);
    const held = holdings(platform);
    const removedSheets = platform.addonSheets.remove(ADDON_SHEETS);
    if (held.addonKeys.length > 0) {
      const removed = new Set(held.addonKeys);
      const kept = Object.fromEntries(Object.entries(held.properties).filter(([key]) => !removed.has(key)));
      // One call for every name (a spreadsheet may hold 2,000 results formulas paid for).
      platform.documentProperties().setProperties(kept, true);
    }
    return { held, removedSheets };
  });
  if (typeof done === 'string') return { removed: false, message: done, triggersLeftWith: '' };
  platform.documentCache()?.remove(HALT_KEY);
  const triggersDeleted = platform.triggers.deleteMine();
  const { held, removedSheets } = done;
  const parts: string[] = [];
  if (removedSheets.length > 0)
    parts.push(
      `the hidden ${removedSheets.length === 1 ? 'sheet' : 'sheets'} ${removedSheets.join(' and ')}`,
    );
  const { watch } = held;
  if (watch) parts.push(`the watch of ${watchedColumn(watch)}`);
  if (storedValues(held) > 0) parts.push(`${numberText(storedValues(held), 'stored value')} of the add-on`);
  if (triggersDeleted > 0)
    parts.push(`your ${triggersDeleted === 1 ? 'trigger' : `${triggersDeleted} triggers`} of the watch`);
  const theirs = watch && !mine(platform, watch) ? payerOf(watch) : '';
  const removed =
    parts.length > 0
      ? `Removed from this spreadsheet: ${parts.join(', ')}.`
      : 'This spreadsheet held no data of the add-on.';
  const triggers = theirs
    ? ` The watch's triggers belong to ${theirs}: Apps Script lets only them delete their triggers. They delete themselves the next time they run (the next change or opening of this spreadsheet), or ${theirs} can delete them in script.google.com › Triggers.`
    : '';
  return { removed: true, message: `${removed}${triggers} ${KEPT}`, triggersLeftWith: theirs };
}
