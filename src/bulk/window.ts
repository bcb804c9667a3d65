/** A slice's window: planned in the hold that leases it, written in the next, each row checked right before. Pure. */
import type { RunCounts } from '../api';
import { CELL, rowNeedsPlainText } from '../core/cells';
import type { SheetPort } from '../core/sheet';
import type { NetworkHosts } from '../core/url';
import { enrichmentRow, type RowOutcome } from '../lookup/cellValues';
import { inRanges } from './blocks';
import type { Job } from './job';
import { countCopy, countOutcome } from './outcomes';
import { textCells } from './rowCells';
import { adjacentRuns, planRows, type RowPlan, sameInput } from './rowPlan';
import type { RunScope } from './runScope';

export type RowAnswer = { outcome: RowOutcome } | { copy: unknown[] };

export interface PlannedWindow {
  from: number;
  to: number;
  plans: RowPlan[];
  unwritable: Set<number>;
  known: Map<string, RowAnswer>;
  /** Normalised URL -> the URL as written (what the service gets). */
  wanted: Map<string, string>;
}

export interface PlanContext {
  scope: RunScope;
  pass: number;
  hosts: NetworkHosts;
  /** Profiles looked up at most. */
  share: number;
  known(keys: string[]): Map<string, RowAnswer>;
  owns(row: number): boolean;
}

/** The window ends before the row whose profile would be one more than `share` to look up (at least one row). */
export function planWindow(rows: unknown[][], from: number, context: PlanContext): PlannedWindow {
  const { scope, pass } = context;
  const plans = planRows(rows, scope, pass, context.hosts);
  const unwritable = new Set<number>();
  const keys = new Set<string>();
  plans.forEach((plan, index) => {
    if (plan.action === 'keep' || plan.action === 'blank') return;
    if (!scope.mayWrite(rows[index], pass, context.owns(from + index))) unwritable.add(index);
    else if (plan.action === 'lookup') keys.add(plan.key);
  });
  const known = keys.size > 0 ? context.known([...keys]) : new Map<string, RowAnswer>();
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

/** Writes the rows with an answer now; returns the runs of rows left. */
export function writeWindow(
  sheet: SheetPort,
  job: Pick<Job, 'outputColumn' | 'extraFields' | 'pass' | 'owns'>,
  window: PlannedWindow,
  rows: unknown[][],
  context: {
    scope: RunScope;
    hosts: NetworkHosts;
    width: number;
    counts: RunCounts;
    answerOf(key: string): RowAnswer | undefined;
  },
): { left: Array<{ from: number; to: number }> } {
  const { scope, hosts, counts } = context;
  const outputs: unknown[][] = rows.map((row) => row.slice(CELL.email));
  const changed: number[] = [];
  const left: number[] = [];
  window.plans.forEach((plan, index) => {
    if (plan.action === 'keep' || plan.action === 'blank' || window.unwritable.has(index)) return;
    const answer: RowAnswer | undefined =
      plan.action === 'invalid'
        ? { outcome: { kind: 'invalid', reason: plan.reason } }
        : context.answerOf(plan.key);
    if (!answer) {
      left.push(index);
      return;
    }
    // Moved, or filled meanwhile: a later pass finds the row where it is now.
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
  // Never over a row in between: it may hold a formula of the person's.
  const runs = adjacentRuns(changed);
  const at = (run: { from: number; count: number }) => window.from + run.from;
  const cells = (run: { from: number; count: number }) => outputs.slice(run.from, run.from + run.count);
  // Rows inserted during the run lack the plain-text format set at the start.
  if (runs.some((run) => cells(run).some(rowNeedsPlainText)))
    sheet.formatAsText(
      runs.flatMap((run) => textCells(at(run), run.count, job.outputColumn, context.width - 1)),
    );
  for (const run of runs) sheet.write(at(run), job.outputColumn, cells(run));
  return { left: adjacentRuns(left).map((run) => ({ from: at(run), to: at(run) + run.count - 1 })) };
}
