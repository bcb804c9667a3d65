/**
 * Adaptive requests per fetchAll: the batch size of the bulk run and of =FINDEMAIL ranges. Pure.
 *
 * fetchAll waits for the slowest answer of its batch, and loses every answer of the batch (maybe charged) when one
 * connection fails, so the size is the lever both ways. A healthy connection is the common case: with nothing
 * known, a formula's range sends up to the cap (FETCH_MAX_CONCURRENCY, 100) in its first batch, a bulk run
 * PACE_START, growing eightfold while batches come back fast and clean (twofold once a fault was seen). A fault is
 * guarded against once it is seen: a 429 or 5xx halves the size and sets a ceiling (what the service took) above
 * which it grows by a twentieth after CEILING_PATIENCE clean batches (doubled by each such try that meets a 429,
 * which steps back to the ceiling rather than halving); a batch lost to a transport failure halves it too, and the recent rate of
 * such losses caps it so that the answers expected to be lost stay under LOSS_TARGET per request. Losses fade: the
 * kept loss record halves every LOSS_HALF_LIFE_MS after the last lost batch. A Retry-After holds every batch back.
 * The pace is kept for the next execution of the spreadsheet: ten minutes in the document cache, and for days in a
 * document property with its date, so a spreadsheet's next run starts where the last one ended.
 */

import type { PaceReason } from '../api';
import { PACE_PREFIX } from '../core/propertyNames';
import { checkedRecord, type FieldSpecs, storedRecord } from '../core/storedJson';
import type { BatchSample, BatchSizer, DocumentCache } from './ports';

export interface PaceState {
  /** Requests in the next batch. */
  size: number;
  /** Above this the size grows by a twentieth a clean batch, after CEILING_PATIENCE of them: what the service took when a 429 or 5xx last came. */
  ceiling: number;
  /** Requests observed, and batches lost to a transport failure among them (fading after `lostAt`, see loadPace). */
  requests: number;
  lost: number;
  /** Epoch ms of the last lost batch. */
  lostAt?: number;
  /** Requests answered without a transport failure since the last lost batch. */
  clean?: number;
  /** Clean batches since the last one a 429 or 5xx met (absent: none met one). */
  sinceThrottled?: number;
  /** Tries above the ceiling in a row that met a 429 or 5xx: each doubles the clean batches before the next try. */
  failedProbes?: number;
  /** The fastest clean batch: what "fast" is measured against (ms). */
  fastestMs: number;
  /** Epoch ms before which no batch starts: the service's last Retry-After (the next slice honours it too). */
  notBefore?: number;
  /** The most requests in flight at once the service answered without a 429 or 5xx (a run's across its slices). */
  tookClean?: number;
  /** When a run's pace last stepped back for a 429 or 5xx (a refusal of a batch sent before belongs to it). */
  steppedAt?: number;
}

/** Why the pace holds batches below the cap, for the progress to say (undefined: it does not). */
export type { PaceReason };

/**
 * Requests in a bulk run's first batch when nothing is known: half the default cap. A service that limits requests
 * in flight answers the excess of a batch with 429 (uncharged, but each waits for a Retry-After), so a bulk run,
 * which goes on for many batches, reaches its cap on its second round; a formula's range starts at the cap (it
 * has room for few batches in its 30 s).
 */
export const PACE_START = 50;
/**
 * A healthy service is the common case: while no fault was seen, a fast clean batch multiplies the size by eight
 * (a bulk run's 50, then its cap: 400 with four slices, a round sooner than fourfold, measured at 500 ms and at a
 * 3 s median), a fault being guarded against once seen (then twofold). Our choice: a service whose limit lies
 * between two sizes refuses the excess of one round (429s cost no credit, only their Retry-After).
 */
export const UNSEEN_FAULT_GROWTH = 8;
/** Answers expected to be lost to transport failures, per request sent, at most (1 %). */
export const LOSS_TARGET = 0.01;
/**
 * A clean batch is fast when it took at most this many times the fastest clean batch, or at most SLOW_MARGIN_MS
 * more: a busy machine's jitter of a few hundred ms does not read as a saturated service.
 */
export const FAST_FACTOR = 4;
export const SLOW_MARGIN_MS = 1000;
/**
 * Clean batches at the ceiling before the size tries a twentieth above it: each try may meet a 429. A try that
 * meets one doubles this for the next (up to MAX_CEILING_PATIENCE), so a service whose limit stays where it was
 * found is tried seldom.
 */
export const CEILING_PATIENCE = 4;
export const MAX_CEILING_PATIENCE = 32;
/** Requests assumed clean before the first observation (keeps one early failure from meaning "always"). */
const PRIOR_REQUESTS = 10;
/** A kept loss record halves this long after the last lost batch (read by the next execution, loadPace). */
export const LOSS_HALF_LIFE_MS = 30_000;
/** Below this many losses (faded) the record is clean again. */
const LOSSES_FORGOTTEN = 0.1;
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

