/** scripts/build.ts makes each export a top-level function of dist/Code.js: Apps Script sees no other. */
import { appsScript } from './adapters/platform';
import { addAddonMenu, showHelp as openHelp, showSidebar, showToast } from './adapters/ui';
import type * as api from './api';
import * as enrichment from './bulk/controls';
import { parseRunRequest, planFor } from './bulk/plan';
import * as runHistory from './bulk/runHistory';
import { clearStaleResults } from './bulk/staleResults';
import { BULK_RUN_ITEM, REFRESH_ITEM, WATCH_ITEM } from './core/product';
import * as credits from './credits/view';
import * as dataRemoval from './dataRemoval';
import * as formulaCap from './formula/dailyLimit';
import { findEmail } from './formula/findEmail';
import { freezeResults as freeze } from './formula/freeze';
import * as refresh from './formula/refresh';
import * as account from './settings/account';
import { sidebarState } from './sidebarState';
import { foldFormulas, waitingToFold } from './store/store';
import * as watch from './watch/entryPoints';

/**
 * Finds the work e-mail address of a person from the URL of their profile on the professional network.
 * Returns the address, or NOT_FOUND, UNPROCESSABLE: reason, INVALID_URL: reason (no credit spent) or ERROR: reason.
 * The second argument, fields, is optional: without it, the address; with it, one row of the named fields per URL.
 * A range such as A2:A200 gives one result per row (better than a column of single-cell formulas: Sheets runs at
 * most 30 at once). Results are remembered in this spreadsheet, so evaluating again costs no credit.
 * Unfinished cells: Extensions › Profile Email Finder › Refresh =FINDEMAIL cells.
 * Uses the API key of the spreadsheet's owner (in a shared drive, the file's creator).
 *
 * @param {string|Array<Array<string>>} url A profile URL or a range of them, e.g. A2 or A2:A200.
 * @param {string} fields Optional. Comma-separated outputs: email, status, catch_all, account_type, name, updated_at, note. E.g. "email,status,catch_all".
 * @return The e-mail address (or NOT_FOUND, UNPROCESSABLE: …, INVALID_URL: …, ERROR: …), or one row of the requested fields per URL.
 * @customfunction
 */
export function FINDEMAIL(url: unknown, fields?: unknown): unknown {
  return findEmail(appsScript, url, fields);
}

/** Builds the menu (in AuthMode.NONE too); when it may write, folds formulas' paid results. */
export function onOpen(e?: unknown): void {
  addAddonMenu([
    [BULK_RUN_ITEM, 'enrichSelection'],
    ['Retry failed rows in the selected column', 'retryFailedRows'],
    [WATCH_ITEM, 'showWatch'],
    [REFRESH_ITEM, 'refreshFormulas'],
    ['Freeze =FINDEMAIL results in the selection', 'freezeResults'],
    null,
    ['Settings & API key', 'showSettings'],
    ['Help', 'showHelp'],
  ]);
  if (editable(e)) {
    const names = appsScript.documentPropertiesOrNull()?.getKeys() ?? [];
    if (waitingToFold(names)) foldFormulas(appsScript);
  }
}

/** Builds the menu at once on install. */
export function onInstall(e?: unknown): void {
  onOpen(e);
}

/** Clears the result beside an edited URL and folds formulas' paid results (one read of the properties). */
export function onEdit(e?: unknown): void {
  const all = editable(e) ? (appsScript.documentPropertiesOrNull()?.getProperties() ?? null) : null;
  if (!all) return;
  clearStaleResults(appsScript, e, all);
  if (waitingToFold(Object.keys(all))) foldFormulas(appsScript);
}

/** AuthMode.LIMITED or FULL: the trigger may read and write the spreadsheet. */
function editable(e: unknown): boolean {
  const mode = String((e as { authMode?: unknown } | undefined)?.authMode ?? '');
  return mode === 'LIMITED' || mode === 'FULL';
}

/** Opens the sidebar on its settings view. */
export function showSettings(): void {
  showSidebar('settings');
}

/** Opens the sidebar on its Watch tab: watch the selected column for new rows. */
export function showWatch(): void {
  showSidebar('watch');
}

/** Opens the help dialog. */
export function showHelp(): void {
  openHelp();
}

/** Starts a run over the selected column of profile URLs and opens its progress view. */
export function enrichSelection(): api.Progress {
  return enrichment.enrichSelection(appsScript);
}

/** Retries only the selected column's rows whose status is ERROR. */
export function retryFailedRows(): api.Progress {
  return enrichment.retryFailedRows(appsScript);
}

/** The plan and the price of a run (src/bulk/runPlan.ts RunRequest); nothing in the sheet changes. */
export function getRunPlan(request: unknown): api.RunPlan {
  return credits.withLookupRecord(appsScript, planFor(appsScript, parseRunRequest(request)).plan);
}

/** Starts a run when its plan allows (placement chosen, price confirmed), else returns the plan again. */
export function startRun(request: unknown): api.RunStart {
  return enrichment.startRun(appsScript, parseRunRequest(request));
}

