/** Compact, versioned JSON for cached lookup results (property values are limited to 9 KB; every byte counts toward 500 KB). */
import type { LookupResult } from './lookup';

// Version 2 stores savedAt in milliseconds: a re-check must tell a result stored a moment before its run started
// from one the run stored itself. Version 1 (seconds) is still read.
const VERSION = 2;
const SECONDS_VERSION = 1;

export interface CachedResult {
  result: LookupResult;
  /** Milliseconds since the epoch: for least-recently-stored eviction and for a re-check. */
  savedAt: number;
}

export function encodeResult(result: LookupResult, savedAtMs: number): string {
  const profile = result.profile;
  const row: unknown[] = [
    VERSION,
    result.kind[0],
    profile.name ?? '',
    profile.updatedAt ?? '',
    Math.floor(savedAtMs),
  ];
  if (result.kind === 'found')
    row.push(result.email, result.emailStatus, result.catchAll ? 1 : 0, result.accountType);
  if (result.kind === 'unprocessable') row.push(result.message);
  return JSON.stringify(row);
}

export function decodeResult(text: string | null | undefined): CachedResult | undefined {
  if (!text) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(row) || (row[0] !== VERSION && row[0] !== SECONDS_VERSION)) return undefined;
  const [version, kind, name, updatedAt, stored] = row as [number, string, string, string, number];
  const savedAt = version === SECONDS_VERSION ? stored * 1000 : stored;
  const profile = { ...(name ? { name } : {}), ...(updatedAt ? { updatedAt } : {}) };
  const str = (index: number) => (typeof row[index] === 'string' ? (row[index] as string) : '');
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
    default:
      return undefined;
  }
}
