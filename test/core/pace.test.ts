/** The adaptive batch size (src/lookup/pace.ts): pure rules, no clock, no emulator. */
import { DEFAULT_CONCURRENCY, FORMULA_PROBE_ABOVE, PROBE_REQUESTS, PROBE_START } from '../../src/core/limits';
import {
  FAST_FACTOR,
  knowsNothing,
  LOSS_TARGET,
  loadPace,
  lossCap,
  observePace,
  observeProbe,
  PACE_START,
  type PaceState,
  probeWorthIt,
} from '../../src/lookup/pace';
import type { BatchSample, DocumentCache } from '../../src/lookup/ports';

const CAP = 100;
const clean = (size: number, durationMs = 1000): BatchSample => ({ size, durationMs, failures: 0 });
const newPace = (start: number, cap: number): PaceState => loadPace(null, 'bulk', start, cap).state;

function run(state: PaceState, samples: Array<(size: number) => BatchSample>): number[] {
  const sizes: number[] = [];
  let current = state;
  for (const sample of samples) {
    current = observePace(current, sample(current.size), CAP);
    sizes.push(current.size);
  }
  return sizes;
}

describe('the batch size controller', () => {
  it('starts modestly and grows fourfold while full batches come back fast and clean, up to the cap', () => {
    const sizes = run(
      newPace(PACE_START, CAP),
      new Array(5).fill((size: number) => clean(size)),
    );
    expect(sizes).toEqual([16, 64, 100, 100, 100]);
  });

  it('after an answer lost to a connection failure, it grows twofold only, and no further than the losses allow', () => {
    let state = newPace(40, CAP);
    state = observePace(state, { size: 40, durationMs: 100, failures: 40, lostBatch: true }, CAP);
    expect(state.size).toBe(2);
    // One loss in 40 (+10 assumed clean) requests caps the size at 2; it rises as clean requests accumulate.
    let previous = state.size;
    for (let i = 0; i < 100; i++) {
      state = observePace(state, clean(state.size, 100), CAP);
      expect(state.size).toBeLessThanOrEqual(2 * previous);
      expect(state.size).toBeLessThanOrEqual(lossCap(state, CAP));
      previous = state.size;
    }
    expect(state.size).toBeGreaterThan(2);
    expect(state.size).toBeLessThan(CAP);
  });

  it('holds on a slow batch or a smaller one than asked for (a window ending)', () => {
    let state = observePace(newPace(8, CAP), clean(8, 1000), CAP);
    expect(state.size).toBe(32);
    state = observePace(state, clean(32, 1000 * FAST_FACTOR + 1), CAP);
    expect(state.size).toBe(32);
    state = observePace(state, clean(3, 500), CAP);
    expect(state.size).toBe(32);
  });

  it('halves on a 429 or 5xx, regrows to what the service took, then by a twentieth per clean batch', () => {
    let state = newPace(64, CAP);
    state = observePace(state, { size: 64, durationMs: 900, failures: 3, throttled: 3 }, CAP);
    expect(state.size).toBe(32);
    expect(state.ceiling).toBe(61);
    const sizes = run(
      state,
      new Array(3).fill((size: number) => clean(size)),
    );
    expect(sizes).toEqual([61, 64, 67]);
  });

  it('a batch lost to a connection failure halves the size; frequent losses bring it down to one', () => {
    let state = newPace(32, CAP);
    state = observePace(state, { size: 32, durationMs: 100, failures: 32, lostBatch: true }, CAP);
    expect(state.size).toBeLessThanOrEqual(16);
    // One request in ten fails: every batch of n loses n-1 answers with probability 1-0.9^(n-1).
    let lostEvery = 0;
    for (let i = 0; i < 200; i++) {
      const lost = ++lostEvery % 10 === 0;
      state = observePace(
        state,
        { size: state.size, durationMs: 100, failures: lost ? state.size : 0, lostBatch: lost },
        CAP,
      );
    }
    expect(state.size).toBe(1);
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

  it('a clean connection probe starts the paid batches at PROBE_START and counts its requests, not its time', () => {
    const fresh = newPace(PACE_START, CAP);
    expect(knowsNothing(fresh)).toBe(true);
    const probed = observeProbe(fresh, clean(PROBE_REQUESTS, 5), PROBE_START, CAP);
    expect(probed).toMatchObject({ size: PROBE_START, requests: PROBE_REQUESTS, lost: 0, fastestMs: 0 });
    expect(knowsNothing(probed)).toBe(false);
    // The key checks were answered at once: the first paid batch (3 s) is not "slow" beside them.
    expect(
      run(
        probed,
        new Array(3).fill((size: number) => clean(size, 3000)),
      ),
    ).toEqual([64, 100, 100]);
    // A lower cap bounds the start.
    expect(observeProbe(newPace(PACE_START, 10), clean(10, 5), PROBE_START, 10).size).toBe(10);
  });

  it('a probe lost to a connection failure starts the pace at 1, and the loss keeps it small', () => {
    const lost = observeProbe(
      newPace(PACE_START, CAP),
      { size: PROBE_REQUESTS, durationMs: 5, failures: PROBE_REQUESTS, lostBatch: true },
      PROBE_START,
      CAP,
    );
    expect(lost).toMatchObject({ size: 1, requests: PROBE_REQUESTS, lost: 1 });
    const sizes = run(
      lost,
      new Array(12).fill((size: number) => clean(size, 100)),
    );
    // One loss in 35 requests: single requests until enough clean ones lift the cap, then growth by two.
    expect(sizes.slice(0, 3)).toEqual([1, 1, 1]);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(2 * sizes[i - 1]);
    expect(sizes[sizes.length - 1]).toBeLessThan(PROBE_START);
  });

  it('a probe is worth it only while the pace knows nothing and its first batch would hold more than a few', () => {
    const formula = newPace(DEFAULT_CONCURRENCY, CAP);
    expect(probeWorthIt(formula, 40, FORMULA_PROBE_ABOVE)).toBe(true);
    expect(probeWorthIt(formula, FORMULA_PROBE_ABOVE + 1, FORMULA_PROBE_ABOVE)).toBe(true);
    // A cell of one URL, or a few: no key checks.
    expect(probeWorthIt(formula, 1, FORMULA_PROBE_ABOVE)).toBe(false);
    expect(probeWorthIt(formula, FORMULA_PROBE_ABOVE, FORMULA_PROBE_ABOVE)).toBe(false);
    // A pace capped at a few (FETCH_MAX_CONCURRENCY), or one that observed a batch: none either.
    expect(probeWorthIt(newPace(DEFAULT_CONCURRENCY, 3), 40, FORMULA_PROBE_ABOVE)).toBe(false);
    expect(probeWorthIt(observePace(formula, clean(20), CAP), 40, FORMULA_PROBE_ABOVE)).toBe(false);
    // The bulk run probes for any URL to send.
    expect(probeWorthIt(newPace(PACE_START, CAP), 1, 0)).toBe(true);
    expect(probeWorthIt(newPace(PACE_START, CAP), 0, 0)).toBe(false);
  });

  it('a throttled probe (429 or 5xx) sets the ceiling at what the service took', () => {
    const throttled = observeProbe(
      newPace(PACE_START, CAP),
      { size: PROBE_REQUESTS, durationMs: 5, failures: 10, throttled: 10 },
      PROBE_START,
      CAP,
    );
    expect(throttled).toMatchObject({ size: PACE_START / 2, ceiling: PROBE_REQUESTS - 10 });
  });

  it('is kept in the document cache between executions', () => {
    const cache = new Map<string, string>();
    const port = {
      get: (key: string) => cache.get(key) ?? null,
      put: (key: string, value: string) => cache.set(key, value),
    } as unknown as DocumentCache;
    const pacer = loadPace(port, 'bulk', PACE_START, CAP);
    expect(pacer.next()).toBe(PACE_START);
    pacer.observe(clean(PACE_START, 800));
    // A Retry-After answered at the end of a slice holds the next slice's batches too.
    pacer.hold(50_000);
    pacer.hold(40_000);
    pacer.save(port, 'bulk');
    const later = loadPace(port, 'bulk', PACE_START, CAP);
    expect(later.next()).toBe(4 * PACE_START);
    expect(later.notBefore()).toBe(50_000);
    expect(later.state.fastestMs).toBe(800);
    // Another scope starts afresh; a cap lowered meanwhile applies at once; an unreadable pace starts over.
    expect(loadPace(port, 'formula', 20, CAP).next()).toBe(20);
    expect(loadPace(port, 'bulk', PACE_START, 5).next()).toBe(5);
    cache.set('pef.pace.bulk', '{"size":');
    expect(loadPace(port, 'bulk', PACE_START, CAP).state).toEqual(newPace(PACE_START, CAP));
  });
});
