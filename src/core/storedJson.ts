/**
 * JSON the add-on kept (a property, a cache entry) read back with its fields checked, never assumed: a record cut
 * short, written by another version or edited by hand reads as nothing (null), not as a typed value it is not.
 * Pure.
 */

type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'null';

/** What a field must hold: one type or two ('number|null'); '?' at the end when it may be absent. */
export type FieldSpec = JsonType | `${JsonType}?` | `${JsonType}|${JsonType}` | `${JsonType}|${JsonType}?`;

/** Every field of T with what it must hold: a field added to T does not compile until its check is written. */
export type FieldSpecs<T> = { readonly [K in keyof T]-?: FieldSpec };

/** The value `raw` holds, or undefined when there is none or it is not JSON. */
export function parseStored(raw: string | null | undefined): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): JsonType | 'undefined' | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' ||
    type === 'number' ||
    type === 'boolean' ||
    type === 'object' ||
    type === 'undefined'
    ? type
    : 'other';
}

function fits(value: unknown, spec: FieldSpec): boolean {
  const optional = spec.endsWith('?');
  const found = typeOf(value);
  if (found === 'undefined') return optional;
  return (optional ? spec.slice(0, -1) : spec).split('|').includes(found);
}

/** The value as a T when it is an object whose every field holds what `fields` says; null otherwise. */
export function checkedRecord<T extends object>(value: unknown, fields: FieldSpecs<T>): T | null {
  if (!isRecord(value)) return null;
  for (const [name, spec] of Object.entries(fields) as Array<[string, FieldSpec]>)
    if (!fits(value[name], spec)) return null;
  return value as T;
}

/** The record stored as `raw` when it is JSON with the fields `fields` says; null otherwise. */
export function storedRecord<T extends object>(
  raw: string | null | undefined,
  fields: FieldSpecs<T>,
): T | null {
  return checkedRecord<T>(parseStored(raw), fields);
}
