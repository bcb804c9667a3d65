// One page's script: tabs, the settings view, the progress view and its drive loop (355 lines; split by view when it grows).
/**
 * The sidebar: the API key (only ever received masked), the settings, and the progress of a bulk run, which the
 * sidebar drives while it is open by calling continueEnrichment() again and again.
 * Every text from the server goes into the page through textContent, never as HTML.
 */
import { DRIVE_ATTEMPTS, MAX_IDLE_WAIT_MS } from '../core/limits';
import { call, failureMessage } from './client';
import {
  canCancel,
  canPause,
  canResume,
  creditsShown,
  describeState,
  fractionText,
  percentDone,
} from './progress';
import type { Progress, Settings, SidebarState, View } from './types';

function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The sidebar has no #${id}`);
  return element;
}
const button = (id: string) => $(id) as HTMLButtonElement;
const input = (id: string) => $(id) as HTMLInputElement;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function setText(id: string, text: string): void {
  $(id).textContent = text;
}

/** A status line: its text, and ok/bad colouring. */
function setMessage(id: string, text: string, tone: 'ok' | 'bad' | '' = ''): void {
  const element = $(id);
  element.textContent = text;
  element.classList.toggle('ok', tone === 'ok');
  element.classList.toggle('bad', tone === 'bad');
}

function showError(text: string): void {
  setText('error-text', text);
  $('error').hidden = false;
}

function clearError(): void {
  $('error').hidden = true;
  setText('error-text', '');
}

// ---------------------------------------------------------------------------------------------------------------
// State

let account: SidebarState | null = null;
let progress: Progress = {
  state: 'idle',
  total: 0,
  processed: 0,
  found: 0,
  notFound: 0,
  failed: 0,
  skipped: 0,
  creditsUsed: 0,
  message: '',
};
let currentView: View = 'settings';
/** Bumped by Pause and Cancel: a drive loop of an older generation stops and discards its answer. */
let generation = 0;
let driving = false;
/** A Pause, Resume or Cancel call is on its way. */
let runActionBusy = false;

// ---------------------------------------------------------------------------------------------------------------
// Views

function showView(view: View, focusTab = false): void {
  currentView = view;
  for (const name of ['settings', 'progress'] as const) {
    const tab = button(`tab-${name}`);
    const selected = name === view;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`view-${name}`).hidden = !selected;
    if (selected && focusTab) tab.focus();
  }
  renderRunNotice();
  if (view === 'progress' && account && progress.state === 'running') void drive();
}

