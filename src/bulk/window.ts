/**
 * One window of a slice: its rows planned, the pending URLs looked up through the lookup pipeline, the rows checked
 * again right before writing, the results written in runs of adjacent rows and counted, and the cursor moved.
 */
import { CELL, rowNeedsPlainText, textColumnOffsets } from '../core/cells';
import { MAX_WINDOW_ROWS } from '../core/limits';
import { enrichmentRow, type RowOutcome } from '../lookup/cellValues';
import { BULK_CLAIM } from '../lookup/claims';
import { PACE_START } from '../lookup/pace';
import { emptyReport, type LookupReport } from '../lookup/session';
import { adjacentRuns, planRows, type RowPlan, sameInput } from './rowPlan';
import { haltOf } from './runHalt';
import type { SliceState } from './sliceState';

/**
 * Rows the next window reads: a fixed size, or (adaptive) twice the requests of one batch; the window then ends at
 * the row where one batch is full (`rowsForOneBatch`).
 */
function windowRows(slice: SliceState): number {
  const { pacer, batchSize } = slice.setup;
  return pacer ? Math.min(MAX_WINDOW_ROWS, 2 * pacer.share()) : (batchSize ?? PACE_START);
}

/** The rows, from the first, whose lookups fill one batch of `limit` requests (a batch with fewer waits as long). */
function rowsForOneBatch(slice: SliceState, plans: RowPlan[], limit: number): number {
  const keys = new Set<string>();
  for (let index = 0; index < plans.length; index++) {
    const plan = plans[index];
    if (plan.action !== 'lookup' || keys.has(plan.key) || slice.resultOf(plan.key)) continue;
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

function planWindow(slice: SliceState): WindowPlan {
  const { job, scope } = slice;
  const { pacer, hosts } = slice.setup;
  const windowEnd = Math.min(job.cursor + windowRows(slice) - 1, slice.lease.windowEnd);
  let size = windowEnd - job.cursor + 1;
  const block = slice.rowsFrom(job.cursor, size);
  const planned = planRows(block.slice(0, size), scope, job.pass, hosts);
  const plans = pacer ? planned.slice(0, rowsForOneBatch(slice, planned, pacer.next())) : planned;
  size = plans.length;
  const unwritable = new Set<number>();
  plans.forEach((plan, index) => {
    if (plan.action !== 'keep' && plan.action !== 'blank' && !scope.mayWrite(block[index], job.pass)) {
      unwritable.add(index);
    }
  });
  return { size, plans, unwritable };
}

/** The window's URLs without a result (and without a copy in the sheet), with the spelling each is sent in. */
function wantedKeys(
  slice: SliceState,
  window: WindowPlan,
): { wanted: string[]; spellingSent: Map<string, string> } {
  const spellingSent = new Map<string, string>();
  const wanted: string[] = [];
  window.plans.forEach((plan, index) => {
    if (plan.action !== 'lookup' || window.unwritable.has(index)) return;
    if (spellingSent.has(plan.key) || slice.resultOf(plan.key)) return;
    spellingSent.set(plan.key, plan.sent);
    if (!slice.copyOf(plan.key)) wanted.push(plan.key);
  });
  return { wanted, spellingSent };
}

/** Looks up the window's URLs without a result (and without a copy in the sheet) through the slice's session. */
function lookUpWindow(slice: SliceState, window: WindowPlan): LookupReport {
  const { wanted, spellingSent } = wantedKeys(slice, window);
  if (wanted.length === 0) return emptyReport();
  // Keys another execution holds (or all, when the lock stayed busy) wait for a later window.
  const report = slice.setup.session.lookUp(
    new Map(wanted.map((key) => [key, spellingSent.get(key) ?? key])),
  );
  // Paid by another execution since the window was planned: no credit spent here.
  for (const [key, result] of report.alreadyKept) slice.recordFetched(key, result);
  let used = 0;
  let found = 0;
  for (const [key, outcome] of report.outcomes) {
    if (outcome.kind === 'error') continue;
    slice.recordFetched(key, outcome);
    used++;
    if (outcome.kind === 'found') found++;
  }
  slice.lease.countCredits(used, report.lostAnswers, found);
  return report;
}

/** One window: plan, look up, write, advance. False when the slice must end (out of time, lease lost). */
export function processWindow(slice: SliceState): boolean {
  const window = planWindow(slice);
  const report = lookUpWindow(slice, window);
  if (slice.setup.pacer) slice.lease.notePace(slice.setup.pacer.reason());
  const written = writeWindow(slice, window, report, windowRows(slice));
  if (!written) return false;
  const { stopAt, check } = written;
  const { lease } = slice;
  slice.keepReadAhead(check.slice(stopAt), slice.job.cursor + stopAt);
  lease.advance(stopAt);
  // A halt met after the last row was written waits for nothing: the pass over the range ends the run (Done).
  const everyRowWritten = stopAt === window.size && slice.job.cursor > slice.job.lastRow;
  if (report.halt && !everyRowWritten) lease.apply({ type: 'halt', ...haltOf(report.halt) });
  else lease.sayRowsProcessed();
  // Out of time for this slice, or LockService refused the lock (its quota: the sidebar tries again later).
  if ((stopAt < window.size && !report.halt) || report.lockRefused) {
    lease.save();
    return false;
  }
  // A window's batches are merged once, when it is done, with the next one's lease in the same lock.
  return true;
}

/** The outcome to write in a planned row: a local rejection, a result, or the service's error. */
function rowOutcome(slice: SliceState, plan: RowPlan, report: LookupReport): RowOutcome | undefined {
  if (plan.action === 'invalid') return { kind: 'invalid', reason: plan.reason };
  if (plan.action !== 'lookup') return undefined;
  const outcome = report.outcomes.get(plan.key);
  return slice.resultOf(plan.key) ?? (outcome?.kind === 'error' ? outcome : undefined);
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
function writeWindow(
  slice: SliceState,
  window: WindowPlan,
  report: LookupReport,
  nextWindowRows: number,
): Written | undefined {
  const { job, scope, lease } = slice;
  const recheckPass = scope.recheck && job.pass === 1;
  const nextEnd = Math.min(job.cursor + window.size - 1 + nextWindowRows, job.lastRow);
  const check = slice.read(job.cursor, nextEnd - job.cursor + 1);
  const outputs: unknown[][] = check.slice(0, window.size).map((row) => row.slice(CELL.email));
  const changed: number[] = [];
  let stopAt = window.size;
  for (let index = 0; index < window.size; index++) {
    const plan = window.plans[index];
    if (plan.action === 'keep' || plan.action === 'blank' || window.unwritable.has(index)) continue;
    const outcome = rowOutcome(slice, plan, report);
    const ahead = index > stopAt;
    const copied = !outcome && !ahead && plan.action === 'lookup' ? slice.copyOf(plan.key) : undefined;
    if (!copied && (!outcome || (outcome.kind === 'error' && outcome.effect !== 'continue'))) {
      // Its profile is being looked up by another slice of the run (a duplicate in its window): the run's next
      // pass writes the answer stored by then, and this slice goes on.
      if (!outcome && plan.action === 'lookup' && report.heldBy.get(plan.key) === BULK_CLAIM) continue;
      // This row and the ones after it wait for the next slice (rows after it with a result are written now).
      if (stopAt === window.size) stopAt = index;
      continue;
    }
    // Past the stop only results are written: the row is then final (the next window keeps it as it is).
    if (ahead && (plan.action !== 'lookup' || outcome?.kind === 'error')) continue;
    if (
      !sameInput(check[index]?.[CELL.url], plan, slice.setup.hosts) ||
      !scope.mayWrite(check[index], job.pass)
    )
      continue;
    const row = copied ? copied.slice() : enrichmentRow(outcome as RowOutcome, job.extraFields);
    if (copied) lease.countCopy(copied);
    else if (recheckPass && plan.action === 'lookup')
      lease.countRechecked(plan.key, outcome as RowOutcome, ahead);
    else lease.countOutcome(outcome as RowOutcome);
    if (plan.action === 'lookup' && outcome && outcome.kind !== 'error') slice.recordWritten(plan.key, row);
    outputs[index] = row;
    changed.push(index);
  }
  if (changed.length > 0 && !lease.owns()) return undefined;
  writeRuns(slice, adjacentRuns(changed), outputs);
  return { stopAt, check };
}

function writeRuns(
  slice: SliceState,
  runs: Array<{ from: number; count: number }>,
  outputs: unknown[][],
): void {
  const { job } = slice;
  const { sheet, width } = slice.setup;
  const risky = runs.some((run) => outputs.slice(run.from, run.from + run.count).some(rowNeedsPlainText));
  if (risky) {
    // Rows inserted during the run lack the plain-text format set at the start.
    const textColumns = textColumnOffsets(width - 1);
    sheet.formatAsText(
      runs.flatMap((run) =>
        textColumns.map((offset) => ({
          row: job.cursor + run.from,
          column: job.outputColumn + offset,
          rows: run.count,
          columns: 1,
        })),
      ),
    );
  }
  for (const run of runs) {
    sheet.write(job.cursor + run.from, job.outputColumn, outputs.slice(run.from, run.from + run.count));
  }
}
