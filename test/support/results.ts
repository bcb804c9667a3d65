/** Results as the service's answers make them, for tests. */
import type { LookupResult } from '../../src/lookup/result';

/** A found address: VALID, not catch-all, a professional account. */
export function found(email: string): LookupResult {
  return {
    kind: 'found',
    email,
    emailStatus: 'VALID',
    catchAll: false,
    accountType: 'professional',
    profile: {},
  };
}
