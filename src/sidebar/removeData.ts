/** Settings › Remove this spreadsheet's add-on data: asks first naming what goes, offers to export the credits log. */
import { exportLog } from './credits';
import { $, button, confirmBox, listItem, onClick, setMessage, setText, withButtons } from './dom';
import { loadHistory } from './progressView';
import { acceptState } from './settings';
import { call } from './types';

const BUTTONS = ['remove-data', 'remove-data-yes', 'remove-data-export'];

async function askFirst(openConfirm: () => void): Promise<void> {
  const plan = await call('getDataRemovalPlan');
  if (plan.refusal || plan.items.length === 0) {
    const nothing = 'This spreadsheet holds no data of the add-on: nothing to remove.';
    setMessage('remove-data-message', plan.refusal || nothing, plan.refusal ? 'bad' : 'ok');
    return;
  }
  setText('remove-data-intro', 'Remove from this spreadsheet:');
  $('remove-data-items').replaceChildren(...plan.items.map((item) => listItem(item)));
  button('remove-data-export').hidden = !plan.creditsLog;
  setText('remove-data-export-status', '');
  openConfirm();
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
  const openConfirm = confirmBox('remove-data-confirm', 'remove-data', 'remove-data-no');
  onClick('remove-data', () => {
    setMessage('remove-data-message', '');
    $('remove-data-confirm').hidden = true;
    void withButtons(BUTTONS, () => askFirst(openConfirm));
  });
  const exportFirst = () => exportLog('remove-data-export-status');
  onClick('remove-data-export', () => void withButtons(BUTTONS, exportFirst));
  onClick('remove-data-yes', () => {
    $('remove-data-confirm').hidden = true;
    void withButtons(BUTTONS, remove);
  });
}
