/**
 * ScriptApp: the installable triggers of a watch (src/watch/). An add-on may hold one trigger of each type per user
 * per document (workspace/add-ons/concepts/editor-triggers); each runs as the person who created it and only they
 * can see it (apps-script/guides/triggers/installable). Creating them needs the script.scriptapp scope.
 *
 * No time-driven trigger: it runs with no active spreadsheet (reported), and opening the spreadsheet by id needs the
 * full `spreadsheets` scope, which the add-on does not ask for (it keeps `spreadsheets.currentonly`).
 */

import { TriggersRefusedError } from '../platform/errors';

/** The watch's handlers (src/main.ts) by the event that runs them. */
export const WATCH_HANDLERS = {
  open: 'onWatchOpen',
  change: 'onWatchChange',
  formSubmit: 'onWatchFormSubmit',
} as const;

const HANDLER_NAMES: readonly string[] = Object.values(WATCH_HANDLERS);

/** This user's watch triggers in this spreadsheet (theirs only: no one sees another person's). */
function myWatchTriggers(): GoogleAppsScript.Script.Trigger[] {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  return ScriptApp.getUserTriggers(ss).filter((trigger) =>
    HANDLER_NAMES.includes(trigger.getHandlerFunction()),
  );
}

/**
 * Creates the open, change and form-submit triggers for this spreadsheet as the current user (any left from an
 * earlier watch of theirs deleted first); returns their ids. Throws TriggersRefusedError when Apps Script refuses.
 */
export function createWatchTriggers(): string[] {
  deleteMyWatchTriggers();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const ids: string[] = [];
  try {
    ids.push(ScriptApp.newTrigger(WATCH_HANDLERS.open).forSpreadsheet(ss).onOpen().create().getUniqueId());
    ids.push(
      ScriptApp.newTrigger(WATCH_HANDLERS.change).forSpreadsheet(ss).onChange().create().getUniqueId(),
    );
    ids.push(
      ScriptApp.newTrigger(WATCH_HANDLERS.formSubmit)
        .forSpreadsheet(ss)
        .onFormSubmit()
        .create()
        .getUniqueId(),
    );
  } catch (error) {
    // All or none: a watch with some of its triggers would miss rows without saying so.
    deleteMyWatchTriggers();
    throw new TriggersRefusedError(error instanceof Error ? error.message : String(error));
  }
  return ids;
}

/** Deletes the current user's watch triggers in this spreadsheet; how many there were. */
export function deleteMyWatchTriggers(): number {
  const mine = myWatchTriggers();
  for (const trigger of mine) ScriptApp.deleteTrigger(trigger);
  return mine.length;
}

/** Deletes the current user's watch triggers of `ids` that still exist (others of theirs stay). */
export function deleteWatchTriggers(ids: readonly string[]): void {
  for (const trigger of myWatchTriggers())
    if (ids.includes(trigger.getUniqueId())) ScriptApp.deleteTrigger(trigger);
}

/** Whether the current user's watch triggers of `ids` all still exist. */
export function watchTriggersPresent(ids: readonly string[]): boolean {
  const present = new Set(myWatchTriggers().map((trigger) => trigger.getUniqueId()));
  return ids.every((id) => present.has(id));
}
