/** The adaptive batch size (src/lookup/pace.ts): pure rules, no clock, no emulator. */
import { emptyCounts, type Job, progressOf } from '../../src/bulk/job';
import {
  ceilingPatience,
  FAST_FACTOR,
  fadeLosses,
  keyPaceValue,
  knowsNothing,
  LOSS_HALF_LIFE_MS,
  LOSS_TARGET,
  loadPace,
  lossCap,
  observeKeyCheck,
  observePace,
  observeRun,
  PACE_START,
  Pacer,
  type PaceState,
  paceReason,
  recallPace,
  SLOW_MARGIN_MS,
  startFromKey,
} from '../../src/lookup/pace';
import type { BatchSample, DocumentCache } from '../../src/lookup/ports';
import { paceNotice } from '../../src/sidebar/progress';

const CAP = 100;
const clean = (size: number, durationMs = 1000): BatchSample => ({ size, durationMs, failures: 0 });
const lostBatch = (size: number, endedAt = 0): BatchSample => ({
  size,
  durationMs: 100,
  failures: size,
  lostBatch: true,
  endedAt,
});
const newPace = (start: number, cap: number): PaceState => loadPace(null, 'bulk', start, cap).state;

/** A pacer after a clean key check. */
function checked(state = newPace(PACE_START, CAP)): Pacer {
  return new Pacer(observeKeyCheck(state, clean(1, 5), CAP), CAP);
}

/** The batches a pacer sends for `rows` lookups when every batch comes back clean in `durationMs`. */
function cleanBatches(pacer: Pacer, rows: number, durationMs = 1000): number[] {
  const sizes: number[] = [];
  for (let left = rows; left > 0 && sizes.length < 100; ) {
    const size = Math.min(left, pacer.next());
    sizes.push(size);
    left -= size;
    pacer.observe(clean(size, durationMs));
  }
  return sizes;
}

/**
 * A run of `profiles` lookups through the pace where each connection fails with probability `rate` (a seeded
 * stream): a failed connection loses its batch, whose other answers were charged; the lost ones go again alone
 * (src/lookup/pipeline.ts). The credits charged beyond one per profile.
 */
function extraCredits(profiles: number, rate: number, random: () => number): number {
  const pacer = new Pacer(newPace(PACE_START, CAP), CAP);
  const checkLost = random() < rate;
  pacer.observeKeyCheck(checkLost ? lostBatch(1) : clean(1, 5));
  let extra = 0;
  let alone = 0;
  for (let left = profiles; left > 0 || alone > 0; ) {
    const size = alone > 0 ? 1 : Math.min(left, pacer.next());
    if (alone > 0) alone--;
    else left -= size;
    let resets = 0;
    for (let i = 0; i < size; i++) if (random() < rate) resets++;
    if (resets > 0 && size > 1) {
      extra += size - resets;
      alone += size;
    }
    pacer.observe(resets > 0 ? lostBatch(size) : clean(size, 100));
  }
  return extra;
}

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

describe('no ramp before a fault is seen: a healthy connection is the common case', () => {
  it("a formula's range of up to the cap goes in one batch; a bulk run starts at PACE_START and reaches the cap next", () => {
    const formula = checked(newPace(CAP, CAP));
    expect(cleanBatches(formula, 100)).toEqual([100]);
    expect(cleanBatches(checked(newPace(CAP, CAP)), 500)).toEqual([100, 100, 100, 100, 100]);
    expect(cleanBatches(checked(), 1000).slice(0, 4)).toEqual([PACE_START, 2 * PACE_START, CAP, CAP]);
    expect(PACE_START).toBeLessThan(CAP);
  });

  it('a lost batch halves the size and the loss rate caps it: the next batches are small until losses fade', () => {
    const pacer = checked(newPace(CAP, CAP));
    pacer.observe(lostBatch(100, 1000));
    expect(pacer.next()).toBeLessThanOrEqual(10);
  });

  it('simulated runs of 3,000 profiles: at 1 % of connections reset, under 1.05 credits a profile; at 10 %, under 1.5', () => {
    for (const [rate, bound] of [
      [0.01, 0.05],
      [0.1, 0.5],
    ]) {
      const random = seeded(Math.round(rate * 1000));
      const runs = 40;
      let extra = 0;
      for (let i = 0; i < runs; i++) extra += extraCredits(3000, rate, random);
      expect(extra / runs / 3000).toBeLessThan(bound);
    }
  });
});

