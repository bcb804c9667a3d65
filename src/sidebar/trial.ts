/**
 * "Try 10 rows first": the plan offers a trial over the first 10 new profiles; when the trial
 * has ended, its summary says the share found and offers "Run the rest" (the same selection, priced again: the
 * trial's profiles are known then, so none is paid twice).
 */
import { rangeText } from '../core/a1';
import { TRIAL_PROFILES } from '../core/limits';
import { $, button, setText } from './dom';
import type { RunPlan, RunRequest, RunSummary } from './types';
import { hitRateText } from './words';

/** The trial under way or last ended in this sidebar: its run, and the request of the whole run. */
let trial: { runId: string; rest: RunRequest } | null = null;

/** The rest of this sidebar's trial (Run the rest, or the same cells planned again): it was tried already. */
function restOfTrial(request: RunRequest): boolean {
  return !!trial && !!request.target && JSON.stringify(request.target) === JSON.stringify(trial.rest.target);
}

/** The plan's trial button and note: no second trial for the rest of one. */
export function renderTrialOffer(plan: RunPlan, request: RunRequest): void {
  const offered =
    !plan.refusal &&
    plan.mode === 'all' &&
    !request.trial &&
    !restOfTrial(request) &&
    plan.newProfiles > TRIAL_PROFILES;
  button('plan-trial').hidden = !offered;
  const note = $('plan-trial-note');
  note.hidden = plan.trialOf === undefined;
  note.textContent =
    plan.trialOf === undefined
      ? ''
      : `A trial: the first ${plan.newProfiles} of the ${plan.trialOf} new profiles (${rangeText(plan.sheetName, plan.range)}). When it ends, Run the rest prices the others.`;
}

export function trialRequest(request: RunRequest): RunRequest {
  return { ...request, trial: TRIAL_PROFILES, confirmedCredits: undefined };
}

/** A run started from `request`: remembered when it is a trial. */
export function noteStarted(request: RunRequest, runId: string | undefined): void {
  trial = request.trial && runId ? { runId, rest: { ...request, trial: undefined } } : null;
}

/** Under the summary of an ended run: the trial's share found and Run the rest, when it was this sidebar's trial. */
export function renderTrialResult(last: RunSummary | undefined, shown: boolean): void {
  const isTrial = shown && !!last && !!trial && trial.runId === last.id && last.state === 'done';
  $('trial-result').hidden = !isTrial;
  button('run-rest').hidden = !isTrial;
  if (!isTrial || !last) return;
  // The lookups' hit rate, as the summary and the Credits tab say it; rows for a run before lookups were counted.
  const answered = last.found + last.noAddress + last.unprocessable;
  setText(
    'trial-result',
    last.lookupsFound === undefined
      ? `Trial: ${last.found} of ${answered} ${answered === 1 ? 'row' : 'rows'} looked up got an address.`
      : `Trial: ${hitRateText(last.creditsSpent, last.lookupsFound)}.`,
  );
}

/** The request of the run after the trial, or null. */
export function restRequest(): RunRequest | null {
  return trial?.rest ?? null;
}