/** The next state after a batch. */
export function observePace(state: PaceState, sample: BatchSample, cap: number): PaceState {
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
    // What the service took is the ceiling. At a limit already found (it took as much as before, less a step) the
    // size steps back to it; otherwise it halves below it. A batch smaller than the size (a 429's retry, a window's
    // rest) says the service is busy now, not where its limit is: a step back per refusal, at most half.
    const took = sample.size - sample.throttled;
    const known = state.sinceThrottled !== undefined;
    const found = known && took >= state.ceiling - ceilingStep(state.ceiling);
    if (known && sample.size < state.size) {
      next.size = Math.max(
        Math.ceil(state.size / 2),
        state.size - sample.throttled * ceilingStep(state.size),
      );
      next.ceiling = Math.min(state.ceiling, next.size);
    } else {
      next.ceiling = Math.max(1, took);
      next.size = found ? took : Math.floor(Math.min(state.size, sample.size) / 2);
      next.failedProbes = found ? (state.failedProbes ?? 0) + 1 : 0;
    }
    next.sinceThrottled = 0;
  } else if (sample.failures === 0) {
    next.tookClean = Math.max(state.tookClean ?? 0, sample.size);
    if (state.sinceThrottled !== undefined) next.sinceThrottled = state.sinceThrottled + 1;
    const fastest = state.fastestMs;
    const fast = !fastest || sample.durationMs <= Math.max(FAST_FACTOR * fastest, fastest + SLOW_MARGIN_MS);
    next.fastestMs = Math.min(sample.durationMs, fastest || sample.durationMs);
    // Only a batch as big as the size asked for says the size works (a window's last batch may be smaller).
    if (fast && sample.size >= state.size) {
      // Counted in rounds (fractions of one), within a rounding error.
      const patient = (state.sinceThrottled ?? CEILING_PATIENCE) + 1e-9 >= ceilingPatience(state);
      if (state.size < state.ceiling) next.size = Math.min(state.size * growth(state), state.ceiling);
      else if (patient) next.size = state.size + ceilingStep(state.size);
    }
    // A clean batch above the ceiling: the service took more than it did when the ceiling was set.
    if (sample.size > state.ceiling && state.failedProbes) next.failedProbes = 0;
  }
  next.size = Math.max(1, Math.min(next.size, limit));
  return next;
}

/**
 * How much a fast, clean, full batch multiplies the size below the ceiling: UNSEEN_FAULT_GROWTH while the service
 * has neither refused a request (429 or 5xx) nor lost a batch, twofold once it has.
 */
function growth(state: PaceState): number {
  return state.sinceThrottled === undefined && state.lost === 0 ? UNSEEN_FAULT_GROWTH : 2;
}

/** The size's step above the ceiling: a twentieth, at least one request. */
function ceilingStep(size: number): number {
  return Math.max(1, Math.floor(size / 20));
}

/** Clean batches at the ceiling before the next try above it: CEILING_PATIENCE, doubled by each failed try. */
export function ceilingPatience(state: Pick<PaceState, 'failedProbes'>): number {
  return Math.min(MAX_CEILING_PATIENCE, CEILING_PATIENCE * 2 ** (state.failedProbes ?? 0));
}

/**
 * One slice's batch as its run's observation: a run's pace is the requests of all its slices at the service at
 * once, and this batch went out while the run had `atService` of them there (its own included). Clean, it says the
 * service took that many at once (the size grows from it, not once more for each slice's batch of the same round);
 * with 429s, it took `atService` less them. A refusal of a batch sent before the pace last stepped back for one
 * (`sentAt`, `steppedAt`) belongs to the same wave: it changes nothing more. A loss is the batch's own. The clean
 * batches before a try above a ceiling are counted in rounds: a batch of a third of the pace is a third of one.
 */
