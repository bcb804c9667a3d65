/**
 * The writing half of a bulk window (./window.ts): the rows are checked again right before writing, then only the
 * rows done now are written, in runs of adjacent rows, and counted.
 */
import { CELL, enrichmentRow, type RowOutcome, rowNeedsPlainText, textColumnOffsets } from '../core/cells';
import type { SendReport } from '../lookup/pipeline';
import { countCopy, countOutcome } from './counting';
import type { Job } from './job';
import { adjacentRuns, cellMark, type RowPlan, sameInput, stillPending } from './rowPlan';
import { ownsLease } from './slice';
import { copyOf, read, resultOf, type Slice } from './sliceState';
import type { WindowPlan } from './window';

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
export function writeWindow(
  slice: Slice,
  window: WindowPlan,
  report: SendReport,
  nextWindowRows: number,
): Written | undefined {
  const { job } = slice;
  const firstPass = job.pass === 1;
  const recheckPass = job.recheck && firstPass;
  const nextEnd = Math.min(job.cursor + window.size - 1 + nextWindowRows, job.lastRow);
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