describe('the batch size controller', () => {
  it('grows eightfold while full batches come back fast and clean and no fault was seen, up to the cap', () => {
    let state: PaceState = { ...newPace(1, CAP), requests: 10, clean: 1000 };
    const sizes: number[] = [];
    for (let i = 0; i < 4; i++) {
      state = observePace(state, clean(state.size), CAP);
      sizes.push(state.size);
    }
    expect(sizes).toEqual([8, 64, 100, 100]);
  });

  it('doubles instead once the service refused a request, even with its ceiling back at the cap', () => {
    let state: PaceState = { ...newPace(4, CAP), requests: 10, clean: 1000, sinceThrottled: 40 };
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      state = observePace(state, clean(state.size), CAP);
      sizes.push(state.size);
    }
    expect(sizes).toEqual([8, 16, 32, 64, 100]);
  });

  it('after an answer lost to a connection failure, it grows twofold at most, and no further than the losses allow', () => {
    let state = newPace(40, CAP);
    state = observePace(state, lostBatch(40), CAP);
    expect(state.size).toBe(1);
    // One loss in 40 (+10 assumed clean) requests caps the size at 1 (a second request would risk more than the
    // 1 % of answers LOSS_TARGET allows); it rises as clean requests accumulate.
    let previous = state.size;
    for (let i = 0; i < 100; i++) {
      state = observePace(state, clean(state.size, 100), CAP);
      expect(state.size).toBeLessThanOrEqual(2 * previous);
      expect(state.size).toBeLessThanOrEqual(lossCap(state, CAP));
      previous = state.size;
    }
    expect(state.size).toBeGreaterThan(1);
    expect(state.size).toBeLessThan(CAP);
  });

  it('holds on a slow batch (four times the fastest and a second more) or a smaller one than asked for', () => {
    const known = { ...newPace(4, CAP), requests: 10, clean: 1000 };
    let state = observePace(known, clean(4, 1000), CAP);
    expect(state.size).toBe(32);
    state = observePace(state, clean(32, 1000 * FAST_FACTOR + 1), CAP);
    expect(state.size).toBe(32);
    state = observePace(state, clean(3, 500), CAP);
    expect(state.size).toBe(32);
    // A busy machine's jitter on fast answers (60 ms, then 1 s more) is not a slow service.
    let quick = observePace(known, clean(4, 60), CAP);
    quick = observePace(quick, clean(32, 60 + SLOW_MARGIN_MS - 1), CAP);
    expect(quick.size).toBe(Math.min(CAP, 256));
  });

  it('halves on a 429 or 5xx, regrows to what the service took, then after four clean batches by a twentieth', () => {
    let state: PaceState = { ...newPace(64, CAP), requests: 10, clean: 1000 };
    state = observePace(state, { size: 64, durationMs: 900, failures: 3, throttled: 3 }, CAP);
    expect(state.size).toBe(32);
    expect(state.ceiling).toBe(61);
    expect(paceReason(state, CAP)).toBe('rate_limited');
    const sizes: number[] = [];
    for (let i = 0; i < 6; i++) {
      state = observePace(state, clean(state.size), CAP);
      sizes.push(state.size);
    }
    expect(sizes).toEqual([61, 61, 61, 61, 64, 67]);
  });

  it('a 429 at the ceiling already found steps back to it, and each such try doubles the wait before the next', () => {
    let state: PaceState = { ...newPace(64, CAP), requests: 10, clean: 1000 };
    state = observePace(state, { size: 50, durationMs: 900, failures: 25, throttled: 25 }, CAP);
    expect([state.size, state.ceiling]).toEqual([25, 25]);
    const sizes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const size = state.size;
      const throttled = Math.max(0, size - 25);
      state = observePace(state, { size, durationMs: 900, failures: throttled, throttled }, CAP);
      sizes.push(size);
    }
    // Tries above 25 after 4 clean batches there, then 8; each 429 of a try costs one request, not half the batch.
    expect(sizes).toEqual([25, 25, 25, 25, 25, 26, 25, 25, 25, 25, 25, 25, 25, 25, 25, 26, 25, 25, 25, 25]);
    expect(ceilingPatience(state)).toBe(16);
  });

  it('a clean batch above the ceiling ends the longer wait: a service whose limit rose is followed', () => {
    let state: PaceState = { ...newPace(25, CAP), requests: 10, clean: 1000, ceiling: 25, sinceThrottled: 0 };
    state = { ...state, failedProbes: 2 };
    for (let i = 0; i < 17; i++) state = observePace(state, clean(state.size), CAP);
    expect(state.size).toBe(26);
    state = observePace(state, clean(26), CAP);
    expect(state.failedProbes).toBe(0);
    expect(state.size).toBe(27);
  });

  it("a 429 met by a batch smaller than the size (a 429's retry, alone) costs a step back, not a fall to one", () => {
    let state: PaceState = { ...newPace(25, CAP), requests: 10, clean: 1000, ceiling: 25, sinceThrottled: 0 };
    state = observePace(state, { size: 1, durationMs: 100, failures: 1, throttled: 1 }, CAP);
    expect([state.size, state.ceiling]).toEqual([24, 24]);
    // Many refusals in a small batch: at most half.
    state = observePace(state, { size: 20, durationMs: 100, failures: 20, throttled: 20 }, CAP);
    expect([state.size, state.ceiling]).toEqual([12, 12]);
  });

  it('a 429 well below the ceiling found (the service takes less now) still halves the size', () => {
    let state: PaceState = { ...newPace(40, CAP), requests: 10, clean: 1000, ceiling: 40, sinceThrottled: 3 };
    state = observePace(state, { size: 40, durationMs: 900, failures: 20, throttled: 20 }, CAP);
    expect([state.size, state.ceiling]).toEqual([20, 20]);
  });

  it('against a service refusing above 25 in flight, 1,000 lookups: few batches small, few requests answered 429', () => {
    const pacer = checked();
    const sizes: number[] = [];
    let refused = 0;
    let retries = 0;
    for (let left = 1000; (left > 0 || retries > 0) && sizes.length < 200; ) {
      // The excess of a batch goes again in a batch of its own (the window's rest), as the pipeline sends it.
      const size = retries > 0 ? retries : Math.min(left, pacer.next());
      if (retries > 0) retries = 0;
      else left -= size;
      const throttled = Math.max(0, size - 25);
      refused += throttled;
      retries = throttled;
      sizes.push(size);
      pacer.observe({ size, durationMs: 5000, failures: throttled, throttled });
    }
    const sent = sizes.reduce((sum, size) => sum + size, 0);
    const small = sizes.filter((size) => size < 20).length;
    expect(small / sizes.length).toBeLessThan(1 / 7);
    // The first batch meets the limit (25 of 50); the tries above it cost a request each.
    expect(refused - 25).toBeLessThanOrEqual(4);
    expect(refused / sent).toBeLessThan(0.03);
    expect(sizes.length).toBeLessThanOrEqual(Math.ceil(1000 / 25) + 6);
  });

  it('a batch lost to a connection failure halves the size; frequent losses bring it down to one', () => {
    let state = newPace(32, CAP);
    state = observePace(state, lostBatch(32), CAP);
    expect(state.size).toBeLessThanOrEqual(16);
    let lostEvery = 0;
    for (let i = 0; i < 200; i++) {
      const lost = ++lostEvery % 10 === 0;
      state = observePace(state, lost ? lostBatch(state.size) : clean(state.size, 100), CAP);
    }
    expect(state.size).toBe(1);
    expect(paceReason(state, CAP)).toBe('connection_failures');
  });

  it('the loss cap keeps the expected lost answers per request under the target', () => {
    for (const [requests, lost] of [
      [100, 1],
      [1000, 1],
      [2000, 3],
      [50, 5],
    ]) {
      const n = lossCap({ requests, lost }, CAP);
      const f = lost / (requests + 10);
      expect((1 - f) * (1 - (1 - f) ** (n - 1))).toBeLessThanOrEqual(LOSS_TARGET);
      if (n < CAP) expect((1 - f) * (1 - (1 - f) ** n)).toBeGreaterThan(LOSS_TARGET);
    }
    expect(lossCap({ requests: 500, lost: 0 }, CAP)).toBe(CAP);
  });
});

