/**
 * =FINDEMAIL's account check, kept in the document cache (pure, through the DocumentCache port): while no lookup
 * proved the owner's account works (a charged answer in the last ACCOUNT_OK_SECONDS, ACCOUNT_OK_KEY), one cell at a
 * time (ACCOUNT_CHECK_KEY) sends a single request first; so after a 401 or 402, or on a sheet whose owner has no
 * credits, hundreds of cells evaluating at once send one failing request, not hundreds.
 */
import { stableHash } from '../core/hash';
import { ACCOUNT_OK_SECONDS } from '../core/limits';
import { ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, HALT_KEY } from '../core/propertyNames';
import { type Halt, parseHalt } from './claims';
import type { DocumentCache } from './ports';

/** The cache keys read together with the claims, in the same call. */
export const ACCOUNT_CHECK_MARKERS = [ACCOUNT_CHECK_KEY, ACCOUNT_OK_KEY, HALT_KEY];

/**
 * What the markers allow a caller with `free` unclaimed keys: claim them, claim them and check the account with a
 * single request first (no other cell is checking it), wait (another cell is), or nothing (the formulas are halted
 * for this key).
 */
export type Admission = 'claim' | 'check account' | 'wait' | { halt: Halt };

export function admission(markers: Record<string, string>, apiKey: string, free: number): Admission {
  const halt = parseHalt(markers[HALT_KEY], apiKey);
  if (halt) return { halt };
  if (free === 0 || markers[ACCOUNT_OK_KEY] === stableHash(apiKey)) return 'claim';
  return markers[ACCOUNT_CHECK_KEY] ? 'wait' : 'check account';
}

/** Whether a cell waiting for the account check may claim now: the check ended, or proved the account works. */
export function accountCheckOver(markers: Record<string, string>, apiKey: string): boolean {
  return !markers[ACCOUNT_CHECK_KEY] || markers[ACCOUNT_OK_KEY] === stableHash(apiKey);
}

/** Under the lock, with the claims: this caller checks the account; its marker lives as long as its claims. */
export function beginAccountCheck(cache: DocumentCache, seconds: number): void {
  cache.put(ACCOUNT_CHECK_KEY, '1', seconds);
}

/** The check's answer came back: a charged one proves the account works for ACCOUNT_OK_SECONDS. */
export function endAccountCheck(cache: DocumentCache | null, apiKey: string, charged: boolean): void {
  if (charged) cache?.put(ACCOUNT_OK_KEY, stableHash(apiKey), ACCOUNT_OK_SECONDS);
  cache?.remove(ACCOUNT_CHECK_KEY);
}

/** The check ended without an answer (nothing sent, or a failure): the next cell checks. */
export function dropAccountCheck(cache: DocumentCache | null): void {
  cache?.remove(ACCOUNT_CHECK_KEY);
}
