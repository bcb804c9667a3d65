/**
 * The windows of one slice: each plans its rows, looks the pending URLs up through the lookup pipeline, checks the
 * rows again and writes the results, then moves the cursor. After the last row, a pass over the whole range finds
 * rows still without a result, or finishes the job.
 */

import { readScriptConfig } from '../../adapters/scriptConfig';
import { haltOf } from '../../core/answers';
import { CELL, enrichmentRow, type RowOutcome, rowNeedsPlainText, textColumnOffsets } from '../../core/cells';
import { BULK_CLAIM } from '../../core/claims';
import { countCopy, countFinished, countOutcome } from '../../core/counting';
import type { Job } from '../../core/job';
import { BULK_CLAIM_SECONDS, DEFAULT_RETRY, MAX_PASSES, MAX_WINDOW_ROWS } from '../../core/limits';
import type { ServiceError } from '../../core/lookup';
import { knowsNothing, loadPace, PACE_START, probeWorthIt } from '../../core/pace';
import {
  adjacentRuns,
  cellMark,
  firstWithoutStatus,
  planRows,
  type RowPlan,
  sameInput,
  stillPending,
} from '../../core/rowPlan';
import { fixedBatchSize, sliceBudget } from '../lookup/budget';
import { claimUnknown, type SendReport, sendClaimed } from '../lookup/pipeline';
import { probeConnection } from '../lookup/probe';
import { readJobCells } from './columns';
import { apply, ownsLease, saveProgress, working } from './slice';
import { buysAgain, copyOf, read, resultOf, type Slice } from './sliceState';

export type { Slice };

