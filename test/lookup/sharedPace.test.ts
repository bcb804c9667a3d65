/** A bulk run's pace shared by its slices at once (src/lookup/sharedPace.ts) over a cache in memory. */
import { loadPace, observePace, observeShared, PACE_START, type PaceState } from '../../src/lookup/pace';
import type { BatchSample, DocumentCache } from '../../src/lookup/ports';
import { flightsKey, IDLE_MS, readSlices, SENDING_MS, SharedPace } from '../../src/lookup/sharedPace';
import { memoryCache, testClock } from '../support/platform';

const BATCH_CAP = 100;
const RUN_CAP = 300;
const clean = (size: number, durationMs = 5000): BatchSample => ({ size, durationMs, failures: 0 });
const refused = (size: number, throttled: number): BatchSample => ({
  size,
  durationMs: 5000,
  failures: throttled,
  throttled,
});

/** The shared memory cache, its entries at hand. */
function sharedCache(): DocumentCache & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return { ...memoryCache(values), values };
}

/** A slice joining the run: its pace loaded as a slice's is (src/lookup/paceStep.ts), then shared. */
function slice(cache: DocumentCache, clock: ReturnType<typeof testClock>, token: string): SharedPace {
  const pacer = loadPace(cache, 'bulk', PACE_START, RUN_CAP, clock.now());
  pacer.batchCap = BATCH_CAP;
  const shared = new SharedPace(pacer, PACE_START, cache, 'bulk', token, clock);
  shared.sync();
  return shared;
}

/** Sends the slice's next batch: its size, and the slice's entry says so. */
function send(shared: SharedPace): number {
  const size = shared.next();
  shared.sending(size);
  return size;
}

