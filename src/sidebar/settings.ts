/** The Settings tab: the API key (only ever received masked), the settings and the formulas' limit. */
import { DEFAULT_SETTINGS } from '../core/limits';
import { call, failureMessage } from './client';
import { $, button, clearError, input, onClick, setMessage, setText, showError, wholeNumber } from './dom';
import { setProgress } from './progressView';
import { ui } from './state';
import type { Settings, SidebarState } from './types';
import { formulaUseText, singleCellsText } from './words';

export function renderAccount(): void {
  const account = ui.account;
  if (!account) return;
  const status = $('key-status');
  status.textContent = '';
  if (account.hasKey) {
    const masked = document.createElement('span');
    masked.className = 'masked';
    masked.id = 'masked-key';
    masked.textContent = account.maskedKey;
    status.append('Saved API key: ', masked);
  } else status.append('No API key saved yet.');
  button('remove-key').disabled = !account.hasKey;
  button('check-key').disabled = !account.hasKey;
  if (!account.hasKey) $('remove-confirm').hidden = true;
  setText('config-error', account.configError);
  $('config-error').hidden = !account.configError;
  setText('formulas-used', formulaUseText(account.formulas));
  $('single-cells').hidden = !account.singleCells;
  setText('single-cells-text', account.singleCells ? singleCellsText(account.singleCells) : '');
}

/** The form fields follow the server's settings (after loading or saving, not while the user types). */
function fillForms(): void {
  if (!ui.account) return;
  const { settings, formulas } = ui.account;
  input('write-header').checked = settings.writeHeader;
  input('extra-fields').checked = settings.extraFields;
  input('start-at-once').checked = settings.startAtOnce;
  input('start-under').value = String(settings.startAtOnceUnder);
  input('start-under').disabled = !settings.startAtOnce;
  input('formulas-enabled').checked = formulas.setting.enabled;
  input('formulas-cap').value = String(formulas.setting.dailyCap);
}

export function acceptState(state: SidebarState, forms = false): void {
  ui.account = state;
  renderAccount();
  if (forms) fillForms();
  // A drive loop owns the progress while it runs.
  if (!ui.driving && state.progress) setProgress(state.progress);
}

/** Runs one server call for a button: disables the buttons meanwhile, shows a failure as the error banner. */
export async function withButtons<T>(ids: string[], work: () => Promise<T>): Promise<T | undefined> {
  const buttons = ids.map(button);
  const before = buttons.map((b) => b.disabled);
  for (const b of buttons) b.disabled = true;
  clearError();
  try {
    return await work();
  } catch (error) {
    showError(failureMessage(error));
    return undefined;
  } finally {
    buttons.forEach((b, index) => {
      b.disabled = before[index];
    });
    renderAccount();
  }
}

const KEY_BUTTONS = ['save-key', 'check-key', 'remove-key'];

function onSubmit(id: string, submit: () => void): void {
  $(id).addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
}

export function setupSettings(): void {
  onSubmit('key-form', () => {
    const field = input('api-key');
    setMessage('key-message', '');
    void withButtons(KEY_BUTTONS, async () => {
      const state = await call('saveApiKey', field.value);
      field.value = '';
      acceptState(state);
      setMessage('key-message', `API key saved: ${state.maskedKey}. Press Check to test it.`, 'ok');
    });
  });
  onClick('check-key', () => {
    setMessage('key-message', 'Checking the API key…');
    void withButtons(KEY_BUTTONS, async () => {
      try {
        const result = await call('checkApiKey');
        setMessage('key-message', result.message, result.ok ? 'ok' : 'bad');
      } catch (error) {
        setMessage('key-message', '');
        throw error;
      }
    });
  });
  onClick('remove-key', () => {
    setMessage('key-message', '');
    $('remove-confirm').hidden = false;
    button('remove-no').focus();
  });
  onClick('remove-no', () => {
    $('remove-confirm').hidden = true;
    button('remove-key').focus();
  });
  onClick('remove-yes', () => {
    $('remove-confirm').hidden = true;
    void withButtons(KEY_BUTTONS, async () => {
      acceptState(await call('removeApiKey'));
      input('api-key').value = '';
      setMessage(
        'key-message',
        'API key removed. Runs and checks need a key until you save one again.',
        'ok',
      );
    });
  });
  setupSettingsForm();
  setupFormulasForm();
  setupSingleCells();
}

function setupSettingsForm(): void {
  input('start-at-once').addEventListener('change', () => {
    input('start-under').disabled = !input('start-at-once').checked;
  });
  onSubmit('settings-form', () => {
    setMessage('settings-message', '');
    const startAtOnce = input('start-at-once').checked;
    const startAtOnceUnder = wholeNumber('start-under');
    if (startAtOnce && !(startAtOnceUnder !== undefined && startAtOnceUnder >= 1)) {
      setMessage(
        'settings-message',
        'Type a whole number of credits, 1 or more, to start runs under.',
        'bad',
      );
      return;
    }
    const settings: Settings = {
      writeHeader: input('write-header').checked,
      extraFields: input('extra-fields').checked,
      startAtOnce,
      startAtOnceUnder:
        startAtOnceUnder ?? ui.account?.settings.startAtOnceUnder ?? DEFAULT_SETTINGS.startAtOnceUnder,
    };
    void withButtons(['save-settings'], async () => {
      acceptState(await call('saveSettings', settings), true);
      setMessage('settings-message', 'Settings saved. They apply to the next run you start.', 'ok');
    });
  });
}

function setupFormulasForm(): void {
  onSubmit('formulas-form', () => {
    setMessage('formulas-message', '');
    const dailyCap = wholeNumber('formulas-cap');
    if (dailyCap === undefined) {
      setMessage('formulas-message', 'Type a whole number of credits per day.', 'bad');
      return;
    }
    const enabled = input('formulas-enabled').checked;
    void withButtons(['save-formulas'], async () => {
      const formulas = await call('saveFormulaCap', { enabled, dailyCap });
      if (ui.account) ui.account = { ...ui.account, formulas };
      fillForms();
      setMessage('formulas-message', 'Formula limit saved for this spreadsheet.', 'ok');
    });
  });
}

let lookingAtSingleCells = false;

/** The notice on a column of single =FINDEMAIL cells, read again (cells filled or refreshed in the sheet meanwhile). */
export async function refreshSingleCells(): Promise<void> {
  if (!ui.account || lookingAtSingleCells) return;
  lookingAtSingleCells = true;
  try {
    const singleCells = await call('getSingleCells');
    if (ui.account) ui.account = { ...ui.account, singleCells: singleCells ?? undefined };
    renderAccount();
  } catch {
    // The notice stays as it was; the next look reads it again.
  } finally {
    lookingAtSingleCells = false;
  }
}

/** The offer of one range formula in place of a column of single cells (the server asks first). */
function setupSingleCells(): void {
  window.addEventListener('focus', () => {
    if (ui.currentView === 'settings') void refreshSingleCells();
  });
  onClick('replace-single-cells', () => {
    setMessage('single-cells-message', '');
    void withButtons(['replace-single-cells'], async () => {
      setMessage('single-cells-message', await call('replaceSingleCells'), 'ok');
      acceptState(await call('getSidebarState'));
    });
  });
}
