/** How many requests are at the service at once: grows while the service keeps up, falls when it pushes back. Pure. */
import type { PaceReason } from '../api';

export interface Pace {
  /** A run's: across its slices. */
  size: number;
  /** What pushed back last: after a 429 the figure holds (the service said its limit), else it creeps up. */
  reason?: PaceReason;
  /** The latest Retry-After (epoch ms). */
  notBefore?: number;
  /** The last batch's ms: a request took at most that long. */
  lastMs?: number;
}

export interface BatchSeen {
  sent: number;
  ms: number;
  /** 429s (never charged). */
  refused: number;
  failed: number;
  /** fetchAll threw: every answer lost. */
  lost: boolean;
  retryAfterUntil: number;
}

/** fetchAll's parallelism is undocumented (reports: 10 to the whole batch); requests commonly take 2-4 s. */
export const FEWEST_AT_ONCE = 10;
export const SLOWEST_ASSUMED_MS = 4000;

/** `share`: the most a batch holds (a run's slice sends its share of the figure). */
export function observe(pace: Pace, seen: BatchSeen, share: number, cap: number): Pace {
  const next: Pace = { ...pace, lastMs: seen.ms };
  if (seen.retryAfterUntil > (pace.notBefore ?? 0)) next.notBefore = seen.retryAfterUntil;
  // One profile's own 500 is that profile's error, not the service's.
  const failing = seen.failed >= Math.max(3, Math.ceil(seen.sent / 4));
  if (seen.refused > 0) {
    next.size = Math.max(1, pace.size - seen.refused);
    next.reason = 'rate_limited';
  } else if (seen.lost || failing) {
    next.size = Math.max(1, pace.size - Math.ceil(seen.sent / 2));
    next.reason = 'connection_failures';
  } else if (seen.sent >= share && pace.reason !== 'rate_limited') {
    // Doubles each round until a push-back; after lost connections it creeps up one a batch. Past a 429 it holds:
    // each probe above the service's limit would stop the whole run for a Retry-After.
    next.size = Math.min(cap, pace.size + (pace.reason ? 1 : share));
    if (next.size >= cap) delete next.reason;
  }
  return next;
}

/** Requests a batch may hold to end within `leftMs`. */
export function fitting(pace: Pace, leftMs: number): number {
  const rounds = Math.floor(leftMs / Math.max(1, pace.lastMs ?? SLOWEST_ASSUMED_MS));
  return Math.max(0, rounds * FEWEST_AT_ONCE);
}