describe("slices at once share the run's pace: more slices split it, they never add requests", () => {
  it('a slice joining while the first has the whole pace in flight waits for room, then each sends its share', () => {
    const cache = sharedCache();
    const clock = testClock();
    const a = slice(cache, clock, 'a');
    expect(send(a)).toBe(PACE_START);
    const b = slice(cache, clock, 'b');
    const c = slice(cache, clock, 'c');
    // No room: the run's 50 are in flight (b's time is spent waiting, up to its deadline).
    const begun = clock.now();
    expect(b.awaitRoom(begun + 2000)).toBe(false);
    expect(clock.now() - begun).toBeLessThan(2000);
    a.observe(clean(PACE_START));
    // A batch of the whole run came back fast and clean: the run's size doubles, split three ways.
    expect(readSlices(cache, 'bulk', clock.now())).toMatchObject({ slices: 3, sending: 0 });
    expect(b.awaitRoom(clock.now() + 60_000)).toBe(true);
    expect(send(b)).toBe(33);
    expect(c.awaitRoom(clock.now() + 60_000)).toBe(true);
    expect(send(c)).toBe(33);
    a.sync();
    expect(send(a)).toBe(33);
    expect(readSlices(cache, 'bulk', clock.now()).sending).toBe(99);
  });

  it('the run grows once a round (not once per slice), to the cap across slices, each fetchAll at most its cap', () => {
    const cache = sharedCache();
    const clock = testClock();
    const slices = ['a', 'b', 'c'].map((token) => slice(cache, clock, token));
    const rounds: number[] = [];
    for (let round = 0; round < 6; round++) {
      const sizes = slices.map((shared) => {
        shared.sync();
        return send(shared);
      });
      rounds.push(sizes.reduce((sum, size) => sum + size, 0));
      slices.forEach((shared, index) => {
        shared.observe(clean(sizes[index]));
      });
    }
    expect(rounds).toEqual([48, 99, 198, 300, 300, 300]);
    expect(Math.max(...slices.map((shared) => shared.next()))).toBe(BATCH_CAP);
  });

  it('a 429 shrinks every slice together; at a limit already found, a refusal costs a step back, not a fall', () => {
    const cache = sharedCache();
    const clock = testClock();
    const slices = ['a', 'b', 'c'].map((token) => slice(cache, clock, token));
    // 50 across three (16 each, 48 in flight) against a service taking 25: the rest answered 429.
    const sizes = slices.map(send);
    slices[0].observe(refused(sizes[0], 0));
    slices[1].observe(refused(sizes[1], 7));
    slices[2].observe(refused(sizes[2], 16));
    for (const shared of slices) shared.sync();
    const state = JSON.parse(cache.values.get('pef.pace.bulk') as string) as PaceState;
    expect(state.size).toBeLessThanOrEqual(25);
    expect(state.size).toBeGreaterThanOrEqual(12);
    const after = slices.map(send);
    expect(after.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(state.size);
  });

  it('observeShared: one refusal above a limit already found steps back to it; once stepped back, another slice changes nothing', () => {
    const found: PaceState = {
      size: 27,
      ceiling: 25,
      requests: 500,
      lost: 0,
      fastestMs: 4000,
      sinceThrottled: 8,
      failedProbes: 1,
    };
    const sized = { run: 27, share: 9 };
    const stepped = observeShared(found, refused(9, 2), sized, RUN_CAP);
    expect(stepped.size).toBe(25);
    expect(stepped.ceiling).toBe(25);
    expect(stepped.failedProbes).toBe(2);
    expect(observeShared(stepped, refused(9, 1), sized, RUN_CAP)).toMatchObject({
      size: 25,
      ceiling: 25,
      failedProbes: 2,
    });
    // A clean batch of one slice above the ceiling does not end the longer wait: the others' may have met 429s.
    expect(observeShared(stepped, clean(9), sized, RUN_CAP).failedProbes).toBe(2);
  });

  it('at a limit already found, the clean batches before a try above it count in rounds of the run, as a lone slice counts its batches', () => {
    const atLimit: PaceState = {
      size: 25,
      ceiling: 25,
      requests: 500,
      lost: 0,
      fastestMs: 4000,
      sinceThrottled: 0,
      failedProbes: 0,
    };
    const cleanUntilTry = (next: (state: PaceState) => PaceState): number => {
      let state = atLimit;
      for (let batch = 1; batch <= 100; batch++) {
        state = next(state);
        if (state.size > atLimit.ceiling) return batch;
      }
      return Number.POSITIVE_INFINITY;
    };
    const alone = cleanUntilTry((state) => observePace(state, clean(25, 4000), RUN_CAP));
    const threeSlices = cleanUntilTry((state) =>
      observeShared(state, clean(8, 4000), { run: 25, share: 8 }, RUN_CAP),
    );
    expect(alone).toBe(5);
    expect(threeSlices).toBe(3 * (alone - 1) + 1);
  });

  it('a slice that ends leaves; one killed mid-batch counts until its entry expires; the pace outlives them', () => {
    const cache = sharedCache();
    const clock = testClock();
    const a = slice(cache, clock, 'a');
    const b = slice(cache, clock, 'b');
    send(a);
    send(b);
    a.leave();
    expect(readSlices(cache, 'bulk', clock.now()).slices).toBe(1);
    clock.sleep(IDLE_MS);
    // b was killed with its batch in flight: it still counts, until SENDING_MS after it sent.
    expect(readSlices(cache, 'bulk', clock.now()).slices).toBe(1);
    clock.sleep(SENDING_MS - IDLE_MS);
    expect(readSlices(cache, 'bulk', clock.now())).toMatchObject({ slices: 0, sending: 0 });
    expect(readSlices(cache, 'bulk', clock.now()).state?.size).toBe(PACE_START);
    // The cache lost its entries (best-effort): a slice is alone and goes on at its own pace.
    cache.values.delete(flightsKey('bulk'));
    const c = slice(cache, clock, 'c');
    expect(c.next()).toBe(PACE_START);
  });
});