describe('the key check (one free request before the first paid batch)', () => {
  it('answered: one request of evidence, not its time; the pace no longer knows nothing', () => {
    const fresh = newPace(PACE_START, CAP);
    expect(knowsNothing(fresh)).toBe(true);
    const after = observeKeyCheck(fresh, clean(1, 5), CAP);
    expect(after).toMatchObject({ size: PACE_START, requests: 1, clean: 1, lost: 0, fastestMs: 0 });
    expect(knowsNothing(after)).toBe(false);
  });

  it('lost to a connection failure: a loss, the first batches stay at one', () => {
    const lost = observeKeyCheck(newPace(PACE_START, CAP), lostBatch(1, 5000), CAP);
    expect(lost).toMatchObject({ requests: 1, lost: 1, clean: 0, lostAt: 5000 });
    const pacer = new Pacer(lost, CAP);
    expect(cleanBatches(pacer, 5, 100)).toEqual([1, 1, 1, 1, 1]);
  });

  it('answered 429: no ceiling from a single request (its Retry-After holds the first batch instead)', () => {
    const throttled = observeKeyCheck(
      newPace(PACE_START, CAP),
      { size: 1, durationMs: 5, failures: 1, throttled: 1 },
      CAP,
    );
    expect(throttled).toMatchObject({ size: PACE_START, ceiling: CAP, requests: 1, clean: 0 });
  });
});