/** The last run's summary and the spreadsheet's last few runs. */
export function getRunHistory(): api.RunHistory {
  return runHistory.getRunHistory(appsScript);
}

/** Selects the first row of the last run whose status is ERROR, UNPROCESSABLE or INVALID_URL. */
export function selectFirstFailedRow(): string {
  return runHistory.selectFirstFailedRow(appsScript);
}

/** The credits log summed up: the sidebar's Credits tab. */
export function getCreditsSummary(): api.CreditsSummary {
  return credits.creditsSummary(appsScript);
}

/** One step of exporting the credits log into a new visible sheet (the sidebar calls again until done). */
export function exportCreditsLog(request: unknown): api.CreditsExport {
  return credits.exportCreditsLog(appsScript, credits.parseExportRequest(request));
}

/** Saves this user's =FINDEMAIL cap for this spreadsheet (the owner's governs formulas). */
export function saveFormulaCap(setting: unknown): api.FormulaCapState {
  return formulaCap.saveFormulaCapSetting(appsScript, setting);
}

/** Processes the next slice of this spreadsheet's run (called by the sidebar again and again). */
export function continueEnrichment(): api.Progress {
  return enrichment.continueEnrichment(appsScript);
}

/** Resumes a paused or stopped run. */
export function resumeEnrichment(): api.Progress {
  return enrichment.resumeEnrichment(appsScript);
}

/** Pauses the run; results so far are kept. */
export function pauseEnrichment(): api.Progress {
  return enrichment.pauseEnrichment(appsScript);
}

/** The sidebar is being closed (best effort: the call may not arrive): the person's running run pauses. */
export function sidebarClosed(): api.Progress {
  return enrichment.sidebarClosed(appsScript);
}

/** Cancels the run; results so far are kept. */
export function cancelEnrichment(): api.Progress {
  return enrichment.cancelEnrichment(appsScript);
}

/** The run's progress for the sidebar. */
export function getEnrichmentProgress(): api.Progress {
  return enrichment.getEnrichmentProgress(appsScript);
}

/** Enters again the sheet's (or selected range's) unfinished =FINDEMAIL formulas, so Sheets runs them. */
export function refreshFormulas(): string {
  return showToast(refresh.refreshFormulas(appsScript));
}

/** The sidebar's offer: a column of single =FINDEMAIL cells becomes one range formula (asked first). */
export function replaceSingleCells(): string {
  return showToast(refresh.replaceSingleCells(appsScript));
}

/** A column of single =FINDEMAIL cells on the active sheet, read now (null: none, or all done). */
export function getSingleCells(): api.SingleCellsState | null {
  return refresh.singleCellColumnState(appsScript) ?? null;
}

/** Replaces =FINDEMAIL formulas in the selection with their values. */
export function freezeResults(): string {
  return showToast(freeze(appsScript));
}

/** The sidebar's state: masked key, settings, progress. */
export function getSidebarState(): api.SidebarState {
  return sidebarState(appsScript);
}

/** Saves the current user's API key in their user properties. */
export function saveApiKey(key: unknown): api.SidebarState {
  account.saveApiKey(appsScript, key);
  return sidebarState(appsScript);
}

/** Removes the current user's API key. */
export function removeApiKey(): api.SidebarState {
  account.removeApiKey(appsScript);
  return sidebarState(appsScript);
}

/** Checks the saved key with the service without spending a credit. */
export function checkApiKey(): api.KeyCheckResult {
  return account.checkApiKey(appsScript);
}

/** Saves the current user's settings. */
export function saveSettings(settings: unknown): api.SidebarState {
  account.saveSettings(appsScript, settings);
  return sidebarState(appsScript);
}

/** What removing this spreadsheet's add-on data would take away; nothing changes. */
export function getDataRemovalPlan(): api.DataRemovalPlan {
  return dataRemoval.planDataRemoval(appsScript);
}

/** Removes this spreadsheet's add-on data: hidden sheets, document properties, your watch triggers. */
export function removeSpreadsheetData(): api.DataRemovalResult {
  return dataRemoval.removeSpreadsheetData(appsScript);
}

/** The Watch tab: this spreadsheet's watch of a column. */
export function getWatchState(): api.WatchView {
  return watch.getWatchState(appsScript);
}

/** Watches the selected column: new profile URLs are looked up on your key, within a daily limit. */
export function startWatch(request: unknown): api.WatchStart {
  return watch.startWatch(appsScript, request);
}

/** Stops this spreadsheet's watch (any editor may). */
export function stopWatch(): api.WatchView {
  return watch.stopWatchFromSidebar(appsScript);
}

/** A watch's open trigger: finds rows appended through the Sheets API, which fires no trigger. */
export function onWatchOpen(): string {
  return watch.onWatchEvent(appsScript);
}

/** A watch's change trigger: rows typed, pasted or inserted. */
export function onWatchChange(e?: unknown): string {
  return watch.onWatchEvent(appsScript, e);
}

/** A watch's form-submit trigger. */
export function onWatchFormSubmit(): string {
  return watch.onWatchEvent(appsScript);
}
