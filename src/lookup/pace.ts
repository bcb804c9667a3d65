/**
 * Adaptive requests per fetchAll (issue 12): the batch size of the bulk run and of =FINDEMAIL ranges. Pure.
 *
 * fetchAll waits for the slowest answer of its batch, and loses every answer of the batch (already charged) when
 * one connection fails, so the size is the lever both ways. The controller starts modestly and grows fourfold
 * (twofold once an answer was lost) while batches come back fast and clean; a 429 or 5xx halves it and sets a
 * ceiling (what the service took) above which it grows by a twentieth a batch; a batch lost to a transport failure halves it too, and the rate of such losses caps it so that the
 * answers expected to be lost stay under LOSS_TARGET per request. A Retry-After holds every batch back. A bulk
 * run, and a formula range worth it (`probeWorthIt`), send a free connection probe first when the pace knows
 * nothing (`observeProbe`).
 */

import { PACE_PREFIX } from '../core/propertyNames';
import type { BatchSample, BatchSizer, DocumentCache } from './ports';

export interface PaceState {
  /** Requests in the next batch. */
  size: number;
  /** Above this the size grows by a twentieth per clean batch: the requests of the last batch a 429 or 5xx met that got through. */
  ceiling: number;
  /** Requests observed, and batches lost to a transport failure among them. */
  requests: number;
  lost: number;
  /** The fastest clean batch: what "fast" is measured against (ms). */
  fastestMs: number;
  /** Epoch ms before which no batch starts: the service's last Retry-After (the next slice honours it too). */
  notBefore?: number;
}

/**
 * Requests in the first batch of a bulk run when nothing is known (no connection probe went out first, see
 * `observeProbe`): one lost batch costs little.
 */
export const PACE_START = 4;
/** Answers expected to be lost to transport failures, per request sent, at most (2 %). */
export const LOSS_TARGET = 0.02;
/** A clean batch is fast when it took at most this many times the fastest clean batch. */
export const FAST_FACTOR = 4;
/** Requests assumed clean before the first observation (keeps one early failure from meaning "always"). */
const PRIOR_REQUESTS = 10;

/**
 * The largest batch whose expected loss stays under LOSS_TARGET per request: with a per-request failure rate f,
 * a batch of n loses the other answers when any request fails, (1-f)(1-(1-f)^(n-1)) per request.
 */
export function lossCap(state: Pick<PaceState, 'requests' | 'lost'>, cap: number): number {
  const q = 1 - state.lost / (state.requests + PRIOR_REQUESTS);
  // NaN (no loss yet, or losses so frequent that no batch keeps under the target) reads as the cap or 1.
  const n = 1 + Math.floor(Math.log(1 - LOSS_TARGET / q) / Math.log(q));
  return q < 1 ? Math.min(cap, n || 1) : cap;
}

/** The next state after a batch. */
export function observePace(state: PaceState, sample: BatchSample, cap: number): PaceState {
  const next = { ...state };
  next.requests += sample.size;
  if (sample.lostBatch) next.lost += 1;
  const limit = Math.min(cap, lossCap(next, cap));
  if (sample.lostBatch) {
    next.size = Math.max(1, Math.min(Math.floor(state.size / 2), limit));
  } else if (sample.throttled) {
    // What the service took is the ceiling; the size halves below it.
    next.ceiling = Math.max(1, sample.size - sample.throttled);
    next.size = Math.floor(Math.min(state.size, sample.size) / 2);
  } else if (sample.failures === 0) {
    const fast = !state.fastestMs || sample.durationMs <= FAST_FACTOR * state.fastestMs;
    next.fastestMs = Math.min(sample.durationMs, state.fastestMs || sample.durationMs);
    // Only a batch as big as the size asked for says the size works (a window's last batch may be smaller).
    if (fast && sample.size >= state.size) {
      // Fourfold while no answer was ever lost to a connection failure, twofold after.
      next.size =
        state.size < state.ceiling
          ? Math.min(state.size * (state.lost ? 2 : 4), state.ceiling)
          : state.size + Math.max(1, Math.floor(state.size / 20));
    }
  }
  next.size = Math.max(1, Math.min(next.size, limit));
  return next;
}

/** The pace has observed nothing yet: a new run, or one whose kept pace expired (PACE_SECONDS). */
export function knowsNothing(state: PaceState): boolean {
  return state.requests === 0;
}

/**
 * A connection probe is worth its key checks: the pace knows nothing and its first batch would hold more than
 * `above` of the `count` requests waiting (a batch of one loses no other answer to a reset).
 */
export function probeWorthIt(state: PaceState, count: number, above: number): boolean {
  return knowsNothing(state) && Math.min(count, state.size) > above;
}

/**
 * After a connection probe (free key checks in one fetchAll, before the first paid batch). All clean: its
 * requests count as clean observations and the paid batches start at `start`; not its time, though: a key check
 * does none of a lookup's work, so "fast" is still measured against the first paid batch. Lost to a transport
 * failure, or throttled (429, 5xx): read as any batch (a loss over the probe's requests caps the size at 1).
 */
export function observeProbe(state: PaceState, sample: BatchSample, start: number, cap: number): PaceState {
  if (sample.lostBatch || sample.failures > 0) return observePace(state, sample, cap);
  const size = Math.max(1, Math.min(start, state.ceiling, cap));
  return { ...state, requests: state.requests + sample.size, size };
}

/** The controller as the pipeline's BatchSizer; `state` is what is kept between executions. */
export class Pacer implements BatchSizer {
  constructor(
    public state: PaceState,
    readonly cap: number,
  ) {}

  next(): number {
    return this.state.size;
  }

  notBefore(): number {
    return this.state.notBefore ?? 0;
  }

  hold(untilMs: number): void {
    this.state.notBefore = Math.max(this.notBefore(), untilMs);
  }

  observe(sample: BatchSample): void {
    this.state = observePace(this.state, sample, this.cap);
  }

  observeProbe(sample: BatchSample, start: number): void {
    this.state = observeProbe(this.state, sample, start, this.cap);
  }

  /** Keeps the pace in the document cache for the next execution of the same `scope`. */
  save(cache: DocumentCache | null, scope: string): void {
    cache?.put(PACE_PREFIX + scope, JSON.stringify(this.state), PACE_SECONDS);
  }
}

/** A pace kept this long after its last batch (the document cache); older, a run starts modestly again. */
export const PACE_SECONDS = 600;

/** The pace kept in the document cache for `scope` ('bulk' or 'formula'), or a new one starting at `start`. */
export function loadPace(cache: DocumentCache | null, scope: string, start: number, cap: number): Pacer {
  let state: PaceState = { size: start, ceiling: cap, requests: 0, lost: 0, fastestMs: 0 };
  try {
    const kept = JSON.parse(cache?.get(PACE_PREFIX + scope) || '0') as PaceState | 0;
    if (kept && kept.size > 0) state = { ...state, ...kept };
  } catch {
    // An unreadable pace starts over.
  }
  return new Pacer({ ...state, size: Math.max(1, Math.min(cap, state.size)) }, cap);
}
