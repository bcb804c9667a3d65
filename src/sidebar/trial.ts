/** "Try 10 rows first"; once the trial is done, its share found and "Run the rest" (priced again: none paid twice). */
import { rangeText } from '../core/a1';
import { TRIAL_PROFILES } from '../core/limits';
import { hitRateText } from '../core/text';
import { $, button, setText, showText } from './dom';
import type { RunPlan, RunRequest, RunSummary } from './types';

/** The trial under way or last ended in this sidebar, and the request of the whole run. */
let trial: { runId: string; rest: RunRequest } | null = null;

/** The plan's trial button and note: no second trial for the rest of one (the same cells planned again). */
export function renderTrialOffer(plan: RunPlan, request: RunRequest): void {
  const restOfTrial =
    !!trial && !!request.target && JSON.stringify(request.target) === JSON.stringify(trial.rest.target);
  const offered =
    !plan.refusal &&
    plan.mode === 'all' &&
    !request.trial &&
    !restOfTrial &&
    plan.newProfiles > TRIAL_PROFILES;
  button('plan-trial').hidden = !offered;
  showText(
    'plan-trial-note',
    plan.trialOf === undefined
      ? ''
      : `A trial: the first ${plan.newProfiles} of the ${plan.trialOf} new profiles (${rangeText(plan.sheetName, plan.range)}). When it ends, Run the rest prices the others.`,
  );
}

export function trialRequest(request: RunRequest): RunRequest {
  return { ...request, trial: TRIAL_PROFILES, confirmedCredits: undefined };
}

export function noteStarted(request: RunRequest, runId: string | undefined): void {
  trial = request.trial && runId ? { runId, rest: { ...request, trial: undefined } } : null;
}

/** Under the summary of an ended run: the trial's share found and Run the rest, when it was this sidebar's trial. */
export function renderTrialResult(last: RunSummary | null | undefined, shown: boolean): void {
  const isTrial = shown && !!last && trial?.runId === last.id && last.state === 'done';
  $('trial-result').hidden = !isTrial;
  button('run-rest').hidden = !isTrial;
  if (!isTrial) return;
  // Rows for a run from before lookups were counted.
  const answered = last.found + last.noAddress + last.unprocessable;
  setText(
    'trial-result',
    last.lookupsFound === undefined
      ? `Trial: ${last.found} of ${answered} ${answered === 1 ? 'row' : 'rows'} looked up got an address.`
      : `Trial: ${hitRateText(last.creditsSpent, last.lookupsFound)}.`,
  );
}

export function restRequest(): RunRequest | null {
  return trial?.rest ?? null;
}
