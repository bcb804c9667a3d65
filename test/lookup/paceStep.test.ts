/**
 * One pace step (src/lookup/paceStep.ts) over a document cache in memory and the fake clock: where a pace starts
 * (the cache, the document property's copy, the key's figure) and what is kept when the session closes.
 */

import { stableHash } from '../../src/core/hash';
import { PACE_PREFIX } from '../../src/core/propertyNames';
import { loadPace, PACE_REWRITE_MS } from '../../src/lookup/pace';
import { openPace, type PaceSpec } from '../../src/lookup/paceStep';
import type { LookupPorts } from '../../src/lookup/ports';
import { memoryCache, testClock } from '../support/platform';

const START = 20;
const CAP = 100;
const KEY_HASH = stableHash('key-of-ann-123');

/** Ports with a cache and the fake clock; `property` and `keyFigure` stand for the document and user properties. */
function world() {
  const clock = testClock();
  const entries = new Map<string, string>();
  const cache = memoryCache(entries);
  const ports = { cache, clock } as unknown as LookupPorts;
  const stores = { property: undefined as string | undefined, keyFigure: undefined as string | undefined };
  const writes = { property: 0, keyFigure: 0 };
  const spec = (extra: Partial<PaceSpec> = {}): PaceSpec => ({
    scope: 'formula',
    start: START,
    cap: CAP,
    kept: () => stores.property,
    keep: (value) => {
      writes.property++;
      stores.property = value;
    },
    ...extra,
  });
  const key: NonNullable<PaceSpec['key']> = {
    hash: KEY_HASH,
    read: () => stores.keyFigure,
    write: (value) => {
      writes.keyFigure++;
      stores.keyFigure = value;
    },
  };
  return { clock, entries, cache, ports, stores, writes, spec, key };
}

const clean = (size: number, endedAt: number) => ({ size, durationMs: 300, failures: 0, endedAt });
const throttled = (size: number, refused: number, endedAt: number) => ({
  size,
  durationMs: 300,
  failures: refused,
  throttled: refused,
  endedAt,
});

describe('openPace', () => {
  it('with nothing kept, starts at `start` and sizes the batches itself', () => {
    const w = world();
    const step = openPace(w.ports, w.spec());
    expect(step.sizer).toBe(step.pacer);
    expect(step.shared).toBeUndefined();
    expect(step.sizer.next()).toBe(START);
    expect(step.policy.scope).toBe('formula');
  });

  it('the next execution starts where the last one ended: kept in the cache when the session closes', () => {
    const w = world();
    const first = openPace(w.ports, w.spec());
    first.pacer.observe(clean(START, w.clock.now()));
    const grown = first.pacer.state.size;
    expect(grown).toBeGreaterThan(START);
    first.policy.keep(first.pacer);
    w.clock.sleep(5_000);
    const next = openPace(w.ports, w.spec());
    expect(next.pacer.state.size).toBe(grown);
    expect(w.entries.has(`${PACE_PREFIX}formula`)).toBe(true);
  });

  it("when the cache's copy is gone, the document property's copy is the start", () => {
    const w = world();
    const first = openPace(w.ports, w.spec());
    first.pacer.observe(throttled(START, 8, w.clock.now()));
    first.policy.keep(first.pacer);
    const ceiling = first.pacer.state.ceiling;
    expect(ceiling).toBeLessThan(CAP);
    w.entries.clear();
    const next = openPace(w.ports, w.spec());
    expect(next.pacer.state.ceiling).toBe(ceiling);
  });

  it('writes the document property only when it says something new, or after PACE_REWRITE_MS', () => {
    const w = world();
    const step = openPace(w.ports, w.spec());
    step.pacer.observe(clean(START, w.clock.now()));
    step.policy.keep(step.pacer);
    expect(w.writes.property).toBe(1);
    const again = openPace(w.ports, w.spec());
    again.pacer.observe(clean(again.pacer.next(), w.clock.now()));
    again.policy.keep(again.pacer);
    expect(w.writes.property).toBe(1);
    w.clock.sleep(PACE_REWRITE_MS);
    const later = openPace(w.ports, w.spec());
    later.pacer.observe(clean(later.pacer.next(), w.clock.now()));
    later.policy.keep(later.pacer);
    expect(w.writes.property).toBe(2);
  });

  it("a pace that has sent nothing starts at what the key's service took elsewhere (another spreadsheet)", () => {
    const elsewhere = world();
    const run = openPace(elsewhere.ports, elsewhere.spec({ key: elsewhere.key }));
    run.pacer.observe(throttled(START, 8, elsewhere.clock.now()));
    run.policy.keep(run.pacer);
    expect(elsewhere.writes.keyFigure).toBe(1);
    const took = run.pacer.state.ceiling;
    expect(took).toBeLessThan(CAP);

    const here = world();
    here.stores.keyFigure = elsewhere.stores.keyFigure;
    const step = openPace(here.ports, here.spec({ key: here.key }));
    expect(step.pacer.state.ceiling).toBe(took);
    expect(step.sizer.next()).toBeLessThanOrEqual(took);
  });

  it("another key's figure is not used, and a run the service never limited keeps what it took, marked clean", () => {
    const w = world();
    w.stores.keyFigure = JSON.stringify({ key: stableHash('key-of-bob-456'), allowed: 3, at: w.clock.now() });
    const step = openPace(w.ports, w.spec({ key: w.key }));
    expect(step.pacer.state.ceiling).toBe(CAP);
    step.pacer.observe(clean(START, w.clock.now()));
    step.policy.keep(step.pacer);
    expect(w.writes.keyFigure).toBe(1);
    expect(JSON.parse(String(w.stores.keyFigure))).toMatchObject({ allowed: START, clean: true });
  });

  it("a slice of a bulk run shares the run's pace: its sizer is the share, its fetchAll bounded by batchCap", () => {
    const w = world();
    const step = openPace(w.ports, w.spec({ scope: 'bulk', shared: { token: 'slice-1', batchCap: 7 } }));
    expect(step.shared).toBeDefined();
    expect(step.sizer).toBe(step.shared);
    expect(step.pacer.batchCap).toBe(7);
    expect(step.pacer.share()).toBeLessThanOrEqual(7);
  });

  it('keeps the same pace as loadPace reads it back (one scope, one copy)', () => {
    const w = world();
    const step = openPace(w.ports, w.spec());
    step.pacer.observe(clean(START, w.clock.now()));
    step.policy.keep(step.pacer);
    expect(loadPace(w.cache, 'formula', START, CAP, w.clock.now()).state).toEqual(step.pacer.state);
  });
});
