/**
 * A bulk run's pace, kept in its job (`Job.pace`, src/lookup/pace.ts): its requests at the service at once, across
 * its slices. Seeded at Start from what the key's service took elsewhere and Start's key check; each batch observed
 * in the hold of the lock that writes its rows, so no slice's observation is lost; each slice sends its share of it.
 */

import type { ScriptConfig } from '../core/config';
import { DEFAULT_SLICES, MAX_SLICES, SLICE_MIN_SHARE } from '../core/limits';
import {
  fadeLosses,
  observeKeyCheck,
  PACE_KEPT_MS,
  PACE_SECONDS,
  PACE_START,
  type PaceState,
  recallPace,
  startFromKey,
} from '../lookup/pace';

/** BULK_SLICES, or DEFAULT_SLICES, at most MAX_SLICES. */
export function mostSlices(config: Pick<ScriptConfig, 'slices'>): number {
  return Math.min(MAX_SLICES, config.slices ?? DEFAULT_SLICES);
}

/** The run's requests at the service at once, at most: FETCH_MAX_CONCURRENCY for each of its slices. */
export function runCap(config: Pick<ScriptConfig, 'slices' | 'maxConcurrency'>): number {
  return config.maxConcurrency * mostSlices(config);
}

/**
 * A new run's pace: where the spreadsheet's last run ended (`last`, its job's pace and when it was last saved, for
 * PACE_KEPT_MS), else what the key's service took elsewhere (`key`: KEY_PACE_PROPERTY of the key's hash), else
 * PACE_START; Start's key check answered in `checkMs` counted as the run's one request that is not a lookup.
 */
export function seedPace(
  cap: number,
  now: number,
  from: {
    last?: { pace?: PaceState; at: number };
    key?: { hash: string; figure: string | null | undefined };
    checkMs?: number;
  },
): PaceState {
  const { last, key, checkMs } = from;
  const kept = last?.pace && now - last.at < PACE_KEPT_MS ? last.pace : undefined;
  const recent = kept !== undefined && now - (last?.at ?? 0) < PACE_SECONDS * 1000;
  let state = recallPace(kept, PACE_START, cap, now, recent);
  if (key && !kept) state = startFromKey(state, () => key.figure, key.hash, now, cap);
  if (checkMs !== undefined)
    state = observeKeyCheck(state, { size: 1, durationMs: checkMs, failures: 0, endedAt: now }, cap);
  return state;
}

/** The run's pace now: its job's, its losses faded (a new one when it has none). */
export function paceNow(pace: PaceState | undefined, cap: number, now: number): PaceState {
  if (!pace) return recallPace(undefined, PACE_START, cap, now, false);
  return { ...fadeLosses(pace, now), ceiling: Math.min(pace.ceiling, cap), size: Math.min(pace.size, cap) };
}

/**
 * The slices a pace at a limit the service showed (a ceiling below the run's cap) is kept split into, even by a
 * slice alone at work (the sidebar opens the others from its answer; a slice alone for a whole batch takes the
 * whole pace, ./step.ts): a fetchAll holds its requests' places at the service until its slowest answer, so at a
 * limit smaller batches give places back sooner; 1 below no limit (whole fetchAlls).
 */
export function splitAtLimit(state: PaceState, cap: number, most: number): number {
  return state.ceiling < cap ? slicesFor(most, state.size) : 1;
}

/** The slices the run's pace is split into, at most `most`: each sends SLICE_MIN_SHARE requests at least. */
export function slicesFor(most: number, size: number): number {
  return Math.max(1, Math.min(most, Math.floor(size / SLICE_MIN_SHARE)));
}

/**
 * Requests a slice sends now: its share of the run's pace (split across the slices at work with it, `working`
 * others, or the `split` the pace is kept in; at most one fetchAll's `batchCap`), and never more than the pace less
 * what those others have at the service. 0 while that leaves under half a share: the slice waits for their answers
 * (a slice joining while the others fill the pace adds no request).
 */
export function shareNow(
  state: PaceState,
  batchCap: number,
  others: { working: number; atService: number },
  split = 1,
): number {
  const parts = Math.max(others.working + 1, split);
  const share = Math.max(1, Math.min(batchCap, Math.floor(state.size / parts)));
  const room = state.size - others.atService;
  return room < Math.ceil(share / 2) ? 0 : Math.min(share, room);
}
