/** When batches may start, and how big they are: the policies of a bulk slice and of a =FINDEMAIL execution. */
import type { BatchSample, BatchSizer, SendBudget } from '../../core/ports';

/** A fixed number of requests per batch (issue 12 replaces it with an adaptive controller). */
export function fixedBatchSize(size: number): BatchSizer {
  return { next: () => size, observe: () => undefined };
}

/**
 * A bulk slice: its first batch always goes out, so every slice makes progress however small its budget; later
 * batches and retries only while they start before the deadline.
 */
export function sliceBudget(deadline: number): SendBudget {
  return {
    mayStart: (now, waitMs, first) => (first && waitMs === 0) || now + waitMs < deadline,
    resendDeadline: () => deadline,
    observe: () => undefined,
  };
}

/**
 * A =FINDEMAIL execution: no batch starts unless, judging by the slowest batch so far, it ends before `end`;
 * while none was timed, none starts after `untimedEnd`.
 */
export class FormulaBudget implements SendBudget {
  private slowestMs = 0;

  constructor(
    /** Epoch ms: no batch may still run after this. */
    readonly end: number,
    private readonly untimedEnd: number,
  ) {}

  mayStart(now: number, waitMs = 0): boolean {
    if (this.slowestMs === 0 && now + waitMs > this.untimedEnd) return false;
    return now + waitMs + this.slowestMs <= this.end;
  }

  resendDeadline(): number {
    return this.end - this.slowestMs;
  }

  observe(sample: BatchSample): void {
    this.slowestMs = Math.max(this.slowestMs, sample.durationMs);
  }

  /** Time left before the end of the work budget. */
  remainingMs(now: number): number {
    return this.end - now;
  }
}
