/** How a plan, a run's summary and the history read in the sidebar. Pure (no DOM). */
import { rangeText } from '../core/a1';
import { creditsText, kindsText, reusedText, timeTakenText } from '../core/runWords';
import { countText, hitRateText, withoutStop } from '../core/text';
import type { CreditsRun, PlanSummary, RunPlan, RunSummary } from './types';

/** "At most 35 credits." / "Free: nothing to look up." */
export function priceText(plan: RunPlan): string {
  if (plan.refusal) return '';
  return plan.credits === 0
    ? 'Free: no new profile to look up.'
    : `At most ${countText(plan.credits, 'credit')} (${countText(plan.newProfiles, 'new profile')}).`;
}

/** Why a run that would have started at once (the user's setting) waits for Start: '' when the setting is off. */
export function confirmText(plan: RunPlan): string {
  if (plan.startAtOnceUnder === null || !plan.needsConfirm) return '';
  return `This run may spend up to ${countText(plan.credits, 'credit')}: not under the ${plan.startAtOnceUnder} you set for starting at once.`;
}

export function startLabel(plan: RunPlan): string {
  return plan.credits > 0 ? `Start: up to ${countText(plan.credits, 'credit')}` : 'Start (free)';
}

export function runPlanText(plan: PlanSummary): string {
  const parts = [
    `${countText(plan.newProfiles, 'new profile')} (at most ${countText(plan.credits, 'credit')})`,
  ];
  if (plan.knownProfiles > 0) parts.push(`${plan.knownProfiles} already known`);
  if (plan.notProfiles > 0) parts.push(`${countText(plan.notProfiles, 'cell')} not a profile`);
  const kind = plan.retry ? 'Retry of failed rows' : plan.recheck ? 'Re-check' : 'Plan';
  return `${kind}: ${parts.join(', ')}. Results in ${plan.columns}.`;
}

/** "Select the first row with an error, unprocessable or not a profile": only the kinds the run has. */
export function selectFailedLabel(summary: RunSummary): string {
  const kinds: string[] = [];
  if (summary.error > 0) kinds.push('with an error');
  if (summary.unprocessable > 0) kinds.push('unprocessable');
  if (summary.notProfile > 0) kinds.push('not a profile');
  const listed =
    kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : kinds[0];
  return `Select the first row ${listed}`;
}

export function summaryTitle(summary: RunSummary): string {
  if (summary.origin === 'watch') return 'What the watch did today';
  const what = summary.retry ? 'What the retry did' : 'What the run did';
  return summary.state === 'cancelled' ? `${what} before it was cancelled` : what;
}

/** A run's credits, its lookups' hit rate and the rows that reused an address. */
export function summaryCreditsText(summary: RunSummary): string {
  const { creditsSpent: creditsUsed, creditsMaybeLost, lookupsFound } = summary;
  const credits = creditsText({ creditsUsed, creditsMaybeLost, lookupsFound });
  const reused = reusedText(summary);
  return `${credits}${reused ? `; ${reused}` : ''}.`;
}

export function historyLine(summary: RunSummary): string {
  const parts = [kindsText(summary), withoutStop(summaryCreditsText(summary)), timeTakenText(summary)];
  const where = rangeText(summary.sheetName, summary.range);
  if (summary.origin === 'watch') {
    const checks = countText(summary.runs ?? 1, 'run');
    return `The watch of ${where}, today (${checks}): ${parts.slice(0, 2).join('; ')}`;
  }
  const kind = summary.retry ? 'retry, ' : '';
  const state = summary.state === 'cancelled' ? 'cancelled, ' : '';
  return `${where} (${kind}${state}${parts.join('; ')})`;
}

export const count = (n: number) => n.toLocaleString('en-US');

/** The Credits tab's line of a run: "Leads!A2:A22: 15 credits, 12 of 15 lookups found an address (80 %)". */
export function creditsRunLine(run: CreditsRun): string {
  const rate = run.credits > 0 ? `, ${hitRateText(run.credits, run.found)}` : '';
  const lost = run.lost > 0 ? `, ${count(run.lost)} lost` : '';
  return `${run.range}: ${countText(run.credits, 'credit')}${rate}${lost} — ${run.payer}${run.mine ? ' (you)' : ''}`;
}

/** This spreadsheet's record, the same words under a plan's price and in the Credits tab ('' before any lookup). */
export function recordText(lookups: number, found: number): string {
  return lookups > 0 ? `Here so far: ${hitRateText(lookups, found)}.` : '';
}
