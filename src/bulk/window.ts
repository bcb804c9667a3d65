/**
 * The windows of one slice: each plans its rows, looks the pending URLs up through the lookup pipeline, checks the
 * rows again and writes the results, then moves the cursor. After the last row, a pass over the whole range finds
 * rows still without a result, or finishes the job.
 */

import { readScriptConfig } from '../adapters/scriptConfig';
import { CELL } from '../core/cells';
import { BULK_CLAIM_SECONDS, DEFAULT_RETRY, MAX_PASSES, MAX_WINDOW_ROWS } from '../core/limits';
import { haltOf } from '../lookup/answers';
import { fixedBatchSize, sliceBudget } from '../lookup/budget';
import { BULK_CLAIM } from '../lookup/claims';
import type { ServiceError } from '../lookup/contract';
import { checkKeyFirst } from '../lookup/keyCheck';
import { knowsNothing, loadPace, PACE_START } from '../lookup/pace';
import { claimUnknown, type SendReport, sendClaimed } from '../lookup/pipeline';
import { readJobCells } from './columns';
import { finalCounts } from './counting';
import { firstWithoutStatus, planRows, type RowPlan, stillPending } from './rowPlan';
import { apply, saveProgress, working } from './slice';
import { buysAgain, copyOf, read, resultOf, type Slice } from './sliceState';
import { writeWindow } from './writeWindow';

export type { Slice };

/** At least one window per slice, so a slice always makes progress. */
export function runWindows(slice: Slice): void {
  const { cache } = slice.ports;
  if (slice.batchSize === undefined)
    slice.pacer = loadPace(
      cache,
      PACE_SCOPE,
      PACE_START,
      readScriptConfig().maxConcurrency,
      slice.ports.clock.now(),
    );
  // The ramp risks a share of the rows still ahead (src/core/pace.ts rampCap).
  if (slice.pacer) slice.pacer.runRows = Math.max(0, slice.job.lastRow - slice.job.cursor + 1);
  try {
    for (let window = 0; working(slice) && (window === 0 || Date.now() < slice.deadline); window++) {
      if (slice.job.cursor > slice.job.lastRow) {
        if (!startNextPass(slice)) break;
        slice.block = null;
        continue;
      }
      if (!processWindow(slice)) break;
    }
  } finally {
    slice.pacer?.save(cache, PACE_SCOPE);
  }
}

export const PACE_SCOPE = 'bulk';

/**
 * Rows the next window reads: a fixed size, or (adaptive) twice the requests of one batch; the window then ends at
 * the row where one batch is full (`rowsForOneBatch`).
 */
function windowRows(slice: Slice): number {
  return slice.pacer ? Math.min(MAX_WINDOW_ROWS, 2 * slice.pacer.next()) : (slice.batchSize ?? PACE_START);
}

/** The rows, from the first, whose lookups fill one batch of `limit` requests (a batch with fewer waits as long). */
function rowsForOneBatch(slice: Slice, plans: RowPlan[], limit: number): number {
  const keys = new Set<string>();
  for (let index = 0; index < plans.length; index++) {
    const plan = plans[index];
    if (plan.action !== 'lookup' || keys.has(plan.key) || resultOf(slice, plan.key)) continue;
    if (keys.size === limit) return index;
    keys.add(plan.key);
  }
  return plans.length;
}

export interface WindowPlan {
  size: number;
  plans: RowPlan[];
  /** Rows whose output cells hold something of the user's: never written, nothing spent on them. */
  unwritable: Set<number>;
}

function planWindow(slice: Slice): WindowPlan {
  const { job } = slice;
  const windowEnd = Math.min(job.cursor + windowRows(slice) - 1, job.lastRow);
  let size = windowEnd - job.cursor + 1;
  if (!slice.block || slice.blockStart !== job.cursor || slice.block.length < size) {
    slice.block = read(slice, job.cursor, size);
    slice.blockStart = job.cursor;
  }
  const block = slice.block;
  const firstPass = job.pass === 1;
  const planned = planRows(block.slice(0, size), job.recheck && firstPass, firstPass, slice.hosts, job.redo);
  const plans = slice.pacer ? planned.slice(0, rowsForOneBatch(slice, planned, slice.pacer.next())) : planned;
  size = plans.length;
  const unwritable = new Set<number>();
  plans.forEach((plan, index) => {
    if (
      plan.action !== 'keep' &&
      plan.action !== 'blank' &&
      !stillPending(block[index], job.recheck && firstPass, firstPass, job.redo)
    ) {
      unwritable.add(index);
    }
  });
  return { size, plans, unwritable };
}

/** The window's URLs without a result (and without a copy in the sheet), with the spelling each is sent in. */
function wantedKeys(slice: Slice, window: WindowPlan): { wanted: string[]; sentOf: Map<string, string> } {
  const sentOf = new Map<string, string>();
  const wanted: string[] = [];
  window.plans.forEach((plan, index) => {
    if (plan.action !== 'lookup' || window.unwritable.has(index)) return;
    if (sentOf.has(plan.key) || resultOf(slice, plan.key)) return;
    sentOf.set(plan.key, plan.sent);
    if (!copyOf(slice, plan.key)) wanted.push(plan.key);
  });
  return { wanted, sentOf };
}

