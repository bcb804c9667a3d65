/** Stored JSON read back with its fields checked: a record cut short, of another version or hand-edited is null. Pure. */

type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'null';

/** What a field must hold: one type or two ('number|null'); '?' at the end when it may be absent. */
export type FieldSpec = JsonType | `${JsonType}?` | `${JsonType}|${JsonType}` | `${JsonType}|${JsonType}?`;

/** Every field of T with what it must hold: a field added to T does not compile until its check is written. */
export type FieldSpecs<T> = { readonly [K in keyof T]-?: FieldSpec };

export function parseStored(raw: string | null | undefined): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fits(value: unknown, spec: FieldSpec): boolean {
  const optional = spec.endsWith('?');
  if (value === undefined) return optional;
  const found = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return (optional ? spec.slice(0, -1) : spec).split('|').includes(found);
}

export function checkedRecord<T extends object>(value: unknown, fields: FieldSpecs<T>): T | null {
  if (!isRecord(value)) return null;
  for (const [name, spec] of Object.entries(fields) as Array<[string, FieldSpec]>)
    if (!fits(value[name], spec)) return null;
  return value as T;
}

export function storedRecord<T extends object>(
  raw: string | null | undefined,
  fields: FieldSpecs<T>,
): T | null {
  return checkedRecord<T>(parseStored(raw), fields);
}
