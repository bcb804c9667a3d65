/**
 * Bounds on every field of a result the add-on keeps. A property value holds at most 9 KB (Apps Script throws
 * "Argument too large: value" above it, https://developers.google.com/apps-script/guides/services/quotas), and one
 * write carries a whole batch: one oversized answer (a 10 KB name) would lose every result of its batch. Pure.
 */
import type { LookupResult, ProfileInfo } from './contract';

/** UTF-16 code units per field; a longer value is cut and ends with CUT_MARKER. */
export const FIELD_LIMITS = {
  /** A person's name: far above any real one. */
  name: 200,
  /** RFC 5321 caps an address at 64 + 1 + 255 characters; a longer one is refused, not cut (lookup.ts). */
  email: 320,
  /** `email_status`, `account_type`: single words in the contract (VALID, professional). */
  status: 40,
  /** `updated_at`: an ISO 8601 timestamp is 25 characters. */
  updatedAt: 40,
  /** The 422 `message`: one sentence in the contract. */
  message: 500,
} as const;

export const CUT_MARKER = '…';

/** The text itself when within `limit`, else its first `limit - 1` code units (no half surrogate pair) and "…". */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit - CUT_MARKER.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + CUT_MARKER;
}

function boundProfile(profile: ProfileInfo): ProfileInfo {
  const bounded: ProfileInfo = {};
  if (profile.name !== undefined) bounded.name = cut(profile.name, FIELD_LIMITS.name);
  if (profile.updatedAt !== undefined) bounded.updatedAt = cut(profile.updatedAt, FIELD_LIMITS.updatedAt);
  return bounded;
}

/** The result with every field within FIELD_LIMITS. */
export function boundResult(result: LookupResult): LookupResult {
  const profile = boundProfile(result.profile);
  switch (result.kind) {
    case 'found':
      return {
        kind: 'found',
        email: cut(result.email, FIELD_LIMITS.email),
        emailStatus: cut(result.emailStatus, FIELD_LIMITS.status),
        catchAll: result.catchAll,
        accountType: cut(result.accountType, FIELD_LIMITS.status),
        profile,
      };
    case 'not_found':
      return { kind: 'not_found', profile };
    case 'unprocessable':
      return { kind: 'unprocessable', message: cut(result.message, FIELD_LIMITS.message), profile };
  }
}