const nothingSent = (halt?: ServiceError): SendReport => ({
  outcomes: new Map(),
  requestsSent: 0,
  lostAnswers: 0,
  halt,
});

/**
 * Before the first paid batch of a run whose pace knows nothing, the free key check (../lookup/keyCheck.ts); the
 * window is then planned again at the pace it set. The window, and the error that halts the run if the check met
 * one (401, 404, a redirect, the daily quota).
 */
function checkKeyBeforeWindow(slice: Slice, window: WindowPlan): { window: WindowPlan; halt?: ServiceError } {
  if (!slice.pacer || !knowsNothing(slice.pacer.state) || wantedKeys(slice, window).wanted.length === 0)
    return { window };
  const plan = { apiKey: slice.apiKey, endpoint: slice.endpoint };
  const halt = checkKeyFirst(slice.ports, slice.pacer, plan, sliceBudget(slice.deadline));
  return { window: halt || knowsNothing(slice.pacer.state) ? window : planWindow(slice), halt };
}

/** Claims and sends the window's URLs without a result (and without a copy in the sheet). */
function lookUpWindow(slice: Slice, window: WindowPlan): SendReport {
  const { wanted, sentOf } = wantedKeys(slice, window);
  if (wanted.length === 0) return nothingSent();
  const claimed = claimUnknown(slice.ports, {
    keys: wanted,
    value: BULK_CLAIM,
    seconds: BULK_CLAIM_SECONDS,
    // Formulas may have paid for some of these URLs since the slice began: the store is read again.
    inStore: (unclaimed) => {
      slice.storeView = slice.ports.store.snapshot();
      return new Set(unclaimed.filter((key) => resultOf(slice, key) !== undefined));
    },
  });
  // Keys another execution holds (or all, when the lock stayed busy) wait for a later window.
  const mine = claimed?.mine ?? [];
  const report = sendClaimed(slice.ports, {
    claimed: new Map(mine.map((key) => [key, sentOf.get(key) ?? key])),
    apiKey: slice.apiKey,
    endpoint: slice.endpoint,
    retry: DEFAULT_RETRY,
    holdSeconds: BULK_CLAIM_SECONDS,
    // A re-check, and a retry that buys UNPROCESSABLE rows again, pay again for results stored before the run.
    storedSince: buysAgain(slice.job) ? slice.job.startedAt : undefined,
    batchSize: slice.pacer ?? fixedBatchSize(slice.batchSize ?? PACE_START),
    budget: sliceBudget(slice.deadline),
  });
  const { counts } = slice.job;
  // Paid by another execution since the window was planned: no credit spent here.
  for (const [key, result] of report.alreadyKept ?? []) slice.known.set(key, result);
  for (const [key, outcome] of report.outcomes) {
    if (outcome.kind === 'error') continue;
    slice.known.set(key, outcome);
    counts.creditsUsed++;
  }
  counts.creditsMaybeLost += report.lostAnswers;
  return report;
}

/** One window: plan, look up, write, advance. False when the slice must end (out of time, lease lost). */
function processWindow(slice: Slice): boolean {
  const { window, halt } = checkKeyBeforeWindow(slice, planWindow(slice));
  const report = halt ? nothingSent(halt) : lookUpWindow(slice, window);
  if (slice.pacer) slice.job.paceReason = slice.pacer.reason();
  const written = writeWindow(slice, window, report, windowRows(slice));
  if (!written) return false;
  const { stopAt, check } = written;
  slice.block = check.slice(stopAt);
  slice.blockStart = slice.job.cursor + stopAt;
  slice.job.cursor += stopAt;
  const { counts } = slice.job;
  if (report.halt) apply(slice, { type: 'halt', ...haltOf(report.halt) });
  else if (slice.job.state === 'running')
    slice.job.message = `Working: ${Math.min(counts.processed, counts.total)} of ${counts.total} rows.`;
  if (stopAt < window.size && !report.halt) {
    saveProgress(slice);
    return false; // out of time for this slice
  }
  if (working(slice) && Date.now() < slice.deadline) saveProgress(slice);
  return true;
}

/**
 * After the last row: one read of the whole range finds rows still without a result (they moved during the run,
 * or were inserted). Returns false when the job is finished.
 */
function startNextPass(slice: Slice): boolean {
  const { job } = slice;
  const rows = job.lastRow - job.firstRow + 1;
  const values = readJobCells(slice.sheet, job, job.firstRow, rows, Math.min(slice.width, CELL.status + 1));
  const pendingIndex = firstWithoutStatus(values);
  // Retry failed rows has one pass: rows without a status are not its to fill.
  if (pendingIndex < 0 || job.pass >= MAX_PASSES || job.redo) {
    apply(slice, {
      type: 'finish',
      counts: finalCounts(job.counts, values),
      leftPending: pendingIndex >= 0 && !job.redo,
    });
    return false;
  }
  job.pass++;
  delete job.writtenAhead;
  job.cursor = job.firstRow + pendingIndex;
  return true;
}
