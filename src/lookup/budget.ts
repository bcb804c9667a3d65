/** When batches may start, and how big they are: the policies of a bulk slice and of a =FINDEMAIL execution. */
import { FORMULA_TAIL_FACTOR } from '../core/limits';
import type { BatchSample, BatchSizer, SendBudget } from './ports';

/** A fixed number of requests per batch (the ENRICH_BATCH_SIZE and FETCH_CONCURRENCY script properties). */
export function fixedBatchSize(size: number): BatchSizer {
  return { next: () => size, observe: () => undefined };
}

/**
 * A bulk slice: its first batch always goes out, so every slice makes progress however small its budget; later
 * batches and retries only while they start before the deadline (a wide margin under the 6-minute limit).
 */
export function sliceBudget(deadline: number): SendBudget {
  return {
    mayStart: (now, waitMs, first) => (first && waitMs === 0) || now + waitMs < deadline,
    lockDeadline: () => deadline,
    observe: () => undefined,
  };
}

/**
 * A =FINDEMAIL execution: no batch starts unless it ends before `end` even when one of its requests is as slow as
 * the slowest plausible answer: FORMULA_TAIL_FACTOR times the slowest batch of this execution so far; while none
 * was timed, none starts after `untimedEnd`. UrlFetchApp has no per-request timeout, so an answer slower than that
 * can still outlast the 30 s (docs/design.md, "The 30-second budget of =FINDEMAIL").
 */
export class FormulaBudget implements SendBudget {
  private slowestMs = 0;

  constructor(
    /** Epoch ms: no batch may still run after this. */
    readonly end: number,
    private readonly untimedEnd: number,
  ) {}

  mayStart(now: number, waitMs = 0): boolean {
    return now + waitMs <= this.lockDeadline();
  }

  /** The latest a batch may start: it may take FORMULA_TAIL_FACTOR times the slowest so far, or all past 14 s. */
  lockDeadline(): number {
    return this.end - (this.slowestMs ? FORMULA_TAIL_FACTOR * this.slowestMs : this.end - this.untimedEnd);
  }

  observe(sample: BatchSample): void {
    this.slowestMs = Math.max(this.slowestMs, sample.durationMs);
  }

  /** Time left before the end of the work budget. */
  remainingMs(now: number): number {
    return this.end - now;
  }
}
