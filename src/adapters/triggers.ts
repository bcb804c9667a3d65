/**
 * A watch's triggers: one of each type per user per document (workspace/add-ons/concepts/editor-triggers), run as
 * and seen by their creator alone (apps-script/guides/triggers/installable). No time-driven one: it runs with no
 * active spreadsheet (reported), and opening it by id needs more than `spreadsheets.currentonly`.
 */
import { TriggersRefusedError, type WatchTriggers } from '../core/ports';

/** src/main.ts's handlers, each with the spreadsheet's event that runs it. */
const WATCH_HANDLERS = [
  ['onOpen', 'onWatchOpen'],
  ['onChange', 'onWatchChange'],
  ['onFormSubmit', 'onWatchFormSubmit'],
] as const;

const HANDLER_NAMES: readonly string[] = WATCH_HANDLERS.map(([, handler]) => handler);

function myWatchTriggers(): GoogleAppsScript.Script.Trigger[] {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  return ScriptApp.getUserTriggers(ss).filter((trigger) =>
    HANDLER_NAMES.includes(trigger.getHandlerFunction()),
  );
}

function deleteMine(): number {
  const mine = myWatchTriggers();
  for (const trigger of mine) ScriptApp.deleteTrigger(trigger);
  return mine.length;
}

export const watchTriggers: WatchTriggers = {
  create() {
    deleteMine();
    const ss = SpreadsheetApp.getActiveSpreadsheet();
    const ids: string[] = [];
    try {
      for (const [event, handler] of WATCH_HANDLERS)
        ids.push(ScriptApp.newTrigger(handler).forSpreadsheet(ss)[event]().create().getUniqueId());
    } catch (error) {
      // All or none: a watch with some of its triggers would miss rows without saying so.
      deleteMine();
      throw new TriggersRefusedError(error instanceof Error ? error.message : String(error));
    }
    return ids;
  },
  deleteMine,
  delete(ids) {
    for (const trigger of myWatchTriggers())
      if (ids.includes(trigger.getUniqueId())) ScriptApp.deleteTrigger(trigger);
  },
  present(ids) {
    const present = new Set(myWatchTriggers().map((trigger) => trigger.getUniqueId()));
    return ids.every((id) => present.has(id));
  },
};
