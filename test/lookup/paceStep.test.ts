/**
 * One pace step of the formulas (src/lookup/paceStep.ts) over a document cache in memory and the fake clock: where a
 * pace starts (the cache, the document property's copy) and what is kept when the session closes. A bulk run's pace
 * is its job's (test/bulk/runPace.test.ts).
 */

import { PACE_PREFIX } from '../../src/core/propertyNames';
import { loadPace, PACE_REWRITE_MS } from '../../src/lookup/pace';
import { openPace, type PaceSpec } from '../../src/lookup/paceStep';
import type { LookupPorts } from '../../src/lookup/ports';
import { memoryCache, testClock } from '../support/platform';

const START = 20;
const CAP = 100;

/** Ports with a cache and the fake clock; `property` stands for the document property's copy. */
function world() {
  const clock = testClock();
  const entries = new Map<string, string>();
  const cache = memoryCache(entries);
  const ports = { cache, clock } as unknown as LookupPorts;
  const stores = { property: undefined as string | undefined };
  const writes = { property: 0 };
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
  return { clock, entries, cache, ports, stores, writes, spec };
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
    expect(step.pacer.next()).toBe(START);
    expect(step.policy.pacer).toBe(step.pacer);
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

  it('keeps the same pace as loadPace reads it back (one scope, one copy)', () => {
    const w = world();
    const step = openPace(w.ports, w.spec());
    step.pacer.observe(clean(START, w.clock.now()));
    step.policy.keep(step.pacer);
    expect(loadPace(w.cache, 'formula', START, CAP, w.clock.now()).state).toEqual(step.pacer.state);
  });
});
