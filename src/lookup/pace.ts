/** How many requests are at the service at once: grows while the service keeps up, falls when it pushes back. Pure. */
import type { PaceReason } from '../api';

export interface Pace {
  /** A run's: across its slices. */
  size: number;
  /** What pushed back last: after a 429 the figure holds (the service said its limit), else it creeps up. */
  reason?: PaceReason;
  /** The latest Retry-After (epoch ms). */
  notBefore?: number;
  /** The last batch's ms and its requests: k times as many take at most k times as long, however many run at once. */
  lastMs?: number;
  lastSent?: number;
}

export interface BatchSeen {
  sent: number;
  /** Requests of other executions of the run at the service meanwhile. */
  alongside: number;
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

/** One profile's own 500 is that profile's error; many in a batch are the service's. */
export const serviceFailing = (failed: number, sent: number) => failed >= Math.max(3, Math.ceil(sent / 4));

/** `share`: the most a batch holds (a run's slice sends its share of the figure). */
export function observe(pace: Pace, seen: BatchSeen, share: number, cap: number): Pace {
  const next: Pace = { ...pace, lastMs: seen.ms, lastSent: seen.sent };
  if (seen.retryAfterUntil > (pace.notBefore ?? 0)) next.notBefore = seen.retryAfterUntil;
  if (seen.refused > 0) {
    // The service took what it did not refuse: its limit, as far as this batch can tell.
    next.size = Math.max(1, seen.sent + seen.alongside - seen.refused);
    next.reason = 'rate_limited';
  } else if (seen.lost || serviceFailing(seen.failed, seen.sent)) {
    next.size = Math.max(1, pace.size - Math.ceil(seen.sent / 2));
    next.reason = 'connection_failures';
  } else if (seen.sent >= share && pace.reason !== 'rate_limited') {
    // Fourfold a round until a push-back; after lost connections one a batch. Past a 429 it holds: each probe above
    // the service's limit would stop the whole run for a Retry-After.
    next.size = Math.min(cap, pace.size + (pace.reason ? 1 : 3 * share));
    if (next.size >= cap) delete next.reason;
  }
  return next;
}

/** Requests a batch may hold to end within `leftMs`: before any was timed, 10 at once at 4 s each. */
export function fitting(pace: Pace, leftMs: number): number {
  const rounds = Math.floor(leftMs / Math.max(1, pace.lastMs ?? SLOWEST_ASSUMED_MS));
  return Math.max(0, rounds * Math.max(FEWEST_AT_ONCE, pace.lastMs ? (pace.lastSent ?? 0) : 0));
}
