/** The Progress tab's run (and its notice on Settings); once it has ended, what it did and the last few runs. */
import { rangeText } from '../core/a1';
import { FAILED_KINDS, RETRIED_KINDS, reusedText, sumOf, timeTakenText } from '../core/runWords';
import { hitRateText } from '../core/text';
import { $, button, listItem, orShowError, setText, showText } from './dom';
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
import { call, type KindCounts, type Progress } from './types';
import { historyLine, runPlanText, selectFailedLabel, summaryCreditsText, summaryTitle } from './words';

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

/** The figures of the one classifier (src/bulk/outcomes.ts), the same in the progress counts and the summary box. */
function renderCounts(prefix: 'count' | 'sum', counts: KindCounts & { alreadyDone: number }): void {
  setText(`${prefix}-found`, String(counts.found));
  setText(`${prefix}-no-address`, String(counts.noAddress));
  setText(`${prefix}-unprocessable`, String(counts.unprocessable));
  setText(`${prefix}-invalid`, String(counts.notProfile));
  setText(`${prefix}-errors`, String(counts.error));
  setText(`${prefix}-done`, String(counts.alreadyDone));
}

export async function loadHistory(): Promise<void> {
  const history = await orShowError(call('getRunHistory'));
  if (!history) return;
  ui.history = history;
  ui.summaryStale = false;
  renderSummary();
}

export function renderSummary(): void {
  const last = ui.history?.last;
  // Not while a slice still writes the run's last rows: the box comes with the final count.
  const shown =
    !!last &&
    last.id === ui.progress.runId &&
    ui.progress.inFlight === undefined &&
    !ui.summaryStale &&
    (ui.progress.state === 'done' || ui.progress.state === 'cancelled');
  const isTrial = shown && last?.state === 'done' && ui.trial?.runId === last.id;
  $('summary').hidden = !shown;
  $('trial-result').hidden = !isTrial;
  button('run-rest').hidden = !isTrial;
  $('run-counts').hidden = shown;
  if (last && shown) {
    setText('summary-title', summaryTitle(last));
    renderCounts('sum', last);
    const { creditsSpent: creditsUsed, creditsMaybeLost } = last;
    setText('sum-credits', creditsShown({ creditsUsed, creditsMaybeLost }));
    setText('sum-time', timeTakenText(last));
    showText('sum-lookups', summaryCreditsText(last), creditsUsed !== 0 || reusedText(last) !== '');
    showText('select-failed', selectFailedLabel(last), sumOf(last, FAILED_KINDS) !== 0);
    button('retry-failed').hidden = sumOf(last, RETRIED_KINDS) === 0;
    const found = last.lookupsFound ?? last.found;
    if (isTrial) setText('trial-result', `Trial: ${hitRateText(last.creditsSpent, found)}.`);
  }
  const entries = ui.history?.history ?? [];
  $('history-block').hidden = entries.length === 0;
  $('history').replaceChildren(
    ...entries.map((entry) => {
      const time = new Date(entry.endedAt).toLocaleString();
      return listItem(historyLine(entry), entry.origin === 'watch' ? `Last check: ${time}` : time);
    }),
  );
}
