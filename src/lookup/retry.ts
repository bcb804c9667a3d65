/** Bounded exponential backoff for retryable failures (500, 429, transport, time-out). Pure. */

export interface RetryPolicy {
  /** Total tries of one request, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Delay before try number `attempt` (2 = first retry). */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 2));
}
