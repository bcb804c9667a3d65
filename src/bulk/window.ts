/**
 * A slice's window: its rows planned in the hold of the lock that leases it (what each row needs, and the profiles
 * to look up, up to the slice's share: known profiles and duplicates do not use it), then written in the slice's
 * next hold, each row checked again right before (a person may have sorted or typed meanwhile), in runs of adjacent
 * rows, each counted once. The rows it cannot write yet go back to the run (./lease.ts). Pure over the sheet's port.
 */
import { CELL, rowNeedsPlainText, textColumnOffsets } from '../core/cells';
import type { SheetPort } from '../core/sheet';
import type { NetworkHosts } from '../core/url';
import { enrichmentRow, type RowOutcome } from '../lookup/cellValues';
import { inRanges } from './blocks';
import { countCopy, countOutcome } from './counting';
import type { Counts, Job } from './job';
import type { RowsLeft } from './lease';
import { adjacentRuns, planRows, type RowPlan, sameInput } from './rowPlan';
import type { RunScope } from './runScope';

/** What a row of the window gets: an outcome to write, the output another row of the run holds (a copy). */
export type RowAnswer = { outcome: RowOutcome } | { copy: unknown[] };

/** A window as planned in the hold that leased it. */
export interface PlannedWindow {
  from: number;
  to: number;
  /** What each row needs, from `from`. */
  plans: RowPlan[];
  /** Rows whose output cells hold something of the person's: never written, nothing spent on them. */
  unwritable: Set<number>;
  /** Answers known when planned (stored, or written in another row of the run), by profile. */
  known: Map<string, RowAnswer>;
  /** Profiles to look up: normalised URL -> the URL as written (what the service gets). */
  wanted: Map<string, string>;
}

export interface PlanContext {
  scope: RunScope;
  pass: number;
  hosts: NetworkHosts;
  /** Profiles the window looks up at most (the slice's share of the run's pace). */
  share: number;
  /** The answers the run takes as they are for these profiles (stored ones it keeps, copies). */
  known(keys: string[]): Map<string, RowAnswer>;
  /** The add-on owns this row's output cells (a recorded block's): the run may write over them. */
  owns(row: number): boolean;
}

/**
 * Plans `rows` (read from row `from`: the URL cell, then the output cells) as a window: it ends before the row
 * whose profile would be one more than `share` to look up (at least one row).
 */
export function planWindow(rows: unknown[][], from: number, context: PlanContext): PlannedWindow {
  const { scope, pass } = context;
  const plans = planRows(rows, scope, pass, context.hosts);
  const unwritable = new Set<number>();
  plans.forEach((plan, index) => {
    if (plan.action === 'keep' || plan.action === 'blank') return;
    if (!scope.mayWrite(rows[index], pass, context.owns(from + index))) unwritable.add(index);
  });
  const keys = [
    ...new Set(
      plans.flatMap((plan, index) => (plan.action === 'lookup' && !unwritable.has(index) ? [plan.key] : [])),
    ),
  ];
  const known = keys.length > 0 ? context.known(keys) : new Map<string, RowAnswer>();
  const wanted = new Map<string, string>();
  let size = plans.length;
  for (let index = 0; index < plans.length; index++) {
    const plan = plans[index];
    if (plan.action !== 'lookup' || unwritable.has(index) || known.has(plan.key) || wanted.has(plan.key))
      continue;
    if (wanted.size >= context.share) {
      size = Math.max(1, index);
      break;
    }
    wanted.set(plan.key, plan.sent);
  }
  return { from, to: from + size - 1, plans: plans.slice(0, size), unwritable, known, wanted };
}

/**
 * Writes the window's rows that have an answer now (`answerOf`; undefined: none yet, and `waits` says whether
 * another execution is looking that profile up), each checked right before: it still holds the URL it was planned
 * from and its output cells nothing of the person's. `rows`: the window's cells as read now. Counts into `counts`;
 * returns the rows left for another slice.
 */
export function writeWindow(
  sheet: SheetPort,
  job: Pick<Job, 'outputColumn' | 'extraFields' | 'pass' | 'owns'>,
  window: PlannedWindow,
  rows: unknown[][],
  context: {
    scope: RunScope;
    hosts: NetworkHosts;
    width: number;
    counts: Counts;
    answerOf(key: string): RowAnswer | undefined;
    waits(key: string): boolean;
  },
): { left: RowsLeft[] } {
  const { scope, hosts, counts } = context;
  const outputs: unknown[][] = rows.map((row) => row.slice(CELL.email));
  const changed: number[] = [];
  const left: number[] = [];
  const waiting = new Set<number>();
  window.plans.forEach((plan, index) => {
    if (plan.action === 'keep' || plan.action === 'blank' || window.unwritable.has(index)) return;
    const answer: RowAnswer | undefined =
      plan.action === 'invalid'
        ? { outcome: { kind: 'invalid', reason: plan.reason } }
        : context.answerOf(plan.key);
    if (!answer) {
      left.push(index);
      if (plan.action === 'lookup' && context.waits(plan.key)) waiting.add(index);
      return;
    }
    // Moved, or filled by the person meanwhile: the pass over the range finds the row where it is now.
    const owned = inRanges(job.owns ?? [], window.from + index);
    if (!sameInput(rows[index]?.[CELL.url], plan, hosts) || !scope.mayWrite(rows[index], job.pass, owned))
      return;
    if ('copy' in answer) {
      outputs[index] = answer.copy.slice();
      countCopy(counts, answer.copy);
    } else {
      outputs[index] = enrichmentRow(answer.outcome, job.extraFields);
      countOutcome(counts, answer.outcome);
    }
    changed.push(index);
  });
  writeRuns(sheet, job, window.from, context.width, adjacentRuns(changed), outputs);
  return {
    left: adjacentRuns(left).map((run) => ({
      from: window.from + run.from,
      to: window.from + run.from + run.count - 1,
      waits: Array.from({ length: run.count }, (_, offset) => run.from + offset).every((index) =>
        waiting.has(index),
      ),
    })),
  };
}

/** One write per run of adjacent rows, never over a row in between (it may hold a formula of the person's). */
function writeRuns(
  sheet: SheetPort,
  job: Pick<Job, 'outputColumn'>,
  from: number,
  width: number,
  runs: Array<{ from: number; count: number }>,
  outputs: unknown[][],
): void {
  const risky = runs.some((run) => outputs.slice(run.from, run.from + run.count).some(rowNeedsPlainText));
  if (risky) {
    // Rows inserted during the run lack the plain-text format set at the start.
    const textColumns = textColumnOffsets(width - 1);
    sheet.formatAsText(
      runs.flatMap((run) =>
        textColumns.map((offset) => ({
          row: from + run.from,
          column: job.outputColumn + offset,
          rows: run.count,
          columns: 1,
        })),
      ),
    );
  }
  for (const run of runs)
    sheet.write(from + run.from, job.outputColumn, outputs.slice(run.from, run.from + run.count));
}
