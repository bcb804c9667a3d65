/** The sidebar's Credits tab: the log summed up, and Export a few thousand rows per call. */
import type { CreditsExport, CreditsExportRequest, CreditsSummary, RunPlan } from '../api';
import { isActive } from '../bulk/jobMachine';
import { loadJob } from '../bulk/jobStore';
import { stableHash } from '../core/hash';
import { EXPORT_ROWS_PER_CALL } from '../core/limits';
import type { Platform } from '../core/ports';
import { isRecord } from '../core/storedJson';
import { type Charge, CREDITS_FIRST_ROW, isBlankRow, isNoteRow, parseChargeRow } from '../store/credits';
import { summarizeCredits } from '../store/creditsSummary';
import { foldFormulas } from '../store/store';
import { exportRow, writtenUrls } from './exportRows';

export const EXPORT_SHEET_NAME = 'Credits log';

/** '' when they never started a run. */
function viewerPayerId(platform: Platform): string {
  const id = platform.runner.id();
  return id ? stableHash(id).slice(0, 8) : '';
}

export function creditsSummary(platform: Platform): CreditsSummary {
  foldFormulas(platform);
  return summarizeCredits(
    platform.creditsLog.readRows(),
    platform.clock.now(),
    viewerPayerId(platform),
    (ms) => platform.clock.day(ms),
  );
}

const count = (n: number) => n.toLocaleString('en-US');

/** Anything but a sheet name and whole row counts is dropped. */
export function parseExportRequest(input: unknown): CreditsExportRequest {
  const record = isRecord(input) ? input : {};
  const request: CreditsExportRequest = {};
  if (typeof record.sheetName === 'string' && record.sheetName !== '') request.sheetName = record.sheetName;
  for (const field of ['next', 'last', 'written', 'skipped', 'lost', 'notes'] as const) {
    const value = record[field];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) request[field] = value;
  }
  return request;
}

export function exportCreditsLog(platform: Platform, request: CreditsExportRequest = {}): CreditsExport {
  const log = platform.creditsLog;
  if (!request.sheetName) {
    foldFormulas(platform);
    const last = log.lastRow();
    if (last < CREDITS_FIRST_ROW) {
      return {
        sheetName: '',
        next: 0,
        last: 0,
        written: 0,
        skipped: 0,
        lost: 0,
        notes: 0,
        done: true,
        message: 'Nothing to export: no credit was logged in this spreadsheet yet.',
      };
    }
    const sheetName = log.createExport(EXPORT_SHEET_NAME);
    const start = { sheetName, next: CREDITS_FIRST_ROW, last, written: 0, skipped: 0, lost: 0, notes: 0 };
    return step(platform, start);
  }
  return step(platform, {
    sheetName: request.sheetName,
    next: Math.max(CREDITS_FIRST_ROW, Math.floor(Number(request.next) || 0)),
    // Never past the log as it is (the request comes back from the sidebar).
    last: Math.min(Math.floor(Number(request.last) || 0), log.lastRow()),
    written: Math.floor(Number(request.written) || 0),
    skipped: Math.floor(Number(request.skipped) || 0),
    lost: Math.floor(Number(request.lost) || 0),
    notes: Math.floor(Number(request.notes) || 0),
  });
}

function step(platform: Platform, state: Required<CreditsExportRequest>): CreditsExport {
  const until = Math.min(state.last, state.next + EXPORT_ROWS_PER_CALL - 1);
  const rows = platform.creditsLog.readRowsBetween(state.next, until);
  const kept: Array<{ row: unknown[]; charge?: Charge }> = [];
  let skipped = 0;
  let lost = 0;
  let notes = 0;
  for (const row of rows) {
    const charge = parseChargeRow(row);
    const note = !charge && isNoteRow(row);
    if (charge || note) kept.push({ row, charge });
    else if (!isBlankRow(row)) skipped++;
    if (charge?.outcome === 'lost') lost++;
    if (note) notes++;
  }
  // As the person's sheet writes them (the log keeps the one sent).
  const spreadsheet = platform.spreadsheet();
  const written = writtenUrls(
    kept.flatMap(({ charge }) => (charge ? [charge] : [])),
    (name) => spreadsheet.sheetByName(name),
    () => spreadsheet.activeSheet(),
    platform.config().networkHosts,
  );
  const plain = kept.map(({ row, charge }) =>
    exportRow(row, charge, charge ? (written.get(charge.profile) ?? '') : ''),
  );
  if (!platform.creditsLog.writeExport(state.sheetName, 2 + state.written, plain)) {
    throw new Error(
      `The sheet "${state.sheetName}" was deleted or changed during the export; press Export in the Credits tab again.`,
    );
  }
  const next: Required<CreditsExportRequest> = {
    sheetName: state.sheetName,
    next: until + 1,
    last: state.last,
    written: state.written + plain.length,
    skipped: state.skipped + skipped,
    lost: state.lost + lost,
    notes: state.notes + notes,
  };
  const done = next.next > state.last;
  return { ...next, done, message: done ? finished(platform, next) : progressText(next) };
}

function progressText(state: Required<CreditsExportRequest>): string {
  const copied = state.next - CREDITS_FIRST_ROW;
  const total = state.last - CREDITS_FIRST_ROW + 1;
  return `Exporting into "${state.sheetName}": ${count(copied)} of ${count(total)} rows…`;
}

function finished(platform: Platform, state: Required<CreditsExportRequest>): string {
  const charges = state.written - state.lost - state.notes;
  const besides: string[] = [];
  if (state.lost > 0)
    besides.push(`${count(state.lost)} ${state.lost === 1 ? 'answer' : 'answers'} lost (maybe charged)`);
  if (state.notes > 0)
    besides.push(`${count(state.notes)} ${state.notes === 1 ? 'note' : 'notes'} of the watch`);
  const also = besides.length > 0 ? `, with ${besides.join(' and ')} (not charges)` : '';
  const parts = [
    `Exported ${count(charges)} ${charges === 1 ? 'charge' : 'charges'} into the sheet "${state.sheetName}"${also}.`,
  ];
  if (state.skipped > 0) {
    parts.push(
      `${count(state.skipped)} ${state.skipped === 1 ? 'row' : 'rows'} of the log could not be read (edited by hand) and ${state.skipped === 1 ? 'was' : 'were'} left out.`,
    );
  }
  const job = loadJob(platform);
  if (job && isActive(job.state)) {
    parts.push(
      'A run is under way: its charges after you pressed Export are not in this sheet; press Export again when it ends.',
    );
  }
  return parts.join(' ');
}

/** One read of the log's outcome column. */
export function withLookupRecord(platform: Platform, plan: RunPlan): RunPlan {
  if (plan.refusal || plan.credits === 0) return plan;
  try {
    const outcomes = platform.creditsLog.readOutcomes();
    if (!outcomes) return plan;
    let lookups = 0;
    let found = 0;
    for (const outcome of outcomes) {
      if (outcome === 'found') found++;
      if (
        outcome === 'found' ||
        outcome === 'no address' ||
        outcome === 'unprocessable' ||
        outcome === 'unusable answer (charged)'
      )
        lookups++;
    }
    return lookups > 0 ? { ...plan, lookupRecord: { lookups, found } } : plan;
  } catch {
    // The record is a courtesy: a plan never fails for it.
    return plan;
  }
}
