/**
 * Adaptive requests per fetchAll (issues 12, 17.7, 18.4): the batch size of the bulk run and of =FINDEMAIL ranges. Pure.
 *
 * fetchAll waits for the slowest answer of its batch, and loses every answer of the batch (already charged) when
 * one connection fails, so the size is the lever both ways. Nothing known (one free key check at most, see
 * src/features/lookup/keyCheck.ts), the paid batches themselves test the connection: a batch holds at most a
 * third of the clean requests seen since the last loss (`rampCap`), plus a share of the run's rows beyond the
 * first RAMP_SAFE_ROWS, so a short run starts at one request and a long one risks on its first batch at most a few
 * percent of what it will spend. Within that it grows fourfold (twofold after a recent loss) while batches come
 * back fast and clean; a 429 or 5xx halves it and sets a ceiling (what the service took) above which it grows by a
 * twentieth after CEILING_PATIENCE clean batches; a batch lost to a transport failure halves it too, and the recent rate of such losses caps it
 * so that the answers expected to be lost stay under LOSS_TARGET per request. Losses fade between executions: the
 * kept loss record halves every LOSS_HALF_LIFE_MS after the last lost batch, so a run after the faults ended
 * ramps back to the cap within a few batches. A Retry-After holds every batch back.
 */

import type { PaceReason } from '../api';
import { PACE_PREFIX } from '../core/propertyNames';
import type { BatchSample, BatchSizer, DocumentCache } from './ports';

export interface PaceState {
  /** Requests in the next batch, before the ramp's cap (`rampCap`). */
  size: number;
  /** Above this the size grows by a twentieth a clean batch, after CEILING_PATIENCE of them: what the service took when a 429 or 5xx last came. */
  ceiling: number;
  /** Requests observed, and batches lost to a transport failure among them (fading after `lostAt`, see loadPace). */
  requests: number;
  lost: number;
  /** Epoch ms of the last lost batch. */
  lostAt?: number;
  /** Requests answered without a transport failure since the last lost batch (the ramp's evidence). */
  clean?: number;
  /** Clean batches since the last one a 429 or 5xx met (absent: none met one). */
  sinceThrottled?: number;
  /** The fastest clean batch: what "fast" is measured against (ms). */
  fastestMs: number;
  /** Epoch ms before which no batch starts: the service's last Retry-After (the next slice honours it too). */
  notBefore?: number;
}

/** Why the pace holds batches below the cap, for the progress to say (undefined: it does not). */
export type { PaceReason };

/** Requests in a batch before anything is observed; the ramp (`rampCap`) bounds the first batches further. */
export const PACE_START = 32;
/** Answers expected to be lost to transport failures, per request sent, at most (2 %). */
export const LOSS_TARGET = 0.02;
/**
 * A clean batch is fast when it took at most this many times the fastest clean batch, or at most SLOW_MARGIN_MS
 * more: a busy machine's jitter of a few hundred ms does not read as a saturated service.
 */
export const FAST_FACTOR = 4;
export const SLOW_MARGIN_MS = 1000;
/** Clean batches at the ceiling before the size tries a twentieth above it: each try may meet a 429. */
export const CEILING_PATIENCE = 4;
/** Requests assumed clean before the first observation (keeps one early failure from meaning "always"). */
const PRIOR_REQUESTS = 10;
/** A kept loss record halves this long after the last lost batch (read by the next execution, loadPace). */
export const LOSS_HALF_LIFE_MS = 30_000;
/** Below this many losses (faded) the record is clean again. */
const LOSSES_FORGOTTEN = 0.1;
/**
 * The ramp: a batch holds at most a third of the clean requests seen since the last loss, plus RAMP_RUN_SHARE of
 * the run's rows beyond RAMP_SAFE_ROWS (so a first batch risks at most 7.5 % of the run). Chosen with a simulation
 * of the pace with lost answers sent again alone: at 10 % of connections reset a 40-row run spends about 4 % more
 * credits than profiles, 300 rows 4 %, 810 rows 3 % (5 % of resets: 6 %, 6 %, 4 %; 1 %: 3 %, 12 %, 10 %, where the
 * former 35 free key checks gave 11 %, 17 %, 8 %); a clean 1,000-row run reaches the cap of 100 after batches
 * of 32 and 78.
 */
