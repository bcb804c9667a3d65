/** A run's plan and price, shown before it starts; "Try 10 rows first", then "Run the rest" (priced again). */
import { rangeText } from '../core/a1';
import { TRIAL_PROFILES } from '../core/limits';
import { emptyRunCounts } from '../core/runWords';
import { missesText } from './credits';
import { $, button, clearError, input, onClick, orShowError, setText, showError, showText } from './dom';
import { awaitFinalCount, follow, lookWhile, runAction } from './drive';
import { renderPlacementChoices } from './placementChoices';
import { loadHistory, renderSummary, setProgress } from './progressView';
import { ui } from './state';
import { showView } from './tabs';
import { call, type RunPlan, type RunRequest, type RunStart } from './types';
import { confirmText, priceText, startLabel } from './words';

let plan: RunPlan | null = null;
let planRequest: RunRequest = {};
let planBusy = false;
const planAgain = (change: RunRequest) => void requestPlan({ ...planRequest, ...change }, false);

/** One call of the plan's at a time, its buttons disabled meanwhile; a failure shows in the error banner. */
async function planWork(work: () => Promise<void>): Promise<void> {
  if (planBusy) return;
  planBusy = true;
  clearError();
  renderPlanButtons();
  await orShowError(work());
  planBusy = false;
  renderPlanButtons();
}

/** Shows the plan of `request`; `autoStart`: starts at once when it needs nothing of the user. */
export function requestPlan(request: RunRequest, autoStart: boolean): Promise<void> {
  return planWork(async () => {
    planRequest = request;
    const next = await call('getRunPlan', request);
    showPlan(next);
    // One with nothing to do waits: re-check is offered.
    const work = next.lookupRows + next.notProfiles > 0;
    if (autoStart && work && !next.refusal && !next.needsChoice && !next.needsConfirm) await startPlanned();
  });
}

function showPlan(next: RunPlan): void {
  plan = next;
  // From now on the plan's own cells: Start, a trial, its rest and a changed option read them, not the selection.
  if (next.target) planRequest = { ...planRequest, target: next.target };
  if (next.needsChoice && !next.placements.some((choice) => choice.kind === planRequest.placement))
    planRequest = { ...planRequest, placement: undefined };
  $('plan').hidden = false;
  $('run').hidden = true;
  if (ui.currentView !== 'progress') showView('progress');
  setText('plan-title', next.mode === 'retry' ? 'Retry failed rows' : 'Before the run');
  setText('plan-where', `${rangeText(next.sheetName, next.range)}: results in ${next.placement.columns}.`);
  showText('plan-note', next.note ?? '');
  showText('plan-refusal', next.refusal ?? '');
  setText('plan-rows', String(next.rows));
  setText('plan-new', String(next.newProfiles));
  setText('plan-known', String(next.knownProfiles));
  setText('plan-duplicates', String(next.duplicateRows));
  setText('plan-invalid', String(next.notProfiles));
  setText('plan-blanks', String(next.blanks));
  setText('plan-done', String(next.alreadyDone));
  setText('plan-price', priceText(next));
  showText('plan-misses', missesText(next));
  const choices = next.needsChoice && !next.refusal ? next.placements : undefined;
  renderPlacementChoices('plan', 'placement', choices, planRequest.placement, (placement) =>
    planAgain({ placement }),
  );
  // With a choice, each option says what it moves.
  showText('plan-effect', next.placement.effect, !next.needsChoice && !next.refusal);
  $('plan-recheck-row').hidden = next.mode !== 'all' || !!next.refusal;
  input('plan-recheck').checked = next.recheck;
  $('plan-unprocessable-row').hidden = next.mode !== 'retry' || next.unprocessableRows === 0;
  input('plan-unprocessable').checked = (next.redo ?? []).length > 1;
  showText('plan-confirm', confirmText(next), confirmText(next) !== '' && !next.refusal);
  setText('plan-start', startLabel(next));
  // No second trial for the rest of one (the same cells planned again).
  const { target } = planRequest;
  const restOfTrial = !!target && JSON.stringify(target) === JSON.stringify(ui.trial?.rest.target);
  const trialOffered = !next.refusal && next.mode === 'all' && !planRequest.trial && !restOfTrial;
  button('plan-trial').hidden = !(trialOffered && next.newProfiles > TRIAL_PROFILES);
  showText(
    'plan-trial-note',
    next.trialOf === undefined
      ? ''
      : `A trial: the first ${next.newProfiles} of the ${next.trialOf} new profiles (${rangeText(next.sheetName, next.range)}). When it ends, Run the rest prices the others.`,
  );
  renderPlanButtons();
}

