/**
 * Reading a JSON answer of the service (shared/service-spec.md §2 and §7): the object, its error text, the profile
 * record, and whether a 200 has the contract's success shape. Pure.
 */
import { cut, FIELD_LIMITS } from './bounds';
import type { ProfileInfo } from './contract';

export function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The body's error text, bounded: it reaches notes, the run's message and its stored state. */
export function errorText(body: Record<string, unknown> | undefined): string | undefined {
  const text = body?.error ?? body?.message;
  return typeof text === 'string' && text.trim() !== '' ? cut(text.trim(), FIELD_LIMITS.message) : undefined;
}

export function readProfile(value: unknown): ProfileInfo {
  if (!value || typeof value !== 'object') return {};
  const record = value as Record<string, unknown>;
  const profile: ProfileInfo = {};
  if (typeof record.name === 'string' && record.name.trim() !== '') profile.name = record.name.trim();
  if (typeof record.updated_at === 'string') profile.updatedAt = record.updated_at;
  return profile;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Absent, null or of this type. */
export function optional(value: unknown, type: 'string' | 'boolean'): boolean {
  return value === undefined || value === null || typeof value === type;
}

/**
 * Why a 200 body is not the contract's success shape (§2.2), or undefined when it is. Required: `status` equal to
 * "success", `email_address` a string or null (empty or null: no address), `profile` an object. The other fields
 * may be absent or null (a not-found answer carries nulls), but when given they have the contract's types.
 */
export function offContract(json: Record<string, unknown>): string | undefined {
  if (json.status !== 'success') {
    return json.status === undefined
      ? 'no "status"'
      : `"status" is ${JSON.stringify(json.status).slice(0, 40)}`;
  }
  if (!('email_address' in json) || !optional(json.email_address, 'string'))
    return '"email_address" is missing or not text';
  if (!isRecord(json.profile)) return '"profile" is missing';
  const wrong = (
    [
      ['network_url', json.network_url, 'string'],
      ['email_status', json.email_status, 'string'],
      ['account_type', json.account_type, 'string'],
      ['is_catch_all', json.is_catch_all, 'boolean'],
      ['profile.name', json.profile.name, 'string'],
      ['profile.updated_at', json.profile.updated_at, 'string'],
    ] as const
  ).find(([, value, type]) => !optional(value, type));
  if (wrong) return `"${wrong[0]}" is not ${wrong[2] === 'string' ? 'text' : 'true or false'}`;
  if (typeof json.email_address === 'string' && json.email_address.trim().length > FIELD_LIMITS.email)
    return `"email_address" is longer than ${FIELD_LIMITS.email} characters`;
  return undefined;
}