export const RAMP_EVIDENCE_SHARE = 1 / 3;
/** A run (or range) of at most this many lookups goes in one batch: it risks 3 answers at most. */
export const RAMP_WHOLE_RUN = 4;
export const RAMP_SAFE_ROWS = 100;
export const RAMP_RUN_SHARE = 0.075;

/** The ramp's bound on the next batch: a third of the clean requests since the last loss, plus the run's share. */
export function rampCap(state: PaceState, runRows: number): number {
  if (runRows > 0 && runRows <= RAMP_WHOLE_RUN) return runRows;
  const allowance = RAMP_RUN_SHARE * Math.max(0, runRows - RAMP_SAFE_ROWS);
  return Math.max(1, Math.floor((state.clean ?? 0) * RAMP_EVIDENCE_SHARE + allowance));
}

/**
 * The largest batch whose expected loss stays under LOSS_TARGET per request: with a per-request failure rate f,
 * a batch of n loses the other answers when any request fails, (1-f)(1-(1-f)^(n-1)) per request.
 */
export function lossCap(state: Pick<PaceState, 'requests' | 'lost'>, cap: number): number {
  if (state.lost === 0) return cap;
  const q = 1 - state.lost / (state.requests + PRIOR_REQUESTS);
  // NaN (losses so frequent that no batch keeps under the target) reads as 1.
  const n = 1 + Math.floor(Math.log(1 - LOSS_TARGET / q) / Math.log(q));
  return q < 1 ? Math.min(cap, n || 1) : cap;
}

