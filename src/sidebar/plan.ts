/** A run's plan and price, shown before it starts (the Progress tab). */

import { emptyRunCounts } from '../core/runWords';
import { call, failureMessage } from './client';
import { missesText } from './credits';
import { $, button, clearError, input, setText, showError } from './dom';
import { awaitFinalCount, follow, lookWhile, runAction } from './drive';
import { renderPlacementChoices } from './placementChoices';
import { setProgress } from './progressView';
import { ui } from './state';
import { loadHistory, renderSummary } from './summary';
import { showView } from './tabs';
import { noteStarted, renderTrialOffer, restRequest, trialRequest } from './trial';
import type { Progress, RunPlan, RunRequest, RunStart } from './types';
import { confirmText, planTitle, priceText, startLabel, whereText } from './words';

/** The plan shown before a run starts, and the request it answers. */
let plan: RunPlan | null = null;

let planRequest: RunRequest = {};

let planBusy = false;

/** Asks the server for the plan of `request` and shows it; `autoStart`: start at once when it needs nothing. */
export async function requestPlan(request: RunRequest, autoStart: boolean): Promise<void> {
  if (planBusy) return;
  planBusy = true;
  planRequest = request;
  clearError();
  renderPlanButtons();
  try {
    const next = await call('getRunPlan', request);
    showPlan(next);
    // A plan that needs nothing from the user starts at once; one with nothing to do waits (re-check is offered).
    const work = next.lookupRows + next.notProfiles > 0;
    if (autoStart && work && !next.refusal && !next.needsChoice && !next.needsConfirm) await startPlanned();
  } catch (error) {
    showError(failureMessage(error));
  } finally {
    planBusy = false;
    renderPlanButtons();
  }
}

function showPlan(next: RunPlan): void {
  plan = next;
  // From now on the plan's own cells: Start, a trial, its rest and a changed option read them, not the selection.
  if (next.target) planRequest = { ...planRequest, target: next.target };
  if (next.needsChoice && !next.placements.some((choice) => choice.kind === planRequest.placement)) {
    planRequest = { ...planRequest, placement: undefined };
  }
  $('plan').hidden = false;
  $('run').hidden = true;
  if (ui.currentView !== 'progress') showView('progress');
  setText('plan-title', planTitle(next));
  setText('plan-where', whereText(next));
  const note = $('plan-note');
  note.hidden = !next.note;
  note.textContent = next.note ?? '';
  const refusal = $('plan-refusal');
  refusal.hidden = !next.refusal;
  refusal.textContent = next.refusal ?? '';
  setText('plan-rows', String(next.rows));
  setText('plan-new', String(next.newProfiles));
  setText('plan-known', String(next.knownProfiles));
  setText('plan-duplicates', String(next.duplicateRows));
  setText('plan-invalid', String(next.notProfiles));
  setText('plan-blanks', String(next.blanks));
  setText('plan-done', String(next.alreadyDone));
  setText('plan-price', priceText(next));
  setText('plan-misses', missesText(next));
  $('plan-misses').hidden = missesText(next) === '';
  renderPlacements(next);
  const chosen = next.needsChoice
    ? next.placements.find((c) => c.kind === planRequest.placement)
    : next.placement;
  // With a choice, each option says what it moves; otherwise the one placement does here.
  const effect = $('plan-effect');
  effect.hidden = next.needsChoice || !!next.refusal;
  effect.textContent = chosen ? chosen.effect : '';
  $('plan-recheck-row').hidden = next.mode !== 'all' || !!next.refusal;
  input('plan-recheck').checked = next.recheck;
  $('plan-unprocessable-row').hidden = next.mode !== 'retry' || next.unprocessableRows === 0;
  input('plan-unprocessable').checked = (next.redo ?? []).length > 1;
  const confirm = $('plan-confirm');
  confirm.textContent = confirmText(next);
  confirm.hidden = confirm.textContent === '' || !!next.refusal;
  setText('plan-start', startLabel(next));
  renderTrialOffer(next, planRequest);
  renderPlanButtons();
}

/** The placements to choose from, as radio buttons with what each moves. */
function renderPlacements(next: RunPlan): void {
  const box = $('plan-placements');
  const list = $('plan-placement-list');
  list.textContent = '';
  box.hidden = !next.needsChoice || !!next.refusal;
  if (box.hidden) return;
  renderPlacementChoices(list, next.placements, 'placement', planRequest.placement, (kind) => {
    void requestPlan({ ...planRequest, placement: kind }, false);
  });
}

