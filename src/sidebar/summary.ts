/** What a run did when it ends, and the last few runs. */
import { reusedText } from '../core/runWords';
import { call, failureMessage } from './client';
import { $, button, listItem, setText, showError, showText } from './dom';
import { creditsShown } from './progress';
import { ui } from './state';
import { renderTrialResult } from './trial';
import type { KindCounts } from './types';
import {
  failedRows,
  historyLine,
  retriedRows,
  selectFailedLabel,
  summaryCreditsText,
  summaryTitle,
  timeTakenText,
} from './words';

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
  try {
    ui.history = await call('getRunHistory');
    ui.summaryStale = false;
  } catch (error) {
    showError(failureMessage(error));
    return;
  }
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
  renderTrialResult(last ?? undefined, shown);
  $('run-counts').hidden = shown;
  if (last && shown) {
    setText('summary-title', summaryTitle(last));
    renderCounts('sum', last);
    setText(
      'sum-credits',
      creditsShown({ creditsUsed: last.creditsSpent, creditsMaybeLost: last.creditsMaybeLost }),
    );
    setText('sum-time', timeTakenText(last));
    const lookups = !(last.creditsSpent === 0 && reusedText(last) === '');
    showText('sum-lookups', summaryCreditsText(last), lookups);
    showText('select-failed', selectFailedLabel(last), failedRows(last) !== 0);
    button('retry-failed').hidden = retriedRows(last) === 0;
  }
  const list = $('history');
  list.textContent = '';
  const entries = ui.history?.history ?? [];
  $('history-block').hidden = entries.length === 0;
  for (const entry of entries) {
    const time = new Date(entry.endedAt).toLocaleString();
    list.append(listItem(historyLine(entry), entry.origin === 'watch' ? `Last check: ${time}` : time));
  }
}
