/** When batches may start (src/lookup/budget.ts): a bulk slice's deadline and =FINDEMAIL's 30-second budget. */

import {
  FORMULA_TAIL_FACTOR,
  FORMULA_UNTIMED_START_SHARE,
  FORMULA_WORK_BUDGET_MS,
} from '../../src/core/limits';
import { FormulaBudget, fixedBatchSize, sliceBudget } from '../../src/lookup/budget';
import type { BatchSample } from '../../src/lookup/ports';
import { testClock } from '../support/platform';

/** The custom-function limit Apps Script enforces (shared/apps-script-facts.md). */
const FORMULA_LIMIT_MS = 30_000;

function sample(durationMs: number, endedAt: number): BatchSample {
  return { size: 10, durationMs, failures: 0, endedAt };
}

describe('fixedBatchSize', () => {
  it('gives the size it was set to whatever it observes', () => {
    const sizer = fixedBatchSize(7);
    expect(sizer.next()).toBe(7);
    sizer.observe({ size: 7, durationMs: 60_000, failures: 7, lostBatch: true, endedAt: 1 });
    expect(sizer.next()).toBe(7);
  });
});

describe('sliceBudget', () => {
  const deadline = 1_000_000;

  it("lets a slice's first batch go out past the deadline, so every slice makes progress", () => {
    expect(sliceBudget(deadline).mayStart(deadline + 5_000, 0, true)).toBe(true);
  });

  it('holds a later batch, and a first one that must wait (a Retry-After), unless it starts before the deadline', () => {
    const budget = sliceBudget(deadline);
    expect(budget.mayStart(deadline - 1, 0, false)).toBe(true);
    expect(budget.mayStart(deadline, 0, false)).toBe(false);
    expect(budget.mayStart(deadline - 3_000, 2_000, false)).toBe(true);
    expect(budget.mayStart(deadline - 3_000, 3_000, false)).toBe(false);
    expect(budget.mayStart(deadline - 3_000, 3_000, true)).toBe(false);
    expect(budget.lockDeadline()).toBe(deadline);
  });
});

describe('FormulaBudget', () => {
  /** The budget as src/formula/execution.ts makes it for an execution that started at `started`. */
  function formulaBudget(started: number) {
    const end = started + FORMULA_WORK_BUDGET_MS;
    const untimedEnd = started + Math.round(FORMULA_WORK_BUDGET_MS * FORMULA_UNTIMED_START_SHARE);
    return { budget: new FormulaBudget(end, untimedEnd), end, untimedEnd };
  }

  it('while no batch was timed, starts none after the untimed end, which leaves room for a 10-second batch', () => {
    const clock = testClock();
    const { budget, untimedEnd } = formulaBudget(clock.now());
    expect(budget.lockDeadline()).toBe(untimedEnd);
    expect(budget.mayStart(untimedEnd, 0)).toBe(true);
    expect(budget.mayStart(untimedEnd + 1, 0)).toBe(false);
    expect(untimedEnd + 10_000).toBeLessThan(clock.now() + FORMULA_LIMIT_MS);
  });

  it('a Retry-After that would end past the deadline stops the sending instead of waiting', () => {
    const clock = testClock();
    const { budget, untimedEnd } = formulaBudget(clock.now());
    clock.sleep(5_000);
    expect(budget.mayStart(clock.now(), untimedEnd - clock.now())).toBe(true);
    expect(budget.mayStart(clock.now(), untimedEnd - clock.now() + 1)).toBe(false);
  });

  it('once batches are timed, leaves FORMULA_TAIL_FACTOR times the slowest before the end', () => {
    const clock = testClock();
    const { budget, end } = formulaBudget(clock.now());
    clock.sleep(2_000);
    budget.observe(sample(2_000, clock.now()));
    expect(budget.lockDeadline()).toBe(end - FORMULA_TAIL_FACTOR * 2_000);
    clock.sleep(500);
    budget.observe(sample(500, clock.now()));
    expect(budget.lockDeadline()).toBe(end - FORMULA_TAIL_FACTOR * 2_000);
    clock.sleep(6_000);
    budget.observe(sample(6_000, clock.now()));
    expect(budget.lockDeadline()).toBe(end - FORMULA_TAIL_FACTOR * 6_000);
  });

  it('stops sending before the 30 s limit: a batch it lets start ends in time even at twice the slowest so far', () => {
    const clock = testClock();
    const started = clock.now();
    const { budget } = formulaBudget(started);
    const durations = [1_000, 2_000, 2_500, 4_000, 1_500, 4_000, 3_500, 4_000, 4_000];
    let slowest = 0;
    let batches = 0;
    for (const durationMs of durations) {
      if (!budget.mayStart(clock.now())) break;
      if (slowest)
        expect(clock.now() + FORMULA_TAIL_FACTOR * slowest).toBeLessThanOrEqual(
          started + FORMULA_WORK_BUDGET_MS,
        );
      clock.sleep(durationMs);
      expect(clock.now()).toBeLessThanOrEqual(started + FORMULA_WORK_BUDGET_MS);
      budget.observe(sample(durationMs, clock.now()));
      slowest = Math.max(slowest, durationMs);
      batches++;
    }
    expect(batches).toBeGreaterThan(1);
    expect(batches).toBeLessThan(durations.length);
    expect(budget.mayStart(clock.now())).toBe(false);
    expect(FORMULA_WORK_BUDGET_MS).toBeLessThan(FORMULA_LIMIT_MS);
  });

  it('a first batch slower than half the budget starts no second one', () => {
    const clock = testClock();
    const { budget } = formulaBudget(clock.now());
    clock.sleep(13_001);
    budget.observe(sample(13_001, clock.now()));
    expect(budget.mayStart(clock.now())).toBe(false);
    expect(budget.remainingMs(clock.now())).toBe(FORMULA_WORK_BUDGET_MS - 13_001);
  });
});
