/** The sidebar's Credits tab: the log summed up, and Export a few thousand rows per call. */
import type { CreditsExport, CreditsExportRequest, CreditsSummary, RunPlan } from '../api';
import { isActive } from '../bulk/jobMachine';
import { loadJob } from '../bulk/jobStore';
import { payerIdOf } from '../core/hash';
import { EXPORT_ROWS_PER_CALL } from '../core/limits';
import type { Platform } from '../core/ports';
import { isRecord } from '../core/storedJson';
import { numberText } from '../core/text';
import { type Charge, CREDITS_FIRST_ROW, isBlankRow, isNoteRow, parseChargeRow } from '../store/credits';
import { summarizeCredits } from '../store/creditsSummary';
import { foldFormulas } from '../store/store';
import { EXPORT_LAYOUT, exportRow, writtenUrls } from './exportRows';

export function creditsSummary(platform: Platform): CreditsSummary {
  foldFormulas(platform);
  return summarizeCredits(
    platform.creditsLog.readRows(),
    platform.clock.now(),
    payerIdOf(platform.runner.id()),
    (ms) => platform.clock.day(ms),
  );
}

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
  const whole = (n: number | undefined) => Math.floor(Number(n) || 0);
  if (request.sheetName) {
    return step(platform, {
      sheetName: request.sheetName,
      next: Math.max(CREDITS_FIRST_ROW, whole(request.next)),
      // Never past the log as it is (the request comes back from the sidebar).
      last: Math.min(whole(request.last), log.lastRow()),
      written: whole(request.written),
      skipped: whole(request.skipped),
      lost: whole(request.lost),
      notes: whole(request.notes),
    });
  }
  foldFormulas(platform);
  const last = log.lastRow();
  const none = { written: 0, skipped: 0, lost: 0, notes: 0 };
  if (last < CREDITS_FIRST_ROW) {
    const message = 'Nothing to export: no credit was logged in this spreadsheet yet.';
    return { sheetName: '', next: 0, last: 0, ...none, done: true, message };
  }
  const sheetName = log.createExport(EXPORT_LAYOUT.name);
  return step(platform, { sheetName, next: CREDITS_FIRST_ROW, last, ...none });
}

function step(platform: Platform, state: Required<CreditsExportRequest>): CreditsExport {
  const until = Math.min(state.last, state.next + EXPORT_ROWS_PER_CALL - 1);
  const next = { ...state, next: until + 1 };
  const kept: Array<{ row: unknown[]; charge?: Charge }> = [];
  for (const row of platform.creditsLog.readRowsBetween(state.next, until)) {
    const charge = parseChargeRow(row);
    const note = !charge && isNoteRow(row);
    if (charge || note) kept.push({ row, charge });
    else if (!isBlankRow(row)) next.skipped++;
    if (charge?.outcome === 'lost') next.lost++;
    if (note) next.notes++;
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
  next.written += plain.length;
  if (next.next > state.last) return { ...next, done: true, message: finished(platform, next) };
  const copied = (next.next - CREDITS_FIRST_ROW).toLocaleString('en-US');
  const total = (state.last - CREDITS_FIRST_ROW + 1).toLocaleString('en-US');
  const message = `Exporting into "${state.sheetName}": ${copied} of ${total} rows…`;
  return { ...next, done: false, message };
}

function finished(platform: Platform, state: Required<CreditsExportRequest>): string {
  const charges = state.written - state.lost - state.notes;
  const besides: string[] = [];
  if (state.lost > 0) besides.push(`${numberText(state.lost, 'answer')} lost (maybe charged)`);
  if (state.notes > 0) besides.push(`${numberText(state.notes, 'note')} of the watch`);
  const also = besides.length > 0 ? `, with ${besides.join(' and ')} (not charges)` : '';
  const parts = [`Exported ${numberText(charges, 'charge')} into the sheet "${state.sheetName}"${also}.`];
  if (state.skipped > 0) {
    parts.push(
      `${numberText(state.skipped, 'row')} of the log could not be read (edited by hand) and ${state.skipped === 1 ? 'was' : 'were'} left out.`,
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

/** The log's outcomes of an answered lookup (a credit each). */
const LOOKUPS = new Set<unknown>(['found', 'no address', 'unprocessable', 'unusable answer (charged)']);

/** One read of the log's outcome column. */
export function withLookupRecord(platform: Platform, plan: RunPlan): RunPlan {
  if (plan.refusal || plan.credits === 0) return plan;
  try {
    const outcomes = platform.creditsLog.readOutcomes();
    if (!outcomes) return plan;
    const lookups = outcomes.filter((outcome) => LOOKUPS.has(outcome)).length;
    const found = outcomes.filter((outcome) => outcome === 'found').length;
    return lookups > 0 ? { ...plan, lookupRecord: { lookups, found } } : plan;
  } catch {
    // The record is a courtesy: a plan never fails for it.
    return plan;
  }
}