/** At least one window per slice, so a slice always makes progress. */
export function runWindows(slice: Slice): void {
  const { cache } = slice.ports;
  if (slice.batchSize === undefined)
    slice.pacer = loadPace(cache, PACE_SCOPE, PACE_START, readScriptConfig().maxConcurrency);
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

const PACE_SCOPE = 'bulk';

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

interface WindowPlan {
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
 * Before the first paid batch of a run whose pace knows nothing, free key checks test the connection
 * (../lookup/probe.ts); the window is then planned again at the pace they set. The window, and the error that halts the
 * run if the probe met one (401, 404, a redirect, the daily quota).
 */
function probeFirst(slice: Slice, window: WindowPlan): { window: WindowPlan; halt?: ServiceError } {
  if (!slice.pacer || !probeWorthIt(slice.pacer.state, wantedKeys(slice, window).wanted.length, 0))
    return { window };
  const plan = { apiKey: slice.apiKey, endpoint: slice.endpoint };
  const halt = probeConnection(slice.ports, slice.pacer, plan, sliceBudget(slice.deadline));
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
  if (report.lostAnswers > 0) counts.creditsMaybeLost = (counts.creditsMaybeLost ?? 0) + report.lostAnswers;
  return report;
}

/** The outcome to write in a planned row: a local rejection, a result, or the service's error. */
function rowOutcome(slice: Slice, plan: RowPlan, report: SendReport): RowOutcome | undefined {
  if (plan.action === 'invalid') return { kind: 'invalid', reason: plan.reason };
  if (plan.action !== 'lookup') return undefined;
  const outcome = report.outcomes.get(plan.key);
  return resultOf(slice, plan.key) ?? (outcome?.kind === 'error' ? outcome : undefined);
}

interface Written {
  /** Rows of the window before this one are done; this one and the rest wait for the next window. */
  stopAt: number;
  /** The window's rows (and the next window's) as read right before writing. */
  check: unknown[][];
}

/**
 * Checks the rows again right before writing (the user may have sorted or inserted rows meanwhile; the same read
 * brings the next window's rows), then writes only the rows done now, in runs of adjacent rows: a row in
 * between may hold a formula of the user's. Undefined when the lease was lost (nothing written).
 * The cursor stops at the first row not done (not sent in time, or halted by a 401/402/quota); every later row
 * of the window holding a result is written too, so a result paid for is in the sheet when the run pauses.
 */
function writeWindow(slice: Slice, window: WindowPlan, report: SendReport): Written | undefined {
  const { job } = slice;
  const firstPass = job.pass === 1;
  const recheckPass = job.recheck && firstPass;
  const nextEnd = Math.min(job.cursor + window.size - 1 + windowRows(slice), job.lastRow);
  const check = read(slice, job.cursor, nextEnd - job.cursor + 1);
  const outputs: unknown[][] = check.slice(0, window.size).map((row) => row.slice(CELL.email));
  const changed: number[] = [];
  let stopAt = window.size;
  for (let index = 0; index < window.size; index++) {
    const plan = window.plans[index];
    if (plan.action === 'keep' || plan.action === 'blank' || window.unwritable.has(index)) continue;
    const outcome = rowOutcome(slice, plan, report);
    const ahead = index > stopAt;
    const copied = !outcome && !ahead && plan.action === 'lookup' ? copyOf(slice, plan.key) : undefined;
    if (!copied && (!outcome || (outcome.kind === 'error' && outcome.effect !== 'continue'))) {
      // This row and the ones after it wait for the next slice (rows after it with a result are written now).
      if (stopAt === window.size) stopAt = index;
      continue;
    }
    // Past the stop only results are written: the row is then final (the next window keeps it as it is).
    if (ahead && (plan.action !== 'lookup' || outcome?.kind === 'error')) continue;
    if (
      !sameInput(check[index]?.[CELL.url], plan, slice.hosts) ||
      !stillPending(check[index], recheckPass, firstPass, job.redo)
    )
      continue;
    const row = copied ? copied.slice() : enrichmentRow(outcome as RowOutcome, job.extraFields);
    if (copied) countCopy(job.counts, copied);
    else if (recheckPass && plan.action === 'lookup')
      countRechecked(job, plan.key, outcome as RowOutcome, ahead);
    else countOutcome(job.counts, outcome as RowOutcome);
    if (plan.action === 'lookup' && outcome && outcome.kind !== 'error') slice.written?.set(plan.key, row);
    outputs[index] = row;
    changed.push(index);
  }
  if (changed.length > 0 && !ownsLease(slice)) return undefined;
  writeRuns(slice, adjacentRuns(changed), outputs);
  return { stopAt, check };
}

/**
 * A re-check's first pass looks every row up again, so a row written ahead of the cursor (past a halt) comes up
 * again in the next window: it is counted once, when first written (`job.writtenAhead` holds its key's hash).
 */
function countRechecked(job: Job, key: string, outcome: RowOutcome, ahead: boolean): void {
  const mark = cellMark(key);
  const marks = job.writtenAhead ?? [];
  const earlier = marks.indexOf(mark);
  if (ahead) job.writtenAhead = [...marks, mark];
  else if (earlier >= 0) {
    job.writtenAhead = marks.filter((_, index) => index !== earlier);
    return;
  }
  countOutcome(job.counts, outcome);
}

function writeRuns(slice: Slice, runs: Array<{ from: number; count: number }>, outputs: unknown[][]): void {
  const { job, sheet } = slice;
  const risky = runs.some((run) => outputs.slice(run.from, run.from + run.count).some(rowNeedsPlainText));
  if (risky) {
    // Rows inserted during the run lack the plain-text format set at the start.
    const textColumns = textColumnOffsets(slice.width - 1);
    const ranges = runs.flatMap((run) =>
      textColumns.map((offset) =>
        sheet.getRange(job.cursor + run.from, job.outputColumn + offset, run.count, 1).getA1Notation(),
      ),
    );
    sheet.getRangeList(ranges).setNumberFormat('@');
  }
  for (const run of runs) {
    sheet
      .getRange(job.cursor + run.from, job.outputColumn, run.count, slice.width - 1)
      .setValues(outputs.slice(run.from, run.from + run.count));
  }
}

/** One window: plan, look up, write, advance. False when the slice must end (out of time, lease lost). */
function processWindow(slice: Slice): boolean {
  const { window, halt } = probeFirst(slice, planWindow(slice));
  const report = halt ? nothingSent(halt) : lookUpWindow(slice, window);
  const written = writeWindow(slice, window, report);
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
      counts: countFinished(job.counts, values),
      leftPending: pendingIndex >= 0 && !job.redo,
    });
    return false;
  }
  job.pass++;
  delete job.writtenAhead;
  job.cursor = job.firstRow + pendingIndex;
  return true;
}
