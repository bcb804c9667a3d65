/**
 * Settings › Remove this spreadsheet's add-on data: asks first, naming what goes (from the server's plan), offers to
 * export the credits log before, then removes and says what was removed and what stayed.
 */
import { call } from './client';
import { exportLog } from './credits';
import { $, button, setMessage, setText } from './dom';
import { acceptState, withButtons } from './settings';
import { loadHistory } from './summary';

const BUTTONS = ['remove-data', 'remove-data-yes', 'remove-data-export'];

function closeConfirm(): void {
  $('remove-data-confirm').hidden = true;
}

async function askFirst(): Promise<void> {
  const plan = await call('getDataRemovalPlan');
  if (plan.refusal) {
    setMessage('remove-data-message', plan.refusal, 'bad');
    return;
  }
  if (plan.items.length === 0) {
    setMessage(
      'remove-data-message',
      'This spreadsheet holds no data of the add-on: nothing to remove.',
      'ok',
    );
    return;
  }
  setText('remove-data-intro', 'Remove from this spreadsheet:');
  const list = $('remove-data-items');
  list.textContent = '';
  for (const item of plan.items) {
    const line = document.createElement('li');
    line.textContent = item;
    list.append(line);
  }
  button('remove-data-export').hidden = !plan.creditsLog;
  setText('remove-data-export-status', '');
  $('remove-data-confirm').hidden = false;
  button('remove-data-no').focus();
}

async function remove(): Promise<void> {
  const result = await call('removeSpreadsheetData');
  setMessage('remove-data-message', result.message, result.removed ? 'ok' : 'bad');
  // The run's state and the recent runs went with the rest: the sidebar shows the spreadsheet as it is now.
  if (result.removed) {
    acceptState(await call('getSidebarState'));
    await loadHistory();
  }
}

export function setupDataRemoval(): void {
  button('remove-data').addEventListener('click', () => {
    setMessage('remove-data-message', '');
    closeConfirm();
    void withButtons(BUTTONS, askFirst);
  });
  button('remove-data-no').addEventListener('click', () => {
    closeConfirm();
    button('remove-data').focus();
  });
  button('remove-data-export').addEventListener('click', () => {
    void withButtons(BUTTONS, () => exportLog('remove-data-export-status'));
  });
  button('remove-data-yes').addEventListener('click', () => {
    closeConfirm();
    void withButtons(BUTTONS, remove);
  });
}