export function observeRun(
  state: PaceState,
  sample: BatchSample,
  atService: number,
  sentAt: number,
  cap: number,
): PaceState {
  const throttled = sample.throttled ?? 0;
  if (sample.lostBatch || (sample.failures > 0 && !throttled)) return observePace(state, sample, cap);
  if (throttled > 0 && state.steppedAt !== undefined && sentAt < state.steppedAt) return state;
  const size = Math.max(sample.size, atService);
  const requests = state.requests + sample.size;
  if (throttled > 0)
    return {
      ...observePace(state, { ...sample, size }, cap),
      requests,
      steppedAt: sample.endedAt ?? sentAt,
    };
  const grown = observePace({ ...state, size: Math.min(state.size, size) }, { ...sample, size }, cap);
  // Patience at a ceiling is counted in rounds of the run: each batch is its share of one.
  if (state.sinceThrottled !== undefined)
    grown.sinceThrottled = state.sinceThrottled + Math.min(1, sample.size / Math.max(1, state.size));
  // Only a round of the run's whole pace says the pace works: a smaller one neither grows nor shrinks it.
  return { ...grown, requests, size: size >= state.size ? Math.max(state.size, grown.size) : state.size };
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
  constructor(
    public state: PaceState,
    readonly cap: number,
  ) {}

  next(): number {
    return Math.max(1, Math.min(this.state.size, this.cap));
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
    this.state = observePace(this.state, sample, this.cap);
  }

  observeKeyCheck(sample: BatchSample): void {
    this.state = observeKeyCheck(this.state, sample, this.cap);
  }

  /** Keeps the pace in the document cache for the next execution of the same `scope`. */
  save(cache: DocumentCache | null, scope: string): void {
    cache?.put(PACE_PREFIX + scope, JSON.stringify(this.state), PACE_SECONDS);
  }

  /**
   * The value to keep in the document property (KeptPace) when the kept one is missing, older than
   * PACE_REWRITE_MS, or says something else of faults (losses, the service's ceiling); undefined otherwise, so a
   * formula's evaluation seldom costs a property write.
   */
  keptValue(kept: string | undefined, nowMs: number): string | undefined {
    if (knowsNothing(this.state)) return undefined;
    const old = parseKept(kept);
    const fresh =
      old &&
      nowMs - old.at < PACE_REWRITE_MS &&
      old.state.ceiling === this.state.ceiling &&
      old.state.lost > 0 === this.state.lost > 0;
    if (fresh) return undefined;
    const value: KeptPace = { at: nowMs, state: this.state };
    return JSON.stringify(value);
  }
}

/** What a key's service took, as kept in the user's properties (KEY_PACE_PROPERTY). */
interface KeyPace {
  /** The key's hash (stableHash), never the key. */
  key: string;
  /**
   * Requests in flight the service took: when it last answered 429 or 5xx, what it took then (the ceiling); with
   * `clean`, the most it answered at once without one.
   */
  allowed: number;
  at: number;
  /** No 429 or 5xx met: `allowed` is where the service was seen to go, not its limit. */
  clean?: boolean;
}

const KEY_PACE_FIELDS: FieldSpecs<KeyPace> = {
  key: 'string',
  allowed: 'number',
  at: 'number',
  clean: 'boolean?',
};

function parseKeyPace(raw: string | null | undefined): KeyPace | undefined {
  const kept = storedRecord<KeyPace>(raw, KEY_PACE_FIELDS);
  return kept && kept.allowed > 0 ? kept : undefined;
}

/** The pace has sent no lookup yet (at most the key check): what a key's service showed elsewhere may seed it. */
function sentNoLookup(state: PaceState): boolean {
  return state.sinceThrottled === undefined && !state.lost && !state.fastestMs;
}

/**
 * A pace that has sent no lookup yet starts at what the key's service took elsewhere (`kept`, read only then: KeyPace of
 * the same `keyHash`, younger than PACE_KEPT_MS). At a ceiling, as if a 429 had been met there once, so the size does
 * not try above it before 2 CEILING_PATIENCE clean batches; at a clean figure, from there (not from `start` again),
 * growing as before. Otherwise the state unchanged.
 */
export function startFromKey(
  state: PaceState,
  kept: () => string | null | undefined,
  keyHash: string,
  nowMs: number,
  cap: number,
): PaceState {
  if (!sentNoLookup(state)) return state;
  const known = parseKeyPace(kept());
  if (!known || known.key !== keyHash || nowMs - known.at >= PACE_KEPT_MS) return state;
  const allowed = Math.max(1, Math.min(cap, known.allowed));
  if (known.clean) return allowed > state.size ? { ...state, size: allowed } : state;
  return {
    ...state,
    size: Math.min(state.size, allowed),
    ceiling: allowed,
    sinceThrottled: 0,
    failedProbes: 1,
  };
}

/**
 * The value to keep in the user's KEY_PACE_PROPERTY after a run, or undefined when the kept one says as much. A pace
 * that met a 429 or 5xx keeps its ceiling, unless the kept one is of the same key, says the same figure and is younger
 * than PACE_REWRITE_MS; a clean pace keeps the most the service answered at once (`tookClean`), when no ceiling is
 * kept for the key (a clean run of a spreadsheet's own pace says nothing of the key's limit) and it is more than the
 * kept figure, or that is older than PACE_REWRITE_MS.
 */
