/** What a run did when it ends, and the last few runs. */
import { call, failureMessage } from './client';
import { $, button, setText, showError } from './dom';
import { ui } from './state';
import { durationText, failedRows, historyLine, summaryTitle } from './words';

export async function loadHistory(): Promise<void> {
  try {
    ui.history = await call('getRunHistory');
  } catch (error) {
    showError(failureMessage(error));
    return;
  }
  renderSummary();
}

/** The last run's summary when it has ended (counters that do not overlap), and the recent runs. */
export function renderSummary(): void {
  const last = ui.history?.last;
  const shown =
    !!last &&
    last.id === ui.progress.runId &&
    (ui.progress.state === 'done' || ui.progress.state === 'cancelled');
  $('summary').hidden = !shown;
  $('run-counts').hidden = shown;
  if (last && shown) {
    setText('summary-title', summaryTitle(last));
    setText('sum-found', String(last.found));
    setText('sum-no-address', String(last.noAddress));
    setText('sum-unprocessable', String(last.unprocessable));
    setText('sum-invalid', String(last.notProfile));
    setText('sum-errors', String(last.error));
    setText('sum-done', String(last.alreadyDone));
    setText('sum-credits', String(last.creditsSpent));
    setText('sum-time', durationText(last.durationMs));
    button('select-failed').hidden = failedRows(last) === 0;
    button('retry-failed').hidden = last.error + last.unprocessable === 0;
  }
  const list = $('history');
  list.textContent = '';
  const entries = ui.history?.history ?? [];
  $('history-block').hidden = entries.length === 0;
  for (const entry of entries) {
    const item = document.createElement('li');
    item.textContent = historyLine(entry);
    const when = document.createElement('div');
    when.className = 'when';
    when.textContent = new Date(entry.endedAt).toLocaleString();
    item.append(when);
    list.append(item);
  }
}
