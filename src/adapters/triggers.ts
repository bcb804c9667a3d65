/**
 * A watch's triggers: one of each type per user per document (workspace/add-ons/concepts/editor-triggers), run as
 * and seen by their creator alone (apps-script/guides/triggers/installable). No time-driven one: it runs with no
 * active spreadsheet (reported), and opening it by id needs more than `spreadsheets.currentonly`.
 */
import { TriggersRefusedError } from '../core/ports';

/** src/main.ts's handlers. */
export const WATCH_HANDLERS = {
  open: 'onWatchOpen',
  change: 'onWatchChange',
  formSubmit: 'onWatchFormSubmit',
} as const;

const HANDLER_NAMES: readonly string[] = Object.values(WATCH_HANDLERS);

function myWatchTriggers(): GoogleAppsScript.Script.Trigger[] {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  return ScriptApp.getUserTriggers(ss).filter((trigger) =>
    HANDLER_NAMES.includes(trigger.getHandlerFunction()),
  );
}

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

export function deleteMyWatchTriggers(): number {
  const mine = myWatchTriggers();
  for (const trigger of mine) ScriptApp.deleteTrigger(trigger);
  return mine.length;
}

export function deleteWatchTriggers(ids: readonly string[]): void {
  for (const trigger of myWatchTriggers())
    if (ids.includes(trigger.getUniqueId())) ScriptApp.deleteTrigger(trigger);
}

export function watchTriggersPresent(ids: readonly string[]): boolean {
  const present = new Set(myWatchTriggers().map((trigger) => trigger.getUniqueId()));
  return ids.every((id) => present.has(id));
}