function renderPlanButtons(): void {
  const ready = !!plan && !plan.refusal && (!plan.needsChoice || !!planRequest.placement);
  button('plan-start').disabled = planBusy || !ready;
  for (const id of ['plan-cancel', 'plan-trial', 'plan-recheck', 'plan-unprocessable'])
    button(id).disabled = planBusy;
}

function hidePlan(): void {
  plan = null;
  $('plan').hidden = true;
  $('run').hidden = false;
}

/** The server plans again and starts only if the price is still the one shown. */
async function startPlanned(): Promise<void> {
  if (!plan) return;
  const shown = plan;
  const before = ui.progress;
  const back = (again: RunPlan) => {
    setProgress(before);
    showPlan(again);
  };
  hidePlan();
  ui.starting = true;
  ui.pendingAction = null;
  // While it starts: its plan, and the counts its job starts with (src/bulk/outcomes.ts).
  const { rows, blanks, alreadyDone, placement } = shown;
  setProgress({
    ...emptyRunCounts(),
    state: 'running',
    message: 'Starting: checking your API key, then the first rows…',
    total: rows - blanks,
    processed: alreadyDone,
    alreadyDone,
    plan: { ...shown, columns: placement.columns, effect: placement.effect, retry: shown.mode === 'retry' },
  });
  let result: RunStart;
  try {
    result = await lookWhile(call('startRun', { ...planRequest, confirmedCredits: shown.credits }));
  } catch (error) {
    ui.pendingAction = null;
    back(shown);
    throw error;
  } finally {
    ui.starting = false;
  }
  const pending = ui.pendingAction;
  ui.pendingAction = null;
  if (result.started) {
    const { runId } = result.progress;
    ui.trial = planRequest.trial && runId ? { runId, rest: { ...planRequest, trial: undefined } } : null;
    // A Pause or Cancel pressed meanwhile already brought its own answer: the later of the two is shown.
    const halted = ui.progress.runId === runId && ui.progress.state !== 'running';
    if (!(halted && result.progress.state === 'running')) setProgress(result.progress);
    ui.history = null;
    renderSummary();
    if (pending && ui.progress.state === 'running') await runAction(pending);
    else if (ui.progress.inFlight !== undefined) void awaitFinalCount();
    if (ui.progress.state === 'running') follow();
    else void loadHistory();
  } else if (result.keyRefusal) {
    back(shown);
    showText('plan-refusal', result.keyRefusal, true);
  } else if (result.plan) {
    back(result.plan);
    showError('The sheet changed since the plan was made: check the new plan, then start again.');
  } else {
    setProgress(result.progress);
    showError(result.progress.message);
  }
}

export function setupPlan(): void {
  onClick('plan-start', () => void planWork(startPlanned));
  onClick('plan-cancel', () => {
    hidePlan();
    button('new-run').focus();
  });
  const options = { 'plan-recheck': 'recheck', 'plan-unprocessable': 'includeUnprocessable' } as const;
  for (const [id, option] of Object.entries(options))
    input(id).addEventListener('change', () => planAgain({ [option]: input(id).checked }));
  onClick('new-run', () => void requestPlan({ source: 'selection', mode: 'all' }, true));
  onClick('plan-trial', () => planAgain({ trial: TRIAL_PROFILES, confirmedCredits: undefined }));
  onClick('run-rest', () => {
    if (ui.trial) void requestPlan(ui.trial.rest, false);
  });
  onClick('retry-failed', () => void requestPlan({ source: 'lastRun', mode: 'retry' }, false));
}
