/** The Progress tab's run: its state, bar, counts and buttons, and the notice on the Settings tab. */
import { rangeText } from '../core/a1';
import { call } from './client';
import { $, button, orShowError, setText, showText } from './dom';
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

/** The run's message while a Pause or Cancel pressed during Start waits for the run to exist. */
const PENDING = {
  pauseEnrichment: 'Pausing: the run pauses as soon as it has started.',
  cancelEnrichment: 'Cancelling: the run stops as soon as it has started.',
};

export function setProgress(next: Progress): void {
  const isEnded = next.state === 'done' || next.state === 'cancelled';
  // An ended run's message changes once more when a slice still at work saves its counts: the box follows.
  const ended = isEnded && (next.state !== ui.progress.state || next.message !== ui.progress.message);
  ui.progress = next;
  if (ended) ui.summaryStale = true;
  renderProgress();
  if (ended || (ui.history === null && next.runId && isEnded)) void loadHistory();
}

export async function refreshProgress(): Promise<void> {
  const next = await orShowError(call('getEnrichmentProgress'));
  if (next && !ui.driving) setProgress(next);
}

export function renderProgress(): void {
  const p = ui.progress;
  const words = describeState(p);
  setText('run-state', words.label);
  $('run-state').className = `state ${words.tone}`;
  setText('run-title', p.origin === 'watch' ? "The watch's last check" : 'Bulk run');
  const { sheetName, plan } = p;
  showText('run-sheet', !sheetName ? '' : plan ? rangeText(sheetName, plan.range) : `Sheet: ${sheetName}`);
  const percent = percentDone(p);
  const bar = $('run-bar');
  bar.setAttribute('aria-valuenow', String(percent));
  bar.setAttribute('aria-valuetext', `${percent}% (${words.label})`);
  bar.classList.toggle('done', p.state === 'done');
  bar.classList.toggle('halted', p.state === 'paused' || p.state === 'stopped');
  $('run-bar-fill').style.width = `${percent}%`;
  setText('run-fraction', fractionText(p));
  showText('run-plan', plan ? runPlanText(plan) : '');
  renderCounts('count', p);
  setText('count-credits', creditsShown(p));
  setText('run-message', inFlightText(p) || (ui.pendingAction && PENDING[ui.pendingAction]) || p.message);
  showText('run-owner', ownerNotice(p) || driverNotice(p));
  // The help below says the same as the driver's notice: one of them at a time.
  $('progress-help').hidden = driverNotice(p) !== '';
  showText('run-pace', paceNotice(p));
  // The server's message cannot point at the Settings tab: it has no sidebar.
  const keyMissing = p.reason === 'no_key' || p.reason === 'key_rejected';
  $('run-key-hint').hidden = !(keyMissing && p.state === 'stopped' && !p.readOnly);
  // Pause and Cancel are there from Start on; Resume also restarts a running run whose drive gave up after failures.
  const stalled = p.state === 'running' && !p.readOnly && !ui.driving && !ui.starting;
  const shown = {
    pause: canPause(p) && ui.pendingAction === null,
    resume: canResume(p) || stalled,
    cancel: canCancel(p) && ui.pendingAction !== 'cancelEnrichment',
  };
  for (const [id, visible] of Object.entries(shown)) {
    button(id).hidden = !visible;
    button(id).disabled = ui.runActionBusy;
  }
  $('run-controls').hidden = !(shown.pause || shown.resume || shown.cancel);
  if (!shown.cancel) $('cancel-confirm').hidden = true;
  // Paused or stopped too: Cancel ends a run before a new one starts.
  $('new-run-buttons').hidden = isUnderWay(p);
  renderRunNotice();
  renderSummary();
}

export function renderRunNotice(): void {
  $('run-notice').hidden = !(isUnderWay(ui.progress) && ui.currentView === 'settings');
  setText(
    'run-notice-text',
    ui.progress.state === 'running' && !ui.progress.waiting
      ? 'A run is under way in this spreadsheet.'
      : `The run in this spreadsheet is not going on (${describeState(ui.progress).label}).`,
  );
}