/** The next state after a batch; `runRows`: the rows the run (or the range) looks up, for the ramp. */
export function observePace(state: PaceState, sample: BatchSample, cap: number, runRows = 0): PaceState {
  const next = { ...state };
  next.requests += sample.size;
  if (sample.lostBatch) {
    next.lost += 1;
    next.lostAt = sample.endedAt ?? state.lostAt;
  }
  next.clean = sample.lostBatch ? 0 : (state.clean ?? 0) + sample.size;
  const limit = Math.min(cap, lossCap(next, cap));
  if (sample.lostBatch) {
    next.size = Math.max(1, Math.min(Math.floor(Math.min(state.size, sample.size * 2) / 2), limit));
  } else if (sample.throttled) {
    // What the service took is the ceiling; the size halves below it.
    next.ceiling = Math.max(1, sample.size - sample.throttled);
    next.size = Math.floor(Math.min(state.size, sample.size) / 2);
    next.sinceThrottled = 0;
  } else if (sample.failures === 0) {
    if (state.sinceThrottled !== undefined) next.sinceThrottled = state.sinceThrottled + 1;
    const fastest = state.fastestMs;
    const fast = !fastest || sample.durationMs <= Math.max(FAST_FACTOR * fastest, fastest + SLOW_MARGIN_MS);
    next.fastestMs = Math.min(sample.durationMs, fastest || sample.durationMs);
    // Only a batch as big as the size asked for says the size works (a window's last batch may be smaller).
    const asked = Math.min(state.size, rampCap(state, runRows));
    if (fast && sample.size >= asked) {
      const patient = (state.sinceThrottled ?? CEILING_PATIENCE) >= CEILING_PATIENCE;
      if (state.size < state.ceiling)
        next.size = Math.min(state.size * (state.lost >= LOSSES_FORGOTTEN ? 2 : 4), state.ceiling);
      else if (patient) next.size = state.size + Math.max(1, Math.floor(state.size / 20));
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
 * After the free key check (one request without `network_url`, before the first paid batch): answered, it is one
 * request of evidence and nothing else (its time says nothing of a lookup's; a 429 there sets no ceiling, its
 * Retry-After holds the first batch); lost to a transport failure, it counts as a lost batch.
 */
export function observeKeyCheck(state: PaceState, sample: BatchSample, cap: number): PaceState {
  if (sample.lostBatch) return observePace(state, sample, cap);
  const clean = sample.failures > 0 ? 0 : sample.size;
  return { ...state, requests: state.requests + sample.size, clean: (state.clean ?? 0) + clean };
}

/** Why batches are held below the cap now, if they are: recent connection failures, or the service's limit. */
export function paceReason(state: PaceState, cap: number): PaceReason | undefined {
  if (state.lost >= LOSSES_FORGOTTEN && lossCap(state, cap) < cap) return 'connection_failures';
  if (state.ceiling < cap) return 'rate_limited';
  return undefined;
}

/** The controller as the pipeline's BatchSizer; `state` is what is kept between executions. */
export class Pacer implements BatchSizer {
  /** Rows the run (or the range) looks up: the ramp risks a share of them (`rampCap`). */
  runRows = 0;

  constructor(
    public state: PaceState,
    readonly cap: number,
  ) {}

  next(): number {
    return Math.max(1, Math.min(this.state.size, rampCap(this.state, this.runRows)));
  }

  reason(): PaceReason | undefined {
    return paceReason(this.state, this.cap);
  }

  notBefore(): number {
    return this.state.notBefore ?? 0;
  }

  hold(untilMs: number): void {
    this.state.notBefore = Math.max(this.notBefore(), untilMs);
  }

  observe(sample: BatchSample): void {
    this.state = observePace(this.state, sample, this.cap, this.runRows);
  }

  observeKeyCheck(sample: BatchSample): void {
    this.state = observeKeyCheck(this.state, sample, this.cap);
  }

  /** Keeps the pace in the document cache for the next execution of the same `scope`. */
  save(cache: DocumentCache | null, scope: string): void {
    cache?.put(PACE_PREFIX + scope, JSON.stringify(this.state), PACE_SECONDS);
  }
}

/** A pace kept this long after its last batch (the document cache); older, a run starts modestly again. */
export const PACE_SECONDS = 600;

/** The loss record `nowMs`: halved every LOSS_HALF_LIFE_MS since the last lost batch, forgotten below a tenth. */
export function fadeLosses(state: PaceState, nowMs: number): PaceState {
  if (!state.lost || state.lostAt === undefined) return state;
  const lost = state.lost * 0.5 ** (Math.max(0, nowMs - state.lostAt) / LOSS_HALF_LIFE_MS);
  return lost < LOSSES_FORGOTTEN ? { ...state, lost: 0, lostAt: undefined } : { ...state, lost };
}

/**
 * The pace kept in the document cache for `scope` ('bulk' or 'formula'), its losses faded to `nowMs`
 * (`fadeLosses`), or a new one starting at `start`.
 */
export function loadPace(
  cache: DocumentCache | null,
  scope: string,
  start: number,
  cap: number,
  nowMs = 0,
): Pacer {
  let state: PaceState = { size: start, ceiling: cap, requests: 0, lost: 0, fastestMs: 0 };
  try {
    const kept = JSON.parse(cache?.get(PACE_PREFIX + scope) || '0') as PaceState | 0;
    if (kept && kept.size > 0) {
      state = fadeLosses({ ...state, ...kept }, nowMs);
      // Losses forgotten: the size starts again from `start` at least.
      if (kept.lost > 0 && state.lost === 0) state.size = Math.max(state.size, start);
    }
  } catch {
    // An unreadable pace starts over.
  }
  return new Pacer({ ...state, size: Math.max(1, Math.min(cap, state.size)) }, cap);
}
