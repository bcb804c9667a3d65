/** What a run did when it ends, and the last few runs. */
import { FAILED_KINDS, RETRIED_KINDS, reusedText, sumOf, timeTakenText } from '../core/runWords';
import { call } from './client';
import { $, button, listItem, orShowError, setText, showText } from './dom';
import { creditsShown } from './progress';
import { ui } from './state';
import { renderTrialResult } from './trial';
import type { KindCounts } from './types';
import { historyLine, selectFailedLabel, summaryCreditsText, summaryTitle } from './words';

/** The figures of the one classifier (src/bulk/outcomes.ts), the same in the progress counts and the summary box. */
export function renderCounts(prefix: 'count' | 'sum', counts: KindCounts & { alreadyDone: number }): void {
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
  $('summary').hidden = !shown;
  renderTrialResult(last, shown);
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