describe('the pace recovers', () => {
  /** A pace after a run at 10 % of connections reset, its last batch lost at `endedAt`. */
  function afterFaults(endedAt: number): PaceState {
    let state = observeKeyCheck(newPace(PACE_START, CAP), clean(1, 5), CAP);
    const random = seeded(3);
    for (let i = 0; i < 200; i++) {
      const size = state.size;
      let lost = false;
      for (let j = 0; j < size; j++) lost ||= random() < 0.1;
      state = observePace(state, lost ? lostBatch(size, endedAt - 1000) : clean(size, 100), CAP);
    }
    return observePace(state, lostBatch(state.size, endedAt), CAP);
  }

  it('while losses are recent the pace stays small and says why; they halve every LOSS_HALF_LIFE_MS', () => {
    const faulty = afterFaults(1_000_000);
    expect(faulty.size).toBe(1);
    expect(paceReason(faulty, CAP)).toBe('connection_failures');
    const soon = fadeLosses(faulty, 1_000_000 + LOSS_HALF_LIFE_MS);
    expect(soon.lost).toBeCloseTo(faulty.lost / 2);
    const later = fadeLosses(faulty, 1_000_000 + 10 * LOSS_HALF_LIFE_MS);
    expect(later.lost).toBe(0);
    expect(paceReason(later, CAP)).toBeUndefined();
  });

  it('faults, then a clean service: the next run, minutes later, reaches the cap within a few batches', () => {
    const cache = new Map<string, string>();
    const port = {
      get: (key: string) => cache.get(key) ?? null,
      put: (key: string, value: string) => cache.set(key, value),
    } as unknown as DocumentCache;
    const faulty = new Pacer(afterFaults(1_000_000), CAP);
    faulty.save(port, 'bulk');
    // Right after, the losses still hold the size at one.
    expect(loadPace(port, 'bulk', PACE_START, CAP, 1_000_000 + 1000).next()).toBe(1);
    const next = loadPace(port, 'bulk', PACE_START, CAP, 1_000_000 + 5 * 60_000);
    expect(next.reason()).toBeUndefined();
    const sizes = cleanBatches(next, 1000, 100);
    expect(sizes.indexOf(CAP)).toBeGreaterThanOrEqual(0);
    expect(sizes.indexOf(CAP)).toBeLessThanOrEqual(5);
  });
});

