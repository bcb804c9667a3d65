/** Compact, versioned JSON for cached lookup results (property values are limited to 9 KB; every byte counts toward 500 KB). */

import { FIELD_LIMITS } from '../core/limits';
import { parseStored } from '../core/storedJson';
import type { CachedResult } from '../lookup/ports';
import { boundResult, type LookupResult } from '../lookup/result';

// Version 2 stores savedAt in milliseconds: a re-check must tell a result stored a moment before its run started
// from one the run stored itself. Version 1 (seconds) is still read.
const VERSION = 2;
const SECONDS_VERSION = 1;

/**
 * The most UTF-8 bytes an encoded result can take: every field at its bound (FIELD_LIMITS), each code unit written
 * as at most 6 bytes (JSON's `\u001f` escape; a non-ASCII code unit is at most 3 bytes, a surrogate pair 4), and
 * the array's fixed part. Far below a property value's 9 KB, so no answer can make a batch's write fail.
 */
export const MAX_ENCODED_BYTES =
  6 *
    (FIELD_LIMITS.name +
      FIELD_LIMITS.updatedAt +
      Math.max(FIELD_LIMITS.email + 2 * FIELD_LIMITS.status, FIELD_LIMITS.message)) +
  64;

export function encodeResult(unbounded: LookupResult, savedAtMs: number): string {
  const result = boundResult(unbounded);
  const profile = result.profile;
  const row: unknown[] = [
    VERSION,
    result.kind === 'unusable' ? (result.lost ? 'l' : 'x') : result.kind[0],
    profile.name ?? '',
    profile.updatedAt ?? '',
    Math.floor(savedAtMs),
  ];
  if (result.kind === 'found')
    row.push(result.email, result.emailStatus, result.catchAll ? 1 : 0, result.accountType);
  if (result.kind === 'unprocessable' || result.kind === 'unusable') row.push(result.message);
  return JSON.stringify(row);
}

export function decodeResult(text: string | null | undefined): CachedResult | undefined {
  const row = parseStored(text);
  if (!Array.isArray(row) || (row[0] !== VERSION && row[0] !== SECONDS_VERSION)) return undefined;
  const [version, kind, , , stored]: unknown[] = row;
  if (typeof stored !== 'number') return undefined;
  const str = (index: number) => {
    const cell: unknown = row[index];
    return typeof cell === 'string' ? cell : '';
  };
  const savedAt = version === SECONDS_VERSION ? stored * 1000 : stored;
  const [name, updatedAt] = [str(2), str(3)];
  const profile = { ...(name ? { name } : {}), ...(updatedAt ? { updatedAt } : {}) };
  switch (kind) {
    case 'f':
      return {
        savedAt,
        result: {
          kind: 'found',
          email: str(5),
          emailStatus: str(6),
          catchAll: row[7] === 1,
          accountType: str(8),
          profile,
        },
      };
    case 'n':
      return { savedAt, result: { kind: 'not_found', profile } };
    case 'u':
      return { savedAt, result: { kind: 'unprocessable', message: str(5), profile } };
    case 'x':
    case 'l':
      return { savedAt, result: { kind: 'unusable', lost: kind === 'l', message: str(5), profile } };
    default:
      return undefined;
  }
}
