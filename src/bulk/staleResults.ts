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

import { BASE_HEADERS, CELL, EXTRA_HEADERS } from '../core/cells';
import { MAX_EDITED_ROWS } from '../core/limits';
import type { SheetPort } from '../core/sheet';
import { type NetworkHosts, parseProfileInput } from '../core/url';
import type { Platform } from '../platform/platform';
import { loadJob } from './jobStore';
import { isOwnStatus } from './rowCells';
import { adjacentRuns } from './rowPlan';

/** Clears the add-on's results beside edited URL cells. Returns how many rows were cleared (for tests and logs). */
export function clearStaleResults(platform: Platform, event: unknown): number {
  const edit = platform.editedCells(event);
  if (!edit) return 0;
  const { sheet, block } = edit;
  if (block.rows > MAX_EDITED_ROWS) return 0;
  // The URL column is the edited range's last column: columns edited together with it are the person's own.
  const urlColumn = block.column + block.columns - 1;
  const base = BASE_HEADERS.length;
  if (urlColumn + base > sheet.maxColumns()) return 0;
  const cells = sheet.values({ row: block.row, column: urlColumn, rows: block.rows, columns: 1 + base });
  const stale: number[] = [];
  cells.forEach((row, index) => {
    if (isOwnStatus(row[CELL.status], row[CELL.email])) stale.push(index);
  });
  if (stale.length === 0) return 0;
  if (
    block.rows === 1 &&
    edit.oldValue !== undefined &&
    sameProfile(edit.oldValue, cells[0][CELL.url], platform.config().networkHosts)
  )
    return 0;
  const width = base + (hasExtraColumns(platform, sheet, urlColumn) ? EXTRA_HEADERS.length : 0);
  for (const run of adjacentRuns(stale)) {
    sheet.clear({ row: block.row + run.from, column: urlColumn + 1, rows: run.count, columns: width });
  }
  return stale.length;
}

/** Another spelling of the same profile (case, a trailing slash): its result still holds. */
function sameProfile(before: unknown, after: unknown, hosts: NetworkHosts): boolean {
  const old = parseProfileInput(before, hosts);
  const now = parseProfileInput(after, hosts);
  return old.kind === 'url' && now.kind === 'url' && old.key === now.key;
}

/** The last run on this column wrote Account type and Name too. */
function hasExtraColumns(platform: Platform, sheet: SheetPort, urlColumn: number): boolean {
  const job = loadJob(platform);
  return (
    !!job &&
    job.extraFields &&
    job.sheetId === sheet.id &&
    job.urlColumn === urlColumn &&
    job.outputColumn === urlColumn + 1
  );
}