describe('the kept pace', () => {
  it('is kept in the document cache between executions', () => {
    const cache = new Map<string, string>();
    const port = {
      get: (key: string) => cache.get(key) ?? null,
      put: (key: string, value: string) => cache.set(key, value),
    } as unknown as DocumentCache;
    const pacer = loadPace(port, 'bulk', PACE_START, CAP);
    pacer.observeKeyCheck(clean(1, 5));
    expect(pacer.next()).toBe(PACE_START);
    pacer.observe(clean(PACE_START, 800));
    // A Retry-After answered at the end of a slice holds the next slice's batches too.
    pacer.hold(50_000);
    pacer.hold(40_000);
    pacer.save(port, 'bulk');
    const later = loadPace(port, 'bulk', PACE_START, CAP);
    expect(later.next()).toBe(2 * PACE_START);
    expect(later.notBefore()).toBe(50_000);
    expect(later.state.fastestMs).toBe(800);
    // Another scope starts afresh; a cap lowered meanwhile applies at once; an unreadable pace starts over.
    expect(knowsNothing(loadPace(port, 'formula', 20, CAP).state)).toBe(true);
    expect(loadPace(port, 'bulk', PACE_START, 5).next()).toBe(5);
    cache.set('pef.pace.bulk', '{"size":');
    expect(loadPace(port, 'bulk', PACE_START, CAP).state).toEqual(newPace(PACE_START, CAP));
  });

  it('is kept for days in a document property with its date: the next run starts where the last one ended', () => {
    const day = 24 * 3600 * 1000;
    const pacer = loadPace(null, 'formula', CAP, CAP, 0);
    pacer.observeKeyCheck(clean(1, 5));
    pacer.observe({ size: 100, durationMs: 900, failures: 40, throttled: 40 });
    const kept = pacer.keptValue(undefined, 1_000) as string;
    expect(kept).toBeDefined();
    // Unchanged within the hour: no second property write.
    expect(pacer.keptValue(kept, 1_000 + 60_000)).toBeUndefined();
    // Three days later, with the cache's copy long gone: the service's ceiling (60 in flight) is remembered.
    const later = loadPace(null, 'formula', CAP, CAP, 3 * day, kept);
    expect(later.state.ceiling).toBe(60);
    expect(knowsNothing(later.state)).toBe(false);
    // After PACE_KEPT_MS it counts no more.
    expect(knowsNothing(loadPace(null, 'formula', CAP, CAP, 8 * day, kept).state)).toBe(true);
  });
});

describe("the pace learned per key (the user's properties)", () => {
  const day = 24 * 3600 * 1000;
  /** A run that met a service refusing above 25 in flight, and the figure it keeps for the key `keyHash`. */
  function limitedRun(keyHash: string, nowMs: number): string {
    const pacer = checked();
    pacer.observe({ size: 50, durationMs: 900, failures: 25, throttled: 25 });
    const value = keyPaceValue(pacer.state, undefined, keyHash, nowMs) as string;
    expect(value).toBeDefined();
    expect(value).not.toContain('the-key');
    return value;
  }

  it("a new spreadsheet's run starts at what the key's service took elsewhere, and does not try above it at once", () => {
    const kept = limitedRun('hash-a', 0);
    const fresh = checked().state;
    const state = startFromKey(fresh, () => kept, 'hash-a', day, CAP);
    expect([state.size, state.ceiling]).toEqual([25, 25]);
    const sizes: number[] = [];
    let next = state;
    for (let i = 0; i < 8; i++) {
      sizes.push(next.size);
      next = observePace(next, clean(next.size), CAP);
    }
    expect(sizes).toEqual([25, 25, 25, 25, 25, 25, 25, 25]);
    // Another key, a figure older than a week, or a pace that has sent lookups already: nothing changes.
    expect(startFromKey(fresh, () => kept, 'hash-b', day, CAP)).toBe(fresh);
    expect(startFromKey(fresh, () => kept, 'hash-a', 8 * day, CAP)).toBe(fresh);
    const sent = observePace(fresh, clean(PACE_START), CAP);
    expect(startFromKey(sent, () => kept, 'hash-a', day, CAP)).toBe(sent);
    expect(startFromKey(fresh, () => '{"key":', 'hash-a', day, CAP)).toBe(fresh);
  });

  it('is read only when the pace has sent nothing, and written only when it says something new or hourly', () => {
    const kept = limitedRun('hash-a', 0);
    const sent = observePace(checked().state, clean(PACE_START), CAP);
    const read = jest.fn(() => kept);
    startFromKey(sent, read, 'hash-a', 0, CAP);
    expect(read).not.toHaveBeenCalled();
    // A run that met no 429 keeps what it took clean, but never over the key's ceiling kept; the same figure within
    // the hour is not written again.
    expect(JSON.parse(keyPaceValue(sent, undefined, 'hash-a', 0) as string)).toMatchObject({
      allowed: PACE_START,
      clean: true,
    });
    expect(keyPaceValue(sent, kept, 'hash-a', 60_000)).toBeUndefined();
    const same = startFromKey(checked().state, () => kept, 'hash-a', 0, CAP);
    expect(keyPaceValue(same, kept, 'hash-a', 60_000)).toBeUndefined();
    expect(keyPaceValue(same, kept, 'hash-a', 2 * 3600 * 1000)).toBeDefined();
    expect(keyPaceValue(same, kept, 'hash-b', 60_000)).toBeDefined();
  });
});

