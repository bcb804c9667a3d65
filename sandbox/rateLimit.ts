/**
 * The sandbox's rate limit: a 429 (with Retry-After) above `maxInFlight` requests under way, or above
 * `maxPerSecond` requests admitted in the last second (a sliding window). Only admitted requests count: a client
 * that keeps retrying is not locked out by its own refusals.
 */

export interface RateLimit {
  /** Requests to the endpoint under way at once; the next one gets 429. */
  maxInFlight?: number;
  /** Requests admitted within any 1,000 ms window; the next one gets 429. */
  maxPerSecond?: number;
  /** Retry-After (seconds) of an in-flight refusal (default 1); a per-second refusal says when the window frees. */
  retryAfterSeconds?: number;
}

export const DEFAULT_RETRY_AFTER_SECONDS = 1;
const WINDOW_MS = 1000;

export type LimitReason = 'inFlightLimit' | 'perSecondLimit';
export type Admission =
  | { admitted: true }
  | { admitted: false; reason: LimitReason; retryAfterSeconds: number };

function checkCount(name: string, value: unknown, min: number): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= min)) {
    throw new RangeError(
      `faults.rateLimit.${name} must be a whole number of at least ${min}, got ${String(value)}`,
    );
  }
}

export function validateRateLimit(limit: RateLimit | undefined): RateLimit | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit !== 'object' || limit === null) throw new RangeError('faults.rateLimit must be an object');
  checkCount('maxInFlight', limit.maxInFlight, 1);
  checkCount('maxPerSecond', limit.maxPerSecond, 1);
  checkCount('retryAfterSeconds', limit.retryAfterSeconds, 0);
  const copy: RateLimit = {};
  if (limit.maxInFlight !== undefined) copy.maxInFlight = limit.maxInFlight;
  if (limit.maxPerSecond !== undefined) copy.maxPerSecond = limit.maxPerSecond;
  if (limit.retryAfterSeconds !== undefined) copy.retryAfterSeconds = limit.retryAfterSeconds;
  return copy;
}

export class RateLimiter {
  private underWay = 0;
  /** Arrival times of the admitted requests of the last window, oldest first. */
  private recent: number[] = [];

  /** Decides a request's fate on arrival; an admitted request must be released when it ends. */
  admit(limit: RateLimit | undefined, now: number): Admission {
    while (this.recent.length > 0 && this.recent[0] <= now - WINDOW_MS) this.recent.shift();
    if (limit?.maxInFlight !== undefined && this.underWay >= limit.maxInFlight) {
      return {
        admitted: false,
        reason: 'inFlightLimit',
        retryAfterSeconds: limit.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      };
    }
    if (limit?.maxPerSecond !== undefined && this.recent.length >= limit.maxPerSecond) {
      // The oldest admitted request leaves the window at recent[0] + WINDOW_MS.
      const wait = this.recent[this.recent.length - limit.maxPerSecond] + WINDOW_MS - now;
      return {
        admitted: false,
        reason: 'perSecondLimit',
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
      };
    }
    this.underWay += 1;
    this.recent.push(now);
    return { admitted: true };
  }

  release(): void {
    this.underWay = Math.max(0, this.underWay - 1);
  }

  get inFlight(): number {
    return this.underWay;
  }
}
