/** The cells the add-on writes: the output columns, its own statuses, the =FINDEMAIL fields. Pure. */
export const STATUS = {
  notFound: 'NOT_FOUND',
  unprocessable: 'UNPROCESSABLE',
  invalidUrl: 'INVALID_URL',
  error: 'ERROR',
} as const;

export const BASE_HEADERS = ['Email', 'Email status', 'Catch-all', 'Note'] as const;
export const EXTRA_HEADERS = ['Account type', 'Name'] as const;

/** Offsets of the output cells in an output row (Email first), in the order of BASE_HEADERS and EXTRA_HEADERS. */
export const OUT = { email: 0, status: 1, catchAll: 2, note: 3, accountType: 4, name: 5 } as const;
/** Offsets in a row read from the sheet: the URL cell, then the output cells. */
export const CELL = { url: 0, email: 1 + OUT.email, status: 1 + OUT.status } as const;

export function outputHeaders(extraFields: boolean): string[] {
  return extraFields ? [...BASE_HEADERS, ...EXTRA_HEADERS] : [...BASE_HEADERS];
}

/** Offsets of the output columns written as plain text: all but Catch-all, which keeps real booleans. */
export function textColumnOffsets(count: number): number[] {
  return Object.values(OUT).filter((offset) => offset !== OUT.catchAll && offset < count);
}

export function rowNeedsPlainText(row: unknown[]): boolean {
  return row.some((value, offset) => offset !== OUT.catchAll && reinterpretedBySheets(value));
}

/** setValues reads text as typed ("=…" a formula, "2024-05-01" a date, "TRUE" a boolean, a leading ' lost): errs to true. */
export function reinterpretedBySheets(value: unknown): boolean {
  return typeof value === 'string' && /^(?:[\s=+\-'@\d.]|(?:true|false)\s*$)/i.test(value);
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
  const valid = `Valid fields: ${FIELD_NAMES.join(', ')}.`;
  if (typeof spec !== 'string')
    return { ok: false, message: `fields must be text such as "email,status,catch_all". ${valid}` };
  const names = spec
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(FIELD_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    const given = unknown.map((n) => `"${n}"`).join(', ') || '(none given)';
    return { ok: false, message: `Unknown field${unknown.length === 1 ? '' : 's'} ${given}. ${valid}` };
  }
  return { ok: true, fields: names as FieldName[] };
}