describe("the pace learned per key, from a service that never refused (the user's properties)", () => {
  const hour = 3600 * 1000;
  /** A bulk run's pace with nothing known, three slices' cap. */
  const fresh = () => recallPace(undefined, PACE_START, 300, 0, false);
  /** The figure a run keeps after `sizes` answered clean at once, starting from `kept`. */
  function cleanRun(sizes: number[], kept: string | undefined, nowMs: number): string | undefined {
    let state = fresh();
    for (const size of sizes) state = observePace(state, clean(size), 300);
    return keyPaceValue(state, kept, 'hash-a', nowMs);
  }

  it("a new spreadsheet's run starts where the key's service was seen to go, and grows from there", () => {
    const kept = cleanRun([50, 100, 200], undefined, 0) as string;
    expect(JSON.parse(kept)).toMatchObject({ allowed: 200, clean: true });
    const state = startFromKey(fresh(), () => kept, 'hash-a', hour, 300);
    // Not a ceiling: the size starts at 200 and doubles on (to the cap) after a fast clean batch.
    expect([state.size, state.ceiling, state.sinceThrottled]).toEqual([200, 300, undefined]);
    expect(observePace(state, clean(200), 300).size).toBe(300);
    // A figure below the start changes nothing.
    const small = JSON.stringify({ key: 'hash-a', allowed: 10, at: 0, clean: true });
    const none = fresh();
    expect(startFromKey(none, () => small, 'hash-a', hour, 300)).toBe(none);
  });

  it('a clean run does not replace a ceiling kept for the key, nor a larger clean figure within the hour', () => {
    const limited = JSON.stringify({ key: 'hash-a', allowed: 25, at: 0 });
    expect(cleanRun([50, 100], limited, hour)).toBeUndefined();
    const larger = cleanRun([50, 100, 200], undefined, 0);
    expect(cleanRun([50], larger, 60_000)).toBeUndefined();
    expect(JSON.parse(cleanRun([50], larger, 2 * hour) as string)).toMatchObject({ allowed: 50 });
    // Another key's figure is replaced.
    expect(JSON.parse(cleanRun([50], larger?.replace('hash-a', 'hash-b'), 60_000) as string)).toMatchObject({
      key: 'hash-a',
    });
  });
});

