/** The Settings tab: the API key (only ever received masked), the settings and the formulas' limit. */
import { dayText } from '../core/day';
import { DEFAULT_SETTINGS } from '../core/limits';
import { countText } from '../core/text';
import { $, button, input, make, onClick, onSubmit, setMessage, setText, withButtons } from './dom';
import { setProgress } from './progressView';
import { ui } from './state';
import { call, type FormulaCapState, type Settings, type SidebarState, type SingleCellsState } from './types';

/** "Used today (27 Nov): 12 of 500 credits." */
function formulaUseText(state: FormulaCapState): string {
  const today = `Used today (${dayText(state.day)})`;
  if (!state.setting.enabled)
    return `New lookups by formulas are off. ${today}: ${countText(state.usedToday, 'credit')}.`;
  return `${today}: ${state.usedToday} of ${countText(state.setting.dailyCap, 'credit')}.`;
}

/** A column of single =FINDEMAIL cells past what Sheets runs at once: how many, and what one range formula does. */
function singleCellsText(state: SingleCellsState): string {
  return `${state.range} holds ${state.cells} single =FINDEMAIL cells, ${state.unfinished} of them not done: Sheets runs at most ${state.atOnce} formulas at once for one person, so each Refresh =FINDEMAIL cells finishes about ${state.atOnce}. One range formula, ${state.formula}, looks them all up together (you are asked first; results already paid for cost nothing, the inputs are not changed).`;
}

function renderAccount(): void {
  const account = ui.account;
  if (!account) return;
  const masked = make('span', { className: 'masked', id: 'masked-key', textContent: account.maskedKey });
  $('key-status').replaceChildren(
    ...(account.hasKey ? ['Saved API key: ', masked] : ['No API key saved yet.']),
  );
  for (const id of ['remove-key', 'check-key']) button(id).disabled = !account.hasKey;
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

/** withButtons, then the account shown again: the key's buttons follow the key saved or removed. */
const withAccount = (ids: string[], work: () => Promise<unknown>) =>
  withButtons(ids, work).then(renderAccount);

function wholeNumber(id: string): number | undefined {
  const value = Number(input(id).value);
  return input(id).value.trim() !== '' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

const KEY_BUTTONS = ['save-key', 'check-key', 'remove-key'];

export function setupSettings(): void {
  onSubmit('key-form', () => {
    const field = input('api-key');
    setMessage('key-message', '');
    void withAccount(KEY_BUTTONS, async () => {
      const state = await call('saveApiKey', field.value);
      field.value = '';
      acceptState(state);
      setMessage('key-message', `API key saved: ${state.maskedKey}. Press Check to test it.`, 'ok');
    });
  });
  onClick('check-key', () => {
    setMessage('key-message', 'Checking the API key…');
    void withAccount(KEY_BUTTONS, async () => {
      const result = await call('checkApiKey').finally(() => setMessage('key-message', ''));
      setMessage('key-message', result.message, result.ok ? 'ok' : 'bad');
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
    void withAccount(KEY_BUTTONS, async () => {
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
    if (startAtOnce && (startAtOnceUnder ?? 0) < 1) {
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
    void withAccount(['save-settings'], async () => {
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
    void withAccount(['save-formulas'], async () => {
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
  // A failed look leaves the notice as it was; the next look reads it again.
  const singleCells = await call('getSingleCells').catch(() => false as const);
  if (singleCells !== false && ui.account) {
    ui.account = { ...ui.account, singleCells: singleCells ?? undefined };
    renderAccount();
  }
  lookingAtSingleCells = false;
}

/** The offer of one range formula in place of a column of single cells (the server asks first). */
function setupSingleCells(): void {
  window.addEventListener('focus', () => {
    if (ui.currentView === 'settings') void refreshSingleCells();
  });
  onClick('replace-single-cells', () => {
    setMessage('single-cells-message', '');
    void withAccount(['replace-single-cells'], async () => {
      setMessage('single-cells-message', await call('replaceSingleCells'), 'ok');
      acceptState(await call('getSidebarState'));
    });
  });
}
