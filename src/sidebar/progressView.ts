/** The Progress tab's run: its state, bar, counts and buttons, and the notice on the Settings tab. */
import { rangeText } from '../core/a1';
import { call, failureMessage } from './client';
import { $, button, setText, showError } from './dom';
import {
  canCancel,
  canPause,
  canResume,
  creditsShown,
  describeState,
  driverNotice,
  fractionText,
  inFlightText,
  isUnderWay,
  ownerNotice,
  paceNotice,
  percentDone,
} from './progress';
import { ui } from './state';
import { loadHistory, renderCounts, renderSummary } from './summary';
import type { Progress } from './types';
import { runPlanText } from './words';

export function setProgress(next: Progress): void {
  const isEnded = next.state === 'done' || next.state === 'cancelled';
  // An ended run's message changes once more when a slice still at work saves its counts: the box follows.
  const ended = isEnded && (next.state !== ui.progress.state || next.message !== ui.progress.message);
  ui.progress = next;
  if (ended) ui.summaryStale = true;
  renderProgress();
  if (ended || (ui.history === null && next.runId && (next.state === 'done' || next.state === 'cancelled')))
    void loadHistory();
}

export async function refreshProgress(): Promise<void> {
  try {
    const next = await call('getEnrichmentProgress');
    if (!ui.driving) setProgress(next);
  } catch (error) {
    showError(failureMessage(error));
  }
}

export function renderProgress(): void {
  const words = describeState(ui.progress);
  const state = $('run-state');
  state.textContent = words.label;
  state.className = `state ${words.tone}`;
  setText('run-title', ui.progress.origin === 'watch' ? "The watch's last check" : 'Bulk run');
  const sheet = $('run-sheet');
  sheet.hidden = !ui.progress.sheetName;
  const { sheetName, plan } = ui.progress;
  sheet.textContent = !sheetName ? '' : plan ? rangeText(sheetName, plan.range) : `Sheet: ${sheetName}`;

  const percent = percentDone(ui.progress);
  const bar = $('run-bar');
  bar.setAttribute('aria-valuenow', String(percent));
  bar.setAttribute('aria-valuetext', `${percent}% (${words.label})`);
  bar.classList.toggle('done', ui.progress.state === 'done');
  bar.classList.toggle('halted', ui.progress.state === 'paused' || ui.progress.state === 'stopped');
  $('run-bar-fill').style.width = `${percent}%`;
  setText('run-fraction', fractionText(ui.progress));
  const runPlan = $('run-plan');
  runPlan.hidden = !ui.progress.plan;
  runPlan.textContent = ui.progress.plan ? runPlanText(ui.progress.plan) : '';
  renderCounts('count', ui.progress);
  setText('count-credits', creditsShown(ui.progress));
  setText('run-message', inFlightText(ui.progress) || pendingText() || ui.progress.message);
  const notice = ownerNotice(ui.progress) || driverNotice(ui.progress);
  $('run-owner').hidden = notice === '';
  setText('run-owner', notice);
  // The help below says the same as the driver's notice: one of them at a time.
  $('progress-help').hidden = driverNotice(ui.progress) !== '';
  const pace = paceNotice(ui.progress);
  $('run-pace').hidden = pace === '';
  setText('run-pace', pace);
  // The missing-key message points at the Settings tab (the server's message cannot: it has no sidebar).
  $('run-key-hint').hidden = !(
    (ui.progress.reason === 'no_key' || ui.progress.reason === 'key_rejected') &&
    ui.progress.state === 'stopped' &&
    !ui.progress.readOnly
  );

  // A control that cannot apply is hidden; one whose call is on its way waits, disabled. Pause and Cancel are
  // there from Start on (pressed before the run exists, they are sent again once Start has answered).
  // Resume also restarts a running run whose drive loop gave up after failures.
  const stalled = ui.progress.state === 'running' && !ui.progress.readOnly && !ui.driving && !ui.starting;
  const shown = {
    pause: canPause(ui.progress) && ui.pendingAction === null,
    resume: canResume(ui.progress) || stalled,
    cancel: canCancel(ui.progress) && ui.pendingAction !== 'cancelEnrichment',
  };
  for (const [id, visible] of Object.entries(shown)) {
    button(id).hidden = !visible;
    button(id).disabled = ui.runActionBusy;
  }
  $('run-controls').hidden = !(shown.pause || shown.resume || shown.cancel);
  if (!shown.cancel) $('cancel-confirm').hidden = true;
  // A new run cannot start while one is under way (paused or stopped too: Cancel ends it first).
  $('new-run-buttons').hidden = isUnderWay(ui.progress);
  renderRunNotice();
  renderSummary();
}

export function renderRunNotice(): void {
  $('run-notice').hidden = !(isUnderWay(ui.progress) && ui.currentView === 'settings');
  // Only a run that goes on is "under way"; a paused or stopped one waits for Resume or Cancel.
  setText(
    'run-notice-text',
    ui.progress.state === 'running' && !ui.progress.waiting
      ? 'A run is under way in this spreadsheet.'
      : `The run in this spreadsheet is not going on (${describeState(ui.progress).label}).`,
  );
}

/** Pause or Cancel pressed while the run was being created: what happens next. */
function pendingText(): string {
  if (ui.pendingAction === 'pauseEnrichment') return 'Pausing: the run pauses as soon as it has started.';
  if (ui.pendingAction === 'cancelEnrichment') return 'Cancelling: the run stops as soon as it has started.';
  return '';
}