describe("a bulk run's pace observed batch by batch across its slices (observeRun)", () => {
  const RUN_CAP = 300;
  const T = 1_000_000;
  const runPace = (size: number): PaceState => recallPace(undefined, size, RUN_CAP, 0, false);
  const batch = (size: number, extra: Partial<BatchSample> = {}): BatchSample => ({
    size,
    durationMs: 800,
    failures: 0,
    endedAt: T + 800,
    ...extra,
  });
  const limited = (size: number, refused: number, endedAt = T + 800) =>
    batch(size, { failures: refused, throttled: refused, endedAt });

  it("a clean round grows the run's pace once, from what was at the service, not once per slice", () => {
    let state = runPace(30);
    // Three slices sent 10 each: 30 at the service at once.
    for (let slice = 0; slice < 3; slice++) state = observeRun(state, batch(10), 30, T, RUN_CAP);
    expect(state.size).toBe(240);
    expect(state.requests).toBe(30);
    expect(state.tookClean).toBe(30);
    // After a 429 the run's pace grows twofold a round: the next round, 120 at once, grows it once.
    state = { ...state, size: 120, sinceThrottled: 40 };
    for (let slice = 0; slice < 3; slice++) state = observeRun(state, batch(40), 120, T + 1_000, RUN_CAP);
    expect(state.size).toBe(240);
  });

  it('a clean batch sent while the run had less than its pace at the service neither grows nor shrinks it', () => {
    const state = observeRun(runPace(60), batch(20), 20, T, RUN_CAP);
    expect(state.size).toBe(60);
    expect(state.requests).toBe(20);
  });

  it('429s step the pace back once per wave: a refusal of a batch sent before the step changes nothing more', () => {
    const before = runPace(120);
    const stepped = observeRun(before, limited(40, 10, T + 500), 120, T, RUN_CAP);
    // The service took 110 of the 120 at once: that is the ceiling, and the pace halves below it.
    expect(stepped).toMatchObject({ ceiling: 110, size: 60, steppedAt: T + 500, requests: 40 });
    // Another slice's batch of the same wave (sent at T, before the step) was refused too.
    expect(observeRun(stepped, limited(40, 10, T + 600), 120, T, RUN_CAP)).toBe(stepped);
    // A batch sent after the step that meets 429s again steps again.
    const again = observeRun(stepped, limited(20, 5, T + 1_500), 60, T + 600, RUN_CAP);
    expect(again.size).toBeLessThan(stepped.size);
    expect(again.steppedAt).toBe(T + 1_500);
  });

  it("a lost batch is the batch's own: it halves the pace from its size, even within a wave", () => {
    // A run that has sent many requests cleanly: the loss cap allows more than the halved size.
    const stepped = { ...runPace(120), requests: 10_000, steppedAt: T + 500 };
    const lost = observeRun(stepped, batch(40, { failures: 40, lostBatch: true }), 120, T, RUN_CAP);
    expect(lost.size).toBe(40);
    expect(lost.lost).toBe(1);
    expect(lost.lostAt).toBe(T + 800);
  });

  it('at a ceiling, the clean batches before a try above it are counted in rounds of the run, not batches', () => {
    // A limit of 24 found: three slices send 8 each, a third of a round each batch.
    let state: PaceState = { ...runPace(24), ceiling: 24, sinceThrottled: 0 };
    const sizes: number[] = [];
    for (let round = 0; round < 5; round++)
      for (let slice = 0; slice < 3; slice++) {
        state = observeRun(state, batch(8), 24, T + round * 1_000, RUN_CAP);
        sizes.push(state.size);
      }
    expect(state.sinceThrottled).toBeGreaterThanOrEqual(4);
    // Four rounds keep the pace at the ceiling; the fifth round's first batch tries a step above.
    expect(sizes.slice(0, 12).every((size) => size === 24)).toBe(true);
    expect(sizes[12]).toBe(25);
  });
});

describe('what the progress says of the pace', () => {
  const job = (state: Job['state'], paceReason?: Job['paceReason']) =>
    ({
      state,
      message: '',
      sheetName: 'Sheet1',
      id: 'run',
      counts: emptyCounts(),
      paceReason,
    }) as unknown as Job;

  it('a running run held small says why, in words; a run that ended does not', () => {
    const failing = progressOf(job('running', 'connection_failures'));
    expect(failing.paceReason).toBe('connection_failures');
    expect(paceNotice(failing)).toMatch(/^Small batches after connection failures/);
    expect(paceNotice(progressOf(job('running', 'rate_limited')))).toMatch(/HTTP 429/);
    expect(paceNotice(progressOf(job('running')))).toBe('');
    const ended = progressOf(job('done', 'connection_failures'));
    expect(ended.paceReason).toBeUndefined();
    expect(paceNotice(ended)).toBe('');
  });
});
