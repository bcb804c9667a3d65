/** Settings › Remove this spreadsheet's add-on data: asks first naming what goes, offers to export the credits log. */
import { call } from './client';
import { exportLog } from './credits';
import { $, button, listItem, onClick, setMessage, setText } from './dom';
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
  $('remove-data-items').replaceChildren(...plan.items.map((item) => listItem(item)));
  button('remove-data-export').hidden = !plan.creditsLog;
  setText('remove-data-export-status', '');
  $('remove-data-confirm').hidden = false;
  button('remove-data-no').focus();
}

async function remove(): Promise<void> {
  const result = await call('removeSpreadsheetData');
  setMessage('remove-data-message', result.message, result.removed ? 'ok' : 'bad');
  // The run's state and the recent runs went with the rest.
  if (result.removed) {
    acceptState(await call('getSidebarState'));
    await loadHistory();
  }
}

export function setupDataRemoval(): void {
  onClick('remove-data', () => {
    setMessage('remove-data-message', '');
    closeConfirm();
    void withButtons(BUTTONS, askFirst);
  });
  onClick('remove-data-no', () => {
    closeConfirm();
    button('remove-data').focus();
  });
  onClick(
    'remove-data-export',
    () => void withButtons(BUTTONS, () => exportLog('remove-data-export-status')),
  );
  onClick('remove-data-yes', () => {
    closeConfirm();
    void withButtons(BUTTONS, remove);
  });
}