function renderPlanButtons(): void {
  const ready = !!plan && !plan.refusal && (!plan.needsChoice || !!planRequest.placement);
  button('plan-start').disabled = planBusy || !ready;
  button('plan-cancel').disabled = planBusy;
  button('plan-trial').disabled = planBusy;
  input('plan-recheck').disabled = planBusy;
  input('plan-unprocessable').disabled = planBusy;
}

/**
 * What the progress view shows while the run starts: the plan it starts with, and the counts its job starts with
 * (src/bulk/counting.ts): every row with a URL cell, those already done processed.
 */
function startingProgress(shown: RunPlan): Progress {
  return {
    ...emptyRunCounts(),
    state: 'running',
    message: 'Starting: checking your API key, then the first rows…',
    total: shown.rows - shown.blanks,
    processed: shown.alreadyDone,
    alreadyDone: shown.alreadyDone,
    plan: {
      range: shown.range,
      rows: shown.rows,
      newProfiles: shown.newProfiles,
      knownProfiles: shown.knownProfiles,
      notProfiles: shown.notProfiles,
      blanks: shown.blanks,
      alreadyDone: shown.alreadyDone,
      credits: shown.credits,
      columns: shown.placement.columns,
      effect: shown.placement.effect,
      retry: shown.mode === 'retry',
      recheck: shown.recheck,
    },
  };
}

function showRefusal(text: string): void {
  const refusal = $('plan-refusal');
  refusal.hidden = false;
  refusal.textContent = text;
}

function hidePlan(): void {
  plan = null;
  $('plan').hidden = true;
  $('run').hidden = false;
}

/** Starts the planned run; the server plans again and starts only if the price is still the one shown. */
async function startPlanned(): Promise<void> {
  if (!plan) return;
  const shown = plan;
  const before = ui.progress;
  // The progress view at once, while the server checks the key, prepares the sheet and works a first slice.
  hidePlan();
  ui.starting = true;
  ui.pendingAction = null;
  setProgress(startingProgress(shown));
  let result: RunStart;
  try {
    result = await lookWhile(call('startRun', { ...planRequest, confirmedCredits: shown.credits }));
  } catch (error) {
    ui.pendingAction = null;
    setProgress(before);
    showPlan(shown);
    throw error;
  } finally {
    ui.starting = false;
  }
  const pending = ui.pendingAction;
  ui.pendingAction = null;
  if (result.started) {
    noteStarted(planRequest, result.progress.runId);
    // A Pause or Cancel pressed meanwhile already brought its own answer: the later of the two is shown.
    const halted = ui.progress.runId === result.progress.runId && ui.progress.state !== 'running';
    if (!(halted && result.progress.state === 'running')) setProgress(result.progress);
    ui.history = null;
    renderSummary();
    if (pending && ui.progress.state === 'running') await runAction(pending);
    else if (ui.progress.inFlight !== undefined) void awaitFinalCount();
    if (ui.progress.state === 'running') follow();
    else void loadHistory();
  } else if (result.keyRefusal) {
    // Nothing changed: the plan comes back, with the one message saying why and where a key comes from.
    setProgress(before);
    showPlan(shown);
    showRefusal(result.keyRefusal);
  } else if (result.plan) {
    setProgress(before);
    showPlan(result.plan);
    showError('The sheet changed since the plan was made: check the new plan, then start again.');
  } else {
    setProgress(result.progress);
    showError(result.progress.message);
  }
}

export function setupPlan(): void {
  button('plan-start').addEventListener('click', () => {
    if (planBusy) return;
    planBusy = true;
    renderPlanButtons();
    clearError();
    startPlanned()
      .catch((error) => showError(failureMessage(error)))
      .finally(() => {
        planBusy = false;
        renderPlanButtons();
      });
  });
  button('plan-cancel').addEventListener('click', () => {
    hidePlan();
    button('new-run').focus();
  });
  input('plan-recheck').addEventListener('change', () => {
    void requestPlan({ ...planRequest, recheck: input('plan-recheck').checked }, false);
  });
  input('plan-unprocessable').addEventListener('change', () => {
    void requestPlan({ ...planRequest, includeUnprocessable: input('plan-unprocessable').checked }, false);
  });
  button('new-run').addEventListener('click', () => {
    void requestPlan({ source: 'selection', mode: 'all' }, true);
  });
  button('plan-trial').addEventListener('click', () => {
    void requestPlan(trialRequest(planRequest), false);
  });
  button('run-rest').addEventListener('click', () => {
    const rest = restRequest();
    if (rest) void requestPlan(rest, false);
  });
  button('retry-failed').addEventListener('click', () => {
    void requestPlan({ source: 'lastRun', mode: 'retry' }, false);
  });
}
