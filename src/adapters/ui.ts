/** The sidebar drives a bulk run: installable triggers do not run in an add-on's test deployment. */
import { TRIAL_PROFILES, USER_SIMULTANEOUS_EXECUTIONS } from '../core/limits';
import type { SidebarView } from '../core/ports';
import { ADDON_NAME } from '../core/product';
import { documentLockHeld } from './lock';

export function showSidebar(view: SidebarView): void {
  const template = HtmlService.createTemplateFromFile('Sidebar');
  template.initialView = view;
  const output = template.evaluate().setTitle(ADDON_NAME);
  SpreadsheetApp.getUi().showSidebar(output);
}

/** [caption, entry point of src/main.ts]; null is a separator. */
export function addAddonMenu(items: Array<[string, string] | null>): void {
  const menu = SpreadsheetApp.getUi().createAddonMenu();
  for (const item of items) {
    if (item) menu.addItem(item[0], item[1]);
    else menu.addSeparator();
  }
  menu.addToUi();
}

/** Returns the message, for the sidebar that asked. */
export function showToast(message: string): string {
  SpreadsheetApp.getActiveSpreadsheet().toast(message, ADDON_NAME);
  return message;
}

/** "LockService locks don't persist across the suspension" of a dialog (apps-script/reference/base/ui#alert). */
function dialogUi(): GoogleAppsScript.Base.Ui {
  if (documentLockHeld()) throw new Error('A dialog cannot be shown while the document lock is held.');
  return SpreadsheetApp.getUi();
}

export function confirm(message: string): boolean {
  const ui = dialogUi();
  return ui.alert(ADDON_NAME, message, ui.ButtonSet.YES_NO) === ui.Button.YES;
}

export function showAlert(message: string): void {
  const ui = dialogUi();
  ui.alert(ADDON_NAME, message, ui.ButtonSet.OK);
}

export function showHelp(): void {
  // The build's privacy policy address (scripts/build.ts), or where to find it.
  const privacy = __PRIVACY_URL__
    ? `The whole privacy policy: <a href="${__PRIVACY_URL__}" target="_blank" rel="noopener">${__PRIVACY_URL__}</a>.`
    : "The whole privacy policy is linked from the add-on's page in the Google Workspace Marketplace.";
  const html = HtmlService.createHtmlOutput(
    `<div style="font-family:Arial,sans-serif;font-size:13px;line-height:1.5">
<p><b>Find e-mails for the selected column</b>: select profile URLs in one column, then choose the menu item. The
sidebar opens on the plan, with its price and Start: nothing changes before you press Start. With more than ${TRIAL_PROFILES} new
profiles, the plan offers Try ${TRIAL_PROFILES} rows first. In Settings you may start runs under a number of credits at once,
without the plan (off by default). Results go into the columns to the right (Email, Email status, Catch-all, Note)
when they are empty; when they hold your data, the plan offers a choice: insert columns, use the first empty columns
further right, or cancel. <b>Retry failed rows</b> opens its plan the same way.</p>
<p><b>=FINDEMAIL(A2:A200)</b> or <b>=FINDEMAIL(A2:A200, "email,status,catch_all")</b> in a cell: one range formula
rather than a column of =FINDEMAIL(A2) cells (Sheets runs at most ${USER_SIMULTANEOUS_EXECUTIONS} formulas at once for one person). Formulas use the
API key and credits of <b>the spreadsheet's owner</b>; in a shared drive, of the person who created the file; after a
transfer of ownership, of the new owner. Results are remembered in this spreadsheet: evaluating again costs no credit.</p>
<p><b>Refresh =FINDEMAIL cells</b> enters again the formulas that are not done (not looked up yet, or #ERROR!) on the
sheet, or only in the range you selected (more than one cell), so that Sheets runs them again; it says which.</p>
<p><b>Freeze results</b> replaces =FINDEMAIL formulas in the selection with their values.</p>
<p>Your API key is kept in your private user properties and never shown again in full.</p>
<p><b>Your data</b>: the add-on sends the e-mail service only the profile URL and the API key that pays, and nothing
to anyone else. The results and the credits log are kept in two hidden sheets of this spreadsheet, which anyone who
can open or copy the file can read. <b>Settings &amp; API key › Remove this spreadsheet's add-on data</b> removes
them. ${privacy}</p></div>`,
  )
    .setWidth(420)
    .setHeight(460);
  SpreadsheetApp.getUi().showModalDialog(html, `${ADDON_NAME}: help`);
}
