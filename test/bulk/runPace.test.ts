/**
 * A bulk run's pace in its job (src/bulk/runPace.ts), pure: where a new run starts, the pace as a slice reads it,
 * how many slices it is split into, and each slice's share of it with the others at work.
 */
import {
  mostSlices,
  paceNow,
  runCap,
  seedPace,
  shareNow,
  slicesFor,
  splitAtLimit,
} from '../../src/bulk/runPace';
import type { ScriptConfig } from '../../src/core/config';
import { DEFAULT_SLICES, MAX_SLICES, SLICE_MIN_SHARE } from '../../src/core/limits';
import {
  knowsNothing,
  LOSS_HALF_LIFE_MS,
  PACE_START,
  type PaceState,
  recallPace,
} from '../../src/lookup/pace';

const NOW = Date.UTC(2026, 10, 27, 9);
const CAP = 300;
const KEY = 'key-hash';
const figure = (allowed: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ key: KEY, allowed, at: NOW - 60_000, ...extra });
const pace = (size: number): PaceState => recallPace(undefined, size, CAP, NOW, false);

describe('the run cap', () => {
  it('BULK_SLICES, or DEFAULT_SLICES, at most MAX_SLICES; the cap is one fetchAll for each', () => {
    expect(mostSlices({})).toBe(DEFAULT_SLICES);
    expect(mostSlices({ slices: 2 })).toBe(2);
    expect(mostSlices({ slices: MAX_SLICES + 5 })).toBe(MAX_SLICES);
    expect(runCap({ slices: 2, maxConcurrency: 70 } as ScriptConfig)).toBe(140);
  });
});

describe('seedPace', () => {
  it('knowing nothing: PACE_START under the cap, the ceiling the cap', () => {
    const state = seedPace(CAP, NOW, {});
    expect(state).toMatchObject({ size: PACE_START, ceiling: CAP });
    expect(knowsNothing(state)).toBe(true);
    expect(seedPace(20, NOW, {}).size).toBe(20);
  });

  it("starts at the ceiling the key's service met elsewhere, not above it; at a clean figure, from there", () => {
    expect(seedPace(CAP, NOW, { key: { hash: KEY, figure: figure(30) } })).toMatchObject({
      size: 30,
      ceiling: 30,
    });
    expect(seedPace(CAP, NOW, { key: { hash: KEY, figure: figure(120, { clean: true }) } })).toMatchObject({
      size: 120,
      ceiling: CAP,
    });
    // Another key's figure, or none, changes nothing.
    expect(seedPace(CAP, NOW, { key: { hash: 'other', figure: figure(30) } }).size).toBe(PACE_START);
    expect(seedPace(CAP, NOW, { key: { hash: KEY, figure: null } }).size).toBe(PACE_START);
  });

  it("where the spreadsheet's last run ended, within a week: before the key's figure", () => {
    const last = { ...seedPace(CAP, NOW, {}), size: 240, requests: 500 };
    expect(
      seedPace(CAP, NOW, { last: { pace: last, at: NOW - 60_000 }, key: { hash: KEY, figure: figure(30) } })
        .size,
    ).toBe(240);
    expect(seedPace(CAP, NOW, { last: { pace: last, at: NOW - 8 * 24 * 3600_000 } }).size).toBe(PACE_START);
  });

  it("Start's key check answered is the run's one request that is not a lookup: no slice sends another", () => {
    const state = seedPace(CAP, NOW, { checkMs: 250 });
    expect(knowsNothing(state)).toBe(false);
    expect(state).toMatchObject({ requests: 1, clean: 1, size: PACE_START, fastestMs: 0 });
  });
});

describe('paceNow', () => {
  it("a run without a pace starts one; a kept one has its losses faded, and keeps within today's cap", () => {
    expect(paceNow(undefined, CAP, NOW)).toMatchObject({ size: PACE_START, ceiling: CAP });
    const lossy: PaceState = { ...pace(200), lost: 1, lostAt: NOW - 10 * LOSS_HALF_LIFE_MS, requests: 500 };
    expect(paceNow(lossy, CAP, NOW).lost).toBe(0);
    const recent: PaceState = { ...lossy, lostAt: NOW - LOSS_HALF_LIFE_MS };
    expect(paceNow(recent, CAP, NOW).lost).toBeCloseTo(0.5);
    // FETCH_MAX_CONCURRENCY or BULK_SLICES lowered since the pace was kept.
    expect(paceNow(pace(200), 100, NOW)).toMatchObject({ size: 100, ceiling: 100 });
  });
});

describe('slicesFor', () => {
  it('as many slices as give each SLICE_MIN_SHARE requests, one at least, `most` at most', () => {
    expect(slicesFor(3, SLICE_MIN_SHARE - 1)).toBe(1);
    expect(slicesFor(3, 2 * SLICE_MIN_SHARE)).toBe(2);
    expect(slicesFor(3, 100)).toBe(3);
  });
});

describe('shareNow', () => {
  it('alone, the whole pace up to one fetchAll', () => {
    expect(shareNow(pace(50), 100, { working: 0, atService: 0 })).toBe(50);
    expect(shareNow(pace(250), 100, { working: 0, atService: 0 })).toBe(100);
  });

  it('with others at work, its part of the pace, never more than the pace less what they have at the service', () => {
    expect(shareNow(pace(90), 100, { working: 2, atService: 40 })).toBe(30);
    // Their batches fill all but 20 of the pace: 20, at least half a share.
    expect(shareNow(pace(90), 100, { working: 2, atService: 70 })).toBe(20);
  });

  it('at a limit the service showed, a slice alone sends its part of the split, not the whole pace', () => {
    const limited: PaceState = { ...pace(25), ceiling: 25, sinceThrottled: 0 };
    const split = splitAtLimit(limited, CAP, 4);
    expect(split).toBe(4);
    expect(shareNow(limited, 100, { working: 0, atService: 0 }, split)).toBe(6);
    // Joined by more slices than the split: theirs.
    expect(shareNow({ ...limited, size: 60, ceiling: 60 }, 100, { working: 4, atService: 0 }, 4)).toBe(12);
    // Below no limit: whole fetchAlls.
    expect(splitAtLimit(pace(250), CAP, 4)).toBe(1);
    expect(shareNow(pace(250), 100, { working: 0, atService: 0 }, splitAtLimit(pace(250), CAP, 4))).toBe(100);
  });

  it('waits (0) while the others leave under half a share of the pace, or more than all of it', () => {
    expect(shareNow(pace(90), 100, { working: 2, atService: 76 })).toBe(0);
    expect(shareNow(pace(90), 100, { working: 2, atService: 120 })).toBe(0);
    // A pace of one request: one slice at a time.
    expect(shareNow(pace(1), 100, { working: 1, atService: 1 })).toBe(0);
    expect(shareNow(pace(1), 100, { working: 1, atService: 0 })).toBe(1);
  });
});
