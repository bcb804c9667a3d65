/** How outcomes become cell values: the enrichment columns and the =FINDEMAIL fields. Pure. */
import { type LookupResult, type ServiceError, withAdvice } from '../lookup/contract';
import { RETRY_PATH } from './product';
import { quoteService, withoutStop } from './text';

export const STATUS = {
  notFound: 'NOT_FOUND',
  unprocessable: 'UNPROCESSABLE',
  invalidUrl: 'INVALID_URL',
  error: 'ERROR',
} as const;

/** Outcome of one row, as the add-on understands it (service results plus local rejections). */
export type RowOutcome = LookupResult | { kind: 'invalid'; reason: string } | ServiceError;

export const BASE_HEADERS = ['Email', 'Email status', 'Catch-all', 'Note'] as const;
export const EXTRA_HEADERS = ['Account type', 'Name'] as const;

/** Offsets of the output cells in an output row (Email first), in the order of BASE_HEADERS and EXTRA_HEADERS. */
export const OUT = { email: 0, status: 1, catchAll: 2, note: 3, accountType: 4, name: 5 } as const;
/** Offsets in a row read from the sheet: the URL cell, then the output cells. */
export const CELL = {
  url: 0,
  email: 1 + OUT.email,
  status: 1 + OUT.status,
  catchAll: 1 + OUT.catchAll,
} as const;

export function outputHeaders(extraFields: boolean): string[] {
  return extraFields ? [...BASE_HEADERS, ...EXTRA_HEADERS] : [...BASE_HEADERS];
}

/** Offsets of the output columns written as plain text: all but Catch-all, which keeps real booleans. */
export function textColumnOffsets(count: number): number[] {
  return Object.values(OUT).filter((offset) => offset !== OUT.catchAll && offset < count);
}

/** Whether a written output row needs the plain-text format first (Catch-all holds a real boolean). */
export function rowNeedsPlainText(row: unknown[]): boolean {
  return row.some((value, offset) => offset !== OUT.catchAll && reinterpretedBySheets(value));
}

/**
 * Sheets reads a string written with setValues as if typed: "=…" becomes a formula, "+…"/"-…" a formula or
 * number, "2024-05-01…" a date, "TRUE" a boolean, a leading apostrophe disappears. Such text needs the
 * plain-text format first to stay the text it was. Errs on the side of true (leading space, "@", ".").
 */
export function reinterpretedBySheets(value: unknown): boolean {
  return typeof value === 'string' && /^(?:[\s=+\-'@\d.]|(?:true|false)\s*$)/i.test(value);
}

/** The Email status a row gets for an outcome. */
export function statusOf(outcome: RowOutcome): string {
  switch (outcome.kind) {
    case 'found':
      return outcome.emailStatus || 'FOUND';
    case 'not_found':
      return STATUS.notFound;
    case 'unprocessable':
      return STATUS.unprocessable;
    case 'invalid':
      return STATUS.invalidUrl;
    case 'error':
      return outcome.error === 'bad_request' ? STATUS.invalidUrl : STATUS.error;
  }
}

export function noteOf(outcome: RowOutcome): string {
  switch (outcome.kind) {
    case 'found':
      return '';
    case 'not_found':
      return 'No address found for this profile.';
    case 'unprocessable': {
      const whose = outcome.profile.name ? ` of ${outcome.profile.name}` : '';
      return `The service could not process this profile${whose} (HTTP 422).${quoteService(outcome.message)}`;
    }
    case 'invalid':
      return `Not looked up: ${withoutStop(outcome.reason)}.`;
    case 'error':
      return outcome.message;
  }
}

/** The Note of a bulk run's row: an error's note also says what to do (a formula cell has its own words). */
function rowNoteOf(outcome: RowOutcome): string {
  // A profile held back after lost answers says itself when to try again.
  if (outcome.kind !== 'error' || outcome.notBefore !== undefined) return noteOf(outcome);
  return outcome.error === 'bad_request'
    ? withAdvice(outcome, 'Check the profile URL in this row.')
    : withAdvice(outcome, `To try again: ${RETRY_PATH}.`);
}

/** The enrichment row: Email, Email status, Catch-all (a real boolean, or empty), Note [, Account type, Name]. */
export function enrichmentRow(outcome: RowOutcome, extraFields: boolean): Array<string | boolean> {
  const found = outcome.kind === 'found';
  const row: Array<string | boolean> = [
    found ? outcome.email : '',
    statusOf(outcome),
    found ? outcome.catchAll : '',
    rowNoteOf(outcome),
  ];
  if (extraFields) {
    const profile =
      outcome.kind === 'found' || outcome.kind === 'not_found' || outcome.kind === 'unprocessable'
        ? outcome.profile
        : {};
    row.push(found ? outcome.accountType : '', profile.name ?? '');
  }
  return row;
}

export const FIELD_NAMES = [
  'email',
  'status',
  'catch_all',
  'account_type',
  'name',
  'updated_at',
  'note',
] as const;
export type FieldName = (typeof FIELD_NAMES)[number];

export function parseFields(
  spec: unknown,
): { ok: true; fields: FieldName[] | null } | { ok: false; message: string } {
  if (spec === undefined || spec === null || spec === '') return { ok: true, fields: null };
  if (typeof spec !== 'string') {
    return {
      ok: false,
      message: `fields must be text such as "email,status,catch_all". Valid fields: ${FIELD_NAMES.join(', ')}.`,
    };
  }
  const names = spec
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(FIELD_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    return {
      ok: false,
      message: `Unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}. Valid fields: ${FIELD_NAMES.join(', ')}.`,
    };
  }
  return { ok: true, fields: names as FieldName[] };
}

/** The single value of the plain `=FINDEMAIL(url)`: the address, or a marker anyone can filter on. */
export function summaryValue(outcome: RowOutcome | { kind: 'empty' }): string {
  switch (outcome.kind) {
    case 'empty':
      return '';
    case 'found':
      return outcome.email;
    case 'not_found':
      return STATUS.notFound;
    default:
      return `${statusOf(outcome)}: ${noteOf(outcome).replace(/^Not looked up: /, '')}`;
  }
}

/** One row of `=FINDEMAIL(url, fields)`. Without a `status` field the `email` field carries the marker. */
export function fieldValues(
  outcome: RowOutcome | { kind: 'empty' },
  fields: FieldName[],
): Array<string | boolean> {
  if (outcome.kind === 'empty') return fields.map(() => '');
  const hasStatus = fields.includes('status');
  const profile =
    outcome.kind === 'found' || outcome.kind === 'not_found' || outcome.kind === 'unprocessable'
      ? outcome.profile
      : {};
  return fields.map((field) => {
    switch (field) {
      case 'email':
        return outcome.kind === 'found' ? outcome.email : hasStatus ? '' : summaryValue(outcome);
      case 'status':
        return statusOf(outcome);
      case 'catch_all':
        return outcome.kind === 'found' ? outcome.catchAll : '';
      case 'account_type':
        return outcome.kind === 'found' ? outcome.accountType : '';
      case 'name':
        return profile.name ?? '';
      case 'updated_at':
        return profile.updatedAt ?? '';
      // 'note'
      default:
        return noteOf(outcome);
    }
  });
}
