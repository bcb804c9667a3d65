/** Starting a bulk run on the selected column: the job, the output columns, the counts of the rows as they are. */
import { deleteJob, loadJob, saveJob } from '../../adapters/jobStore';
import { withDocumentLock } from '../../adapters/lock';
import { runnerEmail, runnerId } from '../../adapters/runner';
import { readScriptConfig } from '../../adapters/scriptConfig';
import { readSettings } from '../../adapters/settings';
import { showSidebar } from '../../adapters/ui';
import { CELL, outputHeaders, textColumnOffsets } from '../../core/cells';
import { countSelection } from '../../core/counting';
import { type Job, mayDrive, notYourRun, type Progress, progressOf } from '../../core/job';
import { isActive, transition } from '../../core/jobMachine';
import { FIRST_SLICE_MAX_MS } from '../../core/limits';
import { canReuseOutputColumns, cellMark, isHeaderText, withFormulaCells } from '../../core/rowPlan';
import type { Settings } from '../../core/sidebarState';
import { parseProfileInput } from '../../core/url';
import { processSlice } from './slice';

type Range = GoogleAppsScript.Spreadsheet.Range;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function enrichSelection(): Progress {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const viewerId = runnerId();
  // Check and create under one lock: two quick clicks must not create two jobs (nor insert columns twice).
  const outcome = withDocumentLock((): { existing: Job } | { created: Job } => {
    const stored = loadJob();
    if (stored && isActive(stored.state)) return { existing: stored };
    const selection = ss.getActiveRange();
    if (!selection)
      throw new Error('Select the cells with profile URLs (one column), then choose Find e-mails again.');
    // The run belongs to whoever starts it: their id goes into the job, and only their executions drive it.
    const owner = { id: viewerId ?? (runnerId(true) as string), name: runnerEmail() };
    const { job: created, prepareSheet } = createJob(selection, owner);
    // The job's state is saved first: if it cannot be, the sheet is left untouched.
    saveJob(created);
    try {
      prepareSheet();
    } catch (error) {
      deleteJob();
      throw error;
    }
    return { created };
  });
  // The sidebar drives the run (and resumes a run waiting for it): no trigger, none is needed.
  showSidebar('progress');
  if ('existing' in outcome) {
    const { existing } = outcome;
    const viewer = { runnerId: viewerId, now: Date.now() };
    return {
      ...progressOf(existing, viewer),
      message: mayDrive(existing, viewerId)
        ? `A run is already under way in this spreadsheet (${existing.state}). Resume or cancel it before starting another.`
        : `A run is already under way in this spreadsheet (${existing.state}). ${notYourRun(existing)}`,
    };
  }
  // A short first slice: the sidebar, open now, drives the rest.
  return processSlice(outcome.created.id, outcome.created.ownerId ?? null, FIRST_SLICE_MAX_MS);
}

/** The selection as read: its header, its first and last URL rows, and whether the output columns are free. */
interface Selection {
  sheet: Sheet;
  urlColumn: number;
  headerRow: number | null;
  firstRow: number;
  lastRow: number;
  /** The URL cell and the output cells of every row from the header (if any) to the last URL. */
  block: unknown[][];
  blockTop: number;
  reusable: boolean;
}

const EMPTY_SELECTION = 'The selected cells are empty: select the profile URLs, then try again.';

function readSelection(selection: Range, settings: Settings): Selection {
  const sheet = selection.getSheet();
  const urlColumn = selection.getColumn();
  const outputCount = outputHeaders(settings.extraFields).length;
  const top = selection.getRow();
  // A whole-column selection (A:A) ends at the sheet's last row with data, not at row 1,000,000.
  const bottom = Math.min(selection.getLastRow(), sheet.getLastRow());
  if (bottom < top) throw new Error(EMPTY_SELECTION);
  const blockTop = top > 1 ? top - 1 : top;
  const readWidth = 1 + Math.max(0, Math.min(outputCount, sheet.getMaxColumns() - urlColumn));
  const range = sheet.getRange(blockTop, urlColumn, bottom - blockTop + 1, readWidth);
  // An output cell holding a formula is the user's data (even one showing ""): such columns are not reused.
  const block = withFormulaCells(range.getValues(), range.getFormulas());
  const at = (row: number) => block[row - blockTop];
  let headerRow: number | null = null;
  if (isHeaderText(at(top)[CELL.url])) headerRow = top;
  else if (top > 1 && isHeaderText(block[0][CELL.url])) headerRow = top - 1;
  // The job's rows run from the first to the last non-empty URL cell: its ends identify it later.
  const filled = (row: number) => parseProfileInput(at(row)[CELL.url]).kind !== 'empty';
  let firstRow = headerRow === top ? top + 1 : top;
  while (firstRow <= bottom && !filled(firstRow)) firstRow++;
  let lastRow = bottom;
  while (lastRow >= firstRow && !filled(lastRow)) lastRow--;
  if (firstRow > lastRow) {
    throw new Error(
      headerRow === null
        ? EMPTY_SELECTION
        : 'There are no profile URLs under the header: select the URLs, then try again.',
    );
  }
  const owned = [
    ...(headerRow === null ? [] : [at(headerRow)]),
    ...block.slice(firstRow - blockTop, lastRow - blockTop + 1),
  ];
  const reusable =
    readWidth === 1 + outputCount &&
    canReuseOutputColumns(
      owned.map((row) => padRow(row.slice(CELL.email), outputCount)),
      headerRow === null ? null : 0,
      settings.extraFields,
    );
  return { sheet, urlColumn, headerRow, firstRow, lastRow, block, blockTop, reusable };
}

