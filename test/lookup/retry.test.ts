/** The backoff between tries of a retryable failure (src/lookup/retry.ts). */

import { DEFAULT_RETRY } from '../../src/core/limits';
import { type RetryPolicy, retryDelayMs } from '../../src/lookup/retry';

describe('retryDelayMs', () => {
  const policy: RetryPolicy = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 4_000 };

  it('waits the base delay before the first retry, then doubles', () => {
    expect([2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt))).toEqual([500, 1_000, 2_000, 4_000]);
  });

  it('never waits longer than the maximum, however many tries', () => {
    expect(retryDelayMs(policy, 6)).toBe(4_000);
    expect(retryDelayMs(policy, 60)).toBe(4_000);
  });

  it('a first try (or a nonsense attempt number) waits no more than the base delay', () => {
    expect(retryDelayMs(policy, 1)).toBe(500);
    expect(retryDelayMs(policy, 0)).toBe(500);
  });

  it("the default policy's retries of one request wait 0.5 s and 1 s: both fit a formula's 30 s", () => {
    const waits = Array.from({ length: DEFAULT_RETRY.maxAttempts - 1 }, (_, i) =>
      retryDelayMs(DEFAULT_RETRY, i + 2),
    );
    expect(waits).toEqual([500, 1_000]);
  });
});