function setupTabs(): void {
  const tabs = [button('tab-settings'), button('tab-progress')];
  for (const tab of tabs) {
    tab.addEventListener('click', () => showView(tab.dataset.view as View));
    tab.addEventListener('keydown', (event) => {
      const index = tabs.indexOf(tab);
      let next = -1;
      if (event.key === 'ArrowRight') next = (index + 1) % tabs.length;
      else if (event.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length;
      else if (event.key === 'Home') next = 0;
      else if (event.key === 'End') next = tabs.length - 1;
      if (next < 0) return;
      event.preventDefault();
      showView(tabs[next].dataset.view as View, true);
    });
  }
  button('run-notice-open').addEventListener('click', () => showView('progress', true));
}

// ---------------------------------------------------------------------------------------------------------------
// Settings view

function renderAccount(): void {
  if (!account) return;
  const status = $('key-status');
  status.textContent = '';
  if (account.hasKey) {
    status.append('Saved key: ');
    const masked = document.createElement('span');
    masked.className = 'masked';
    masked.id = 'masked-key';
    masked.textContent = account.maskedKey;
    status.append(masked);
  } else {
    status.append('No API key saved yet.');
  }
  button('remove-key').disabled = !account.hasKey;
  button('check-key').disabled = !account.hasKey;
  const configError = $('config-error');
  configError.textContent = account.configError;
  configError.hidden = !account.configError;
  input('write-header').checked = account.settings.writeHeader;
  input('extra-fields').checked = account.settings.extraFields;
  input('recheck').checked = account.settings.recheck;
}

function renderRunNotice(): void {
  $('run-notice').hidden = !(canCancel(progress) && currentView === 'settings');
  setText(
    'run-notice-text',
    `A run is under way in this spreadsheet (${describeState(progress).label.toLowerCase()}).`,
  );
}

function acceptState(state: SidebarState): void {
  account = state;
  renderAccount();
  // A drive loop owns the progress while it runs; otherwise the server's latest word is shown.
  if (!driving && state.progress) setProgress(state.progress);
}

/** Runs one server call for a button: disables the buttons meanwhile, shows a failure as the error banner. */
async function withButtons<T>(ids: string[], work: () => Promise<T>): Promise<T | undefined> {
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

function setupSettings(): void {
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const field = input('api-key');
    setMessage('key-message', '');
    void withButtons(KEY_BUTTONS, async () => {
      const state = await call('saveApiKey', field.value);
      field.value = '';
      acceptState(state);
      setMessage('key-message', `Key saved: ${state.maskedKey}. Press Check to test it.`, 'ok');
    });
  });

  button('check-key').addEventListener('click', () => {
    setMessage('key-message', 'Checking the key…');
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

  button('remove-key').addEventListener('click', () => {
    setMessage('key-message', '');
    void withButtons(KEY_BUTTONS, async () => {
      acceptState(await call('removeApiKey'));
      input('api-key').value = '';
      setMessage('key-message', 'Key removed. Runs and checks need a key until you save one again.', 'ok');
    });
  });

  $('settings-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const settings: Settings = {
      writeHeader: input('write-header').checked,
      extraFields: input('extra-fields').checked,
      recheck: input('recheck').checked,
    };
    setMessage('settings-message', '');
    void withButtons(['save-settings'], async () => {
      acceptState(await call('saveSettings', settings));
      setMessage('settings-message', 'Settings saved. They apply to the next run you start.', 'ok');
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Progress view

function setProgress(next: Progress): void {
  progress = next;
  renderProgress();
}

function renderProgress(): void {
  const words = describeState(progress);
  const state = $('run-state');
  state.textContent = words.label;
  state.className = `state ${words.tone}`;
  const sheet = $('run-sheet');
  sheet.hidden = !progress.sheetName;
  sheet.textContent = progress.sheetName ? `Sheet: ${progress.sheetName}` : '';

  const percent = percentDone(progress);
  const bar = $('run-bar');
  bar.setAttribute('aria-valuenow', String(percent));
  bar.setAttribute('aria-valuetext', `${percent}% (${words.label})`);
  bar.classList.toggle('done', progress.state === 'done');
  bar.classList.toggle('halted', progress.state === 'paused' || progress.state === 'stopped');
  $('run-bar-fill').style.width = `${percent}%`;
  setText('run-fraction', fractionText(progress));
  setText('count-found', String(progress.found));
  setText('count-not-found', String(progress.notFound));
  setText('count-failed', String(progress.failed));
  setText('count-skipped', String(progress.skipped));
  setText('count-credits', creditsShown(progress));
  setText('run-message', progress.message);

  // Resume also restarts a running run whose drive loop gave up after failures.
  button('pause').disabled = runActionBusy || !canPause(progress);
  button('resume').disabled =
    runActionBusy || !(canResume(progress) || (progress.state === 'running' && !driving));
  button('cancel').disabled = runActionBusy || !canCancel(progress);
  renderRunNotice();
}

/**
 * While the run is running and the sidebar open, calls continueEnrichment() again and again (each call is one
 * Apps Script execution working for a time budget) and shows each answer, until the state is no longer running.
 */
async function drive(): Promise<void> {
  if (driving || progress.state !== 'running') return;
  const mine = ++generation;
  driving = true;
  renderProgress();
  let failures = 0;
  let idleRounds = 0;
  try {
    while (mine === generation && progress.state === 'running') {
      let next: Progress;
      try {
        next = await call('continueEnrichment');
      } catch (error) {
        if (mine !== generation) return;
        failures++;
        if (failures >= DRIVE_ATTEMPTS) {
          showError(`The run could not go on: ${failureMessage(error)} Press Resume to try again.`);
          return;
        }
        showError(`The run could not go on (${failureMessage(error)}). Trying again…`);
        await sleep(1000 * 2 ** (failures - 1));
        continue;
      }
      // A Pause or Cancel pressed meanwhile: its answer is the one shown.
      if (mine !== generation) return;
      if (failures > 0) clearError();
      failures = 0;
      const moved = next.processed !== progress.processed || next.state !== progress.state;
      setProgress(next);
      // No progress: another execution (the hourly trigger) holds the run; ask again a little later.
      idleRounds = moved ? 0 : idleRounds + 1;
      if (idleRounds > 0 && next.state === 'running')
        await sleep(Math.min(MAX_IDLE_WAIT_MS, 1000 * idleRounds));
    }
  } finally {
    if (mine === generation) {
      driving = false;
      renderProgress();
    }
  }
}

/** Pause and Cancel stop the drive loop first, so the server's answer to them is the last word shown. */
async function runAction(fn: 'pauseEnrichment' | 'resumeEnrichment' | 'cancelEnrichment'): Promise<void> {
  if (fn !== 'resumeEnrichment') {
    generation++;
    driving = false;
  }
  runActionBusy = true;
  renderProgress();
  clearError();
  try {
    const next = await call(fn);
    generation++;
    driving = false;
    setProgress(next);
  } catch (error) {
    showError(failureMessage(error));
  } finally {
    runActionBusy = false;
    renderProgress();
  }
  if (progress.state === 'running') void drive();
}

function setupProgress(): void {
  button('pause').addEventListener('click', () => void runAction('pauseEnrichment'));
  button('cancel').addEventListener('click', () => void runAction('cancelEnrichment'));
  button('resume').addEventListener('click', () => {
    // A running run without a loop (it gave up after failures): drive it again.
    if (progress.state === 'running') {
      clearError();
      void drive();
    } else void runAction('resumeEnrichment');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Start

async function start(): Promise<void> {
  setupTabs();
  setupSettings();
  setupProgress();
  button('error-close').addEventListener('click', clearError);
  renderProgress();
  const initial: View = document.body.dataset.view === 'progress' ? 'progress' : 'settings';
  showView(initial);
  try {
    acceptState(await call('getSidebarState'));
  } catch (error) {
    showError(`Could not load the add-on's state: ${failureMessage(error)}`);
  } finally {
    $('loading').hidden = true;
  }
  if (currentView === 'progress' && progress.state === 'running') void drive();
}

void start();