function padRow(row: unknown[], width: number): unknown[] {
  const padded = row.slice(0, width);
  while (padded.length < width) padded.push('');
  return padded;
}

/** Inserts output columns when the existing ones hold the user's data; plain-text format; the titles. */
function prepareSheetFor(read: Selection, settings: Settings): () => void {
  const { sheet, urlColumn, headerRow, firstRow, lastRow } = read;
  const titles = outputHeaders(settings.extraFields);
  return () => {
    // Never overwrite the user's data: insert fresh columns right of the URL column instead.
    if (!read.reusable) sheet.insertColumnsAfter(urlColumn, titles.length);
    // Service values are written as plain text so an address such as =HYPERLINK(...) can never become a formula.
    // The Catch-all column keeps real booleans.
    const rows = lastRow - firstRow + 1;
    sheet
      .getRangeList(
        textColumnOffsets(titles.length).map((offset) =>
          sheet.getRange(firstRow, urlColumn + 1 + offset, rows, 1).getA1Notation(),
        ),
      )
      .setNumberFormat('@');
    if (headerRow !== null && settings.writeHeader) {
      sheet.getRange(headerRow, urlColumn + 1, 1, titles.length).setValues([titles]);
    }
  };
}

/** The header row's marks as the run will leave it (URL cell, then the output titles). */
function headerMarks(read: Selection, settings: Settings): string[] | null {
  if (read.headerRow === null) return null;
  const titles = outputHeaders(settings.extraFields);
  const row = read.block[read.headerRow - read.blockTop];
  const existing = read.reusable ? padRow(row.slice(CELL.email), titles.length) : titles.map(() => '');
  return [row[CELL.url], ...(settings.writeHeader ? titles : existing)].map(cellMark);
}

function createJob(
  selection: Range,
  owner: { id: string; name: string },
): { job: Job; prepareSheet: () => void } {
  const settings = readSettings();
  const read = readSelection(selection, settings);
  const { sheet, urlColumn, firstRow, lastRow } = read;
  const dataRows = read.block.slice(firstRow - read.blockTop, lastRow - read.blockTop + 1);
  const { counts, hasDuplicates } = countSelection(
    dataRows,
    settings.recheck,
    read.reusable,
    readScriptConfig().networkHosts,
  );
  const outputCount = outputHeaders(settings.extraFields).length;
  const now = Date.now();
  const idle: Job = {
    id: `${now.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    urlColumn,
    firstRow,
    lastRow,
    headerRow: read.headerRow,
    outputColumn: urlColumn + 1,
    extraFields: settings.extraFields,
    recheck: settings.recheck,
    cursor: firstRow,
    pass: 1,
    maxRows: sheet.getMaxRows(),
    maxColumns: sheet.getMaxColumns() + (read.reusable ? 0 : outputCount),
    topValue: cellMark(dataRows[0][CELL.url]),
    bottomValue: cellMark(dataRows[dataRows.length - 1][CELL.url]),
    headerTexts: headerMarks(read, settings),
    hasDuplicates,
    state: 'idle',
    message:
      selection.getNumColumns() > 1
        ? `Several columns were selected: using the first one (${sheet.getRange(1, urlColumn).getA1Notation().replace(/\d+$/, '')}).`
        : 'Starting…',
    counts,
    startedAt: now,
    updatedAt: now,
    leaseUntil: 0,
    ownerId: owner.id,
    ownerName: owner.name,
  };
  return { job: transition(idle, { type: 'start' }), prepareSheet: prepareSheetFor(read, settings) };
}
