/** Compact, versioned JSON for cached lookup results (a property value holds 9 KB, all of them 500 KB). */
import { parseStored } from '../core/storedJson';
import { boundResult, type LookupResult } from '../lookup/result';

/** A re-check buys again what was stored before it started. */
export interface CachedResult {
  result: LookupResult;
  savedAt: number;
}

// Version 2 is in ms: a re-check tells a result stored just before its run from its own. Version 1: seconds.
const VERSION = 2;
const SECONDS_VERSION = 1;

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
  const str = (index: number): string => (typeof row[index] === 'string' ? row[index] : '');
  const savedAt = version === SECONDS_VERSION ? stored * 1000 : stored;
  const [name, updatedAt] = [str(2), str(3)];
  const profile = { ...(name ? { name } : {}), ...(updatedAt ? { updatedAt } : {}) };
  let result: LookupResult;
  if (kind === 'f')
    result = {
      kind: 'found',
      email: str(5),
      emailStatus: str(6),
      catchAll: row[7] === 1,
      accountType: str(8),
      profile,
    };
  else if (kind === 'n') result = { kind: 'not_found', profile };
  else if (kind === 'u') result = { kind: 'unprocessable', message: str(5), profile };
  else if (kind === 'x' || kind === 'l')
    result = { kind: 'unusable', lost: kind === 'l', message: str(5), profile };
  else return undefined;
  return { savedAt, result };
}