export function keyPaceValue(
  state: PaceState,
  kept: string | null | undefined,
  keyHash: string,
  nowMs: number,
): string | undefined {
  const old = parseKeyPace(kept);
  const ours = old && old.key === keyHash && nowMs - old.at < PACE_REWRITE_MS ? old : undefined;
  if (state.sinceThrottled !== undefined) {
    const allowed = state.ceiling;
    if (ours && !ours.clean && ours.allowed === allowed) return undefined;
    const value: KeyPace = { key: keyHash, allowed, at: nowMs };
    return JSON.stringify(value);
  }
  const took = state.tookClean ?? 0;
  if (took <= 0 || (old && old.key === keyHash && !old.clean && nowMs - old.at < PACE_KEPT_MS))
    return undefined;
  if (ours && ours.allowed >= took) return undefined;
  const value: KeyPace = { key: keyHash, allowed: took, at: nowMs, clean: true };
  return JSON.stringify(value);
}

/** A pace kept this long after its last batch (the document cache); then the document property's copy counts. */
export const PACE_SECONDS = 600;
/** The document property's copy counts this long after it was written (our choice: a working week). */
export const PACE_KEPT_MS = 7 * 24 * 3600 * 1000;
/** The document property's copy is written again at most this often while nothing changes (a property write). */
export const PACE_REWRITE_MS = 3600 * 1000;

/** The pace as kept in a document property: when, and the state. */
interface KeptPace {
  at: number;
  state: PaceState;
}

function parseKept(raw: string | undefined): KeptPace | undefined {
  const kept = storedRecord<KeptPace>(raw, { at: 'number', state: 'object' });
  const state = kept && checkedRecord<PaceState>(kept.state, PACE_STATE_FIELDS);
  return kept && state && state.size > 0 ? { at: kept.at, state } : undefined;
}

/** The loss record `nowMs`: halved every LOSS_HALF_LIFE_MS since the last lost batch, forgotten below a tenth. */
export function fadeLosses(state: PaceState, nowMs: number): PaceState {
  if (!state.lost || state.lostAt === undefined) return state;
  const lost = state.lost * 0.5 ** (Math.max(0, nowMs - state.lostAt) / LOSS_HALF_LIFE_MS);
  return lost < LOSSES_FORGOTTEN ? { ...state, lost: 0, lostAt: undefined } : { ...state, lost };
}

const PACE_STATE_FIELDS: FieldSpecs<PaceState> = {
  size: 'number',
  ceiling: 'number',
  requests: 'number',
  lost: 'number',
  lostAt: 'number?',
  clean: 'number?',
  sinceThrottled: 'number?',
  failedProbes: 'number?',
  fastestMs: 'number',
  notBefore: 'number?',
  tookClean: 'number?',
  steppedAt: 'number?',
};

/** A pace state kept as JSON (the document cache), its fields checked; undefined when there is none. */
export function parsePaceState(raw: string | null | undefined): PaceState | undefined {
  const kept = storedRecord<PaceState>(raw, PACE_STATE_FIELDS);
  return kept && kept.size > 0 ? kept : undefined;
}

/**
 * The pace kept for `scope` ('bulk' or 'formula'): the document cache's copy, else the document property's
 * (`keptProperty`, KeptPace) while younger than PACE_KEPT_MS, its losses faded to `nowMs` (`fadeLosses`); or a new
 * one starting at `start`.
 */
export function loadPace(
  cache: DocumentCache | null,
  scope: string,
  start: number,
  cap: number,
  nowMs = 0,
  keptProperty?: string,
): Pacer {
  const fromProperty = parseKept(keptProperty);
  const cached = parsePaceState(cache?.get(PACE_PREFIX + scope));
  const kept =
    cached ?? (fromProperty && nowMs - fromProperty.at < PACE_KEPT_MS ? fromProperty.state : undefined);
  return new Pacer(recallPace(kept, start, cap, nowMs, kept === cached), cap);
}

/**
 * A kept pace as an execution starts from it `nowMs` (a new one starting at `start` when none is kept): its losses
 * faded (`fadeLosses`), the ceiling the cap while no 429 or 5xx was met, the size within the cap. `recent`: kept
 * in the document cache (minutes ago), not the document property (maybe days ago).
 */
export function recallPace(
  kept: PaceState | undefined,
  start: number,
  cap: number,
  nowMs: number,
  recent: boolean,
): PaceState {
  let state: PaceState = { size: start, ceiling: cap, requests: 0, lost: 0, fastestMs: 0 };
  if (kept) {
    state = fadeLosses({ ...state, ...kept }, nowMs);
    // No 429 or 5xx met: the ceiling is the cap of this execution (a run's across its slices, a key check's one fetchAll).
    if (kept.sinceThrottled === undefined) state.ceiling = cap;
    // Losses forgotten: the size starts again from `start` at least, and "fast" is measured anew (the latency
    // seen during the faults says nothing of the connection now); likewise for a pace kept for days.
    const forgotten = kept.lost > 0 && state.lost === 0;
    if (forgotten) state.size = Math.max(state.size, start);
    if (forgotten || !recent) state.fastestMs = 0;
  }
  return { ...state, size: Math.max(1, Math.min(cap, state.size)) };
}
