/**
 * Results follow their URL: when a person edits a URL cell whose row holds a result the add-on wrote beside it,
 * the simple trigger onEdit clears that result, so the next run looks the new URL up instead of leaving the old
 * address beside it. Only the add-on's own cells (an Email/Email status pair it writes) are cleared; a spelling
 * of the same profile keeps its result.
 *
 * onEdit runs on every edit, in AuthMode.LIMITED (it may read and change this spreadsheet, not call the service)
 * or, before the add-on is used in the document, AuthMode.NONE (nothing at all), for at most 30 s
 * (apps-script/guides/triggers#restrictions, apps-script/reference/script/auth-mode). So it does one read of the
 * cells right of the edit, and more only for rows that hold the add-on's results.
 */

import { appsScript } from '../adapters/platform';
import { readScriptConfig } from '../adapters/scriptConfig';
import { BASE_HEADERS, CELL, EXTRA_HEADERS } from '../core/cells';
import { parseProfileInput } from '../core/url';
import { loadJob } from './jobStore';
import { isOwnStatus } from './rowCells';
import { adjacentRuns } from './rowPlan';

type Range = GoogleAppsScript.Spreadsheet.Range;

interface EditEvent {
  authMode?: unknown;
  range?: Range;
  oldValue?: unknown;
  value?: unknown;
}

/** Edits larger than this (a paste of a whole table) are left alone: onEdit must stay cheap. */
const MAX_EDITED_ROWS = 5000;

/** Clears the add-on's results beside edited URL cells. Returns how many rows were cleared (for tests and logs). */
export function clearStaleResults(event: unknown): number {
  const e = (event ?? {}) as EditEvent;
  if (String(e.authMode) === 'NONE' || !e.range) return 0;
  const range = e.range;
  const rows = range.getNumRows();
  if (rows > MAX_EDITED_ROWS) return 0;
  const sheet = range.getSheet();
  // The URL column is the edited range's last column: columns edited together with it are the person's own.
  const urlColumn = range.getColumn() + range.getNumColumns() - 1;
  const base = BASE_HEADERS.length;
  if (urlColumn + base > sheet.getMaxColumns()) return 0;
  const cells = sheet.getRange(range.getRow(), urlColumn, rows, 1 + base).getValues();
  const stale: number[] = [];
  cells.forEach((row, index) => {
    if (isOwnStatus(row[CELL.status], row[CELL.email])) stale.push(index);
  });
  if (stale.length === 0) return 0;
  if (rows === 1 && e.oldValue !== undefined && sameProfile(e.oldValue, cells[0][CELL.url])) return 0;
  const width = base + (hasExtraColumns(sheet, urlColumn) ? EXTRA_HEADERS.length : 0);
  for (const run of adjacentRuns(stale)) {
    sheet.getRange(range.getRow() + run.from, urlColumn + 1, run.count, width).clearContent();
  }
  return stale.length;
}

/** Another spelling of the same profile (case, a trailing slash): its result still holds. */
function sameProfile(before: unknown, after: unknown): boolean {
  const hosts = readScriptConfig().networkHosts;
  const old = parseProfileInput(before, hosts);
  const now = parseProfileInput(after, hosts);
  return old.kind === 'url' && now.kind === 'url' && old.key === now.key;
}

/** The last run on this column wrote Account type and Name too. */
function hasExtraColumns(sheet: GoogleAppsScript.Spreadsheet.Sheet, urlColumn: number): boolean {
  const job = loadJob(appsScript);
  return (
    !!job &&
    job.extraFields &&
    job.sheetId === sheet.getSheetId() &&
    job.urlColumn === urlColumn &&
    job.outputColumn === urlColumn + 1
  );
}
