/** The credits log: a row per credit spent or maybe spent (an answer lost), below CREDITS_HEADER. Pure. */
import type { SheetLayout } from '../core/ports';
import { CREDITS_SHEET } from '../core/propertyNames';
import type { LookupResult } from '../lookup/result';

export const CREDITS_HEADER = ['When (UTC)', 'Source', 'Paid by', 'Payer id', 'Profile', 'Outcome', 'Where'];
export const CREDITS_COLUMNS = CREDITS_HEADER.length;
export const CREDITS_FIRST_ROW = 2;
export const OUTCOME_COLUMN = 6;

export const CREDITS_LOG_LAYOUT: SheetLayout = {
  name: CREDITS_SHEET,
  rows: 0,
  columns: CREDITS_COLUMNS,
  header: CREDITS_HEADER,
  guard:
    'Profile Email Finder logs every credit spent here: editing, sorting or deleting this sheet loses that record (Credits tab).',
};

export type ChargeOutcome = 'found' | 'no address' | 'unprocessable' | 'unusable' | 'lost';
export const LOST_OUTCOME_TEXT = 'answer lost (maybe charged)';
const OUTCOME_TEXT: Record<ChargeOutcome, string> = {
  found: 'found',
  'no address': 'no address',
  unprocessable: 'unprocessable',
  unusable: 'unusable answer (charged)',
  lost: LOST_OUTCOME_TEXT,
};

export type ChargeSource = 'run' | 'formulas' | 'watch';
const CHARGE_SOURCES: readonly string[] = ['run', 'formulas', 'watch'];

export interface ChargeContext {
  source: ChargeSource;
  /** Their e-mail address when Apps Script gives it, or whose key formulas use. */
  payer: string;
  /** A hash of the owner's runner id: the id itself lets its holder drive the run. */
  payerId: string;
  where: string;
  /** None for formulas. */
  run?: string;
}

export const FORMULAS_CONTEXT: ChargeContext = {
  source: 'formulas',
  payer: "the spreadsheet owner's key",
  payerId: 'formulas',
  where: '=FINDEMAIL',
};

export function outcomeOf(result: LookupResult): ChargeOutcome {
  if (result.kind === 'found') return 'found';
  if (result.kind === 'not_found') return 'no address';
  if (result.kind === 'unusable') return result.lost ? 'lost' : 'unusable';
  return 'unprocessable';
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What the service may have charged, a row each. */
export function chargeRows(
  context: ChargeContext,
  entries: Array<[string, LookupResult]>,
  now: number,
): string[][] {
  return entries.map(([key, result]) => [
    isoTime(now),
    context.source,
    context.payer,
    context.payerId,
    key,
    OUTCOME_TEXT[outcomeOf(result)],
    context.where,
  ]);
}

/** As a batch's records keep it. */
export function contextTuple(context: ChargeContext): string[] {
  const tuple = [context.source, context.payer, context.payerId, context.where];
  return context.run ? [...tuple, context.run] : tuple;
}

export interface Charge {
  at: number;
  source: ChargeSource;
  payer: string;
  payerId: string;
  profile: string;
  outcome: ChargeOutcome;
  where: string;
}

const OUTCOME_BY_TEXT = new Map(Object.entries(OUTCOME_TEXT).map(([outcome, text]) => [text, outcome]));

/** undefined when it is not one (edited by hand, or blank). */
export function parseChargeRow(row: readonly unknown[]): Charge | undefined {
  const [when, source, payer, payerId, profile, outcomeText, where] = row;
  const at =
    when instanceof Date ? when.getTime() : typeof when === 'number' ? Number.NaN : Date.parse(String(when));
  const outcome = OUTCOME_BY_TEXT.get(String(outcomeText)) as ChargeOutcome | undefined;
  if (!Number.isFinite(at) || !outcome || !CHARGE_SOURCES.includes(String(source)) || !profile)
    return undefined;
  return {
    at,
    source: source as ChargeSource,
    payer: String(payer ?? ''),
    payerId: String(payerId ?? ''),
    profile: String(profile),
    outcome,
    where: String(where ?? ''),
  };
}

const isEmpty = (cell: unknown) => cell === '' || cell === null || cell === undefined;

/** A watch's note: Source "watch" and no profile. Neither a charge nor unreadable. */
export function isNoteRow(row: readonly unknown[]): boolean {
  return row[1] === 'watch' && isEmpty(row[4]) && row[5] !== '';
}

/** Cleared by hand: neither a charge nor unreadable. */
export function isBlankRow(row: readonly unknown[]): boolean {
  return row.every(isEmpty);
}
