/** How a plan, a run's summary and the history read in the sidebar. Pure (no DOM). */

import { durationText, FAILED_KINDS, kindsText, RETRIED_KINDS, sumOf, timeTakenText } from '../core/runWords';
import { countText } from '../core/text';
import type { FormulaCapState, PlanSummary, RunPlan, RunSummary } from './types';

export { countText, durationText, timeTakenText };

/** "At most 35 credits." / "Free: nothing to look up." */
export function priceText(plan: RunPlan): string {
  if (plan.refusal) return '';
  const price =
    plan.credits === 0
      ? 'Free: no new profile to look up.'
      : `At most ${countText(plan.credits, 'credit')} (${countText(plan.newProfiles, 'new profile')}).`;
  return plan.waitingRows > 0 ? `${price} ${waitText(plan)}` : price;
}

/** "8 rows wait until 14:32: …", the rows whose answers were lost twice lately (not promised, not priced). */
export function waitText(plan: Pick<RunPlan, 'waitingRows' | 'waitUntilText'>): string {
  const rows = plan.waitingRows === 1 ? '1 row waits' : `${plan.waitingRows} rows wait`;
  const until = plan.waitUntilText ? ` until ${plan.waitUntilText}` : '';
  return `${rows}${until}: their answers were lost twice (each try may have been charged), so they are not sent before then. Retry failed rows after that.`;
}

/** "Sheet1, A2:A41: results in B:E." */
export function whereText(plan: RunPlan): string {
  return `${plan.sheetName}, ${plan.range}: results in ${plan.placement.columns}.`;
}

export function planTitle(plan: RunPlan): string {
  return plan.mode === 'retry' ? 'Retry failed rows' : 'Before the run';
}

/** Above the user's threshold: the question the Start button answers. */
export function confirmText(plan: RunPlan): string {
  return `This run may spend up to ${countText(plan.credits, 'credit')}, more than the ${plan.confirmAbove} you set for starting without asking. Start it?`;
}

export function startLabel(plan: RunPlan): string {
  return plan.needsConfirm ? `Start: up to ${countText(plan.credits, 'credit')}` : 'Start';
}

/** The plan a running run started with, in one line. */
export function runPlanText(plan: PlanSummary): string {
  const parts = [
    `${countText(plan.newProfiles, 'new profile')} (at most ${countText(plan.credits, 'credit')})`,
  ];
  if (plan.knownProfiles > 0) parts.push(`${plan.knownProfiles} already known`);
  if (plan.notProfiles > 0) parts.push(`${countText(plan.notProfiles, 'cell')} not a profile`);
  const kind = plan.retry ? 'Retry of failed rows' : plan.recheck ? 'Re-check' : 'Plan';
  return `${kind}: ${parts.join(', ')}. Results in ${plan.columns}.`;
}

/** The failed rows a summary counts (for Retry failed rows and Select the first failed row). */
export function failedRows(summary: RunSummary): number {
  return sumOf(summary, FAILED_KINDS);
}

/** The rows Retry failed rows may redo. */
export function retriedRows(summary: RunSummary): number {
  return sumOf(summary, RETRIED_KINDS);
}

export function summaryTitle(summary: RunSummary): string {
  const what = summary.retry ? 'What the retry did' : 'What the run did';
  return summary.state === 'cancelled' ? `${what} before it was cancelled` : what;
}

/** One line of the history. */
export function historyLine(summary: RunSummary): string {
  const parts = [kindsText(summary)];
  parts.push(countText(summary.creditsSpent, 'credit'));
  parts.push(timeTakenText(summary));
  const kind = summary.retry ? 'retry, ' : '';
  const state = summary.state === 'cancelled' ? 'cancelled, ' : '';
  return `${summary.sheetName} ${summary.range} (${kind}${state}${parts.join(', ')})`;
}

/** "Used today: 12 of 500 credits." */
export function formulaUseText(state: FormulaCapState): string {
  if (!state.policy.enabled)
    return `New lookups by formulas are off. Used today: ${countText(state.usedToday, 'credit')}.`;
  return `Used today: ${state.usedToday} of ${countText(state.policy.dailyCap, 'credit')}.`;
}
