/**
 * The sidebar: the API key (only ever received masked), the settings and the formulas' limit; and the Progress
 * tab: a run's plan and price before it starts, its progress (the sidebar drives the run while it is open, calling
 * continueEnrichment() again and again), what it did when it ends, and the last few runs.
 * Every text from the server goes into the page through textContent, never as HTML.
 */
import { DRIVE_ATTEMPTS, MAX_IDLE_WAIT_MS, WATCH_INTERVAL_MS } from '../core/limits';
import { call, failureMessage } from './client';
import { $, button, clearError, input, setMessage, setText, showError, sleep, wholeNumber } from './dom';
import {
  canCancel,
  canPause,
  canResume,
  creditsShown,
  describeState,
  driverNotice,
  fractionText,
  isUnderWay,
  ownerNotice,
  percentDone,
} from './progress';
import type {
  PlacementKind,
  Progress,
  RunHistory,
  RunPlan,
  RunRequest,
  Settings,
  SidebarState,
  View,
} from './types';
import {
  confirmText,
  durationText,
  failedRows,
  formulaUseText,
  historyLine,
  planTitle,
  priceText,
  runPlanText,
  startLabel,
  summaryTitle,
  whereText,
} from './words';

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
/** Someone else's run is being watched (its progress asked for now and then). */
let watching = false;
/** A Pause, Resume or Cancel call is on its way. */
let runActionBusy = false;
/** The plan shown before a run starts, and the request it answers. */
let plan: RunPlan | null = null;
let planRequest: RunRequest = {};
let planBusy = false;
let history: RunHistory | null = null;

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
  if (account) follow();
  // Never stale: coming back to the tab asks the server for the run as it is now.
  if (view === 'progress' && account && !driving) void refreshProgress();
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
    status.append('Saved API key: ');
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
  if (!account.hasKey) $('remove-confirm').hidden = true;
  const configError = $('config-error');
  configError.textContent = account.configError;
  configError.hidden = !account.configError;
  setText('formulas-used', formulaUseText(account.formulas));
}

/** The form fields follow the server's settings (after loading or saving, not while the user types). */
function fillForms(): void {
  if (!account) return;
  input('write-header').checked = account.settings.writeHeader;
  input('extra-fields').checked = account.settings.extraFields;
  input('confirm-above').value = String(account.settings.confirmAbove);
  input('formulas-enabled').checked = account.formulas.policy.enabled;
  input('formulas-cap').value = String(account.formulas.policy.dailyCap);
}

function renderRunNotice(): void {
  $('run-notice').hidden = !(isUnderWay(progress) && currentView === 'settings');
  setText(
    'run-notice-text',
    `A run is under way in this spreadsheet (${describeState(progress).label.toLowerCase()}).`,
  );
}

function acceptState(state: SidebarState, forms = false): void {
  account = state;
  renderAccount();
  if (forms) fillForms();
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
      setMessage('key-message', `API key saved: ${state.maskedKey}. Press Check to test it.`, 'ok');
    });
  });

  button('check-key').addEventListener('click', () => {
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

  // Remove asks first: the key is gone for every run and check until saved again.
  button('remove-key').addEventListener('click', () => {
    setMessage('key-message', '');
    $('remove-confirm').hidden = false;
    button('remove-no').focus();
  });
  button('remove-no').addEventListener('click', () => {
    $('remove-confirm').hidden = true;
    button('remove-key').focus();
  });
  button('remove-yes').addEventListener('click', () => {
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

  $('settings-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setMessage('settings-message', '');
    const confirmAbove = wholeNumber('confirm-above');
    if (confirmAbove === undefined) {
      setMessage('settings-message', 'Type a whole number of credits (0 asks before every paid run).', 'bad');
      return;
    }
    const settings: Settings = {
      writeHeader: input('write-header').checked,
      extraFields: input('extra-fields').checked,
      confirmAbove,
    };
    void withButtons(['save-settings'], async () => {
      acceptState(await call('saveSettings', settings), true);
      setMessage('settings-message', 'Settings saved. They apply to the next run you start.', 'ok');
    });
  });

  $('formulas-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setMessage('formulas-message', '');
    const dailyCap = wholeNumber('formulas-cap');
    if (dailyCap === undefined) {
      setMessage('formulas-message', 'Type a whole number of credits per day.', 'bad');
      return;
    }
    const enabled = input('formulas-enabled').checked;
    void withButtons(['save-formulas'], async () => {
      const formulas = await call('saveFormulaCap', { enabled, dailyCap });
      if (account) account = { ...account, formulas };
      fillForms();
      setMessage('formulas-message', 'Formula limit saved for this spreadsheet.', 'ok');
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The plan, before a run starts

/** Asks the server for the plan of `request` and shows it; `autoStart`: start at once when it needs nothing. */
async function requestPlan(request: RunRequest, autoStart: boolean): Promise<void> {
  if (planBusy) return;
  planBusy = true;
  planRequest = request;
  clearError();
  renderPlanButtons();
  try {
    const next = await call('getRunPlan', request);
    showPlan(next);
    // A plan that needs nothing from the user starts at once; one with nothing to do waits (re-check is offered).
    const work = next.lookupRows + next.notProfiles > 0;
    if (autoStart && work && !next.refusal && !next.needsChoice && !next.needsConfirm) await startPlanned();
  } catch (error) {
    showError(failureMessage(error));
  } finally {
    planBusy = false;
    renderPlanButtons();
  }
}

function showPlan(next: RunPlan): void {
  plan = next;
  if (next.needsChoice && !next.placements.some((choice) => choice.kind === planRequest.placement)) {
    planRequest = { ...planRequest, placement: undefined };
  }
  $('plan').hidden = false;
  $('run').hidden = true;
  if (currentView !== 'progress') showView('progress');
  setText('plan-title', planTitle(next));
  setText('plan-where', whereText(next));
  const note = $('plan-note');
  note.hidden = !next.note;
  note.textContent = next.note ?? '';
  const refusal = $('plan-refusal');
  refusal.hidden = !next.refusal;
  refusal.textContent = next.refusal ?? '';
  setText('plan-rows', String(next.rows));
  setText('plan-new', String(next.newProfiles));
  setText('plan-known', String(next.knownProfiles));
  setText('plan-invalid', String(next.notProfiles));
  setText('plan-blanks', String(next.blanks));
  setText('plan-done', String(next.alreadyDone));
  setText('plan-price', priceText(next));
  renderPlacements(next);
  const chosen = next.needsChoice
    ? next.placements.find((c) => c.kind === planRequest.placement)
    : next.placement;
  // With a choice, each option says what it moves; otherwise the one placement does here.
  const effect = $('plan-effect');
  effect.hidden = next.needsChoice || !!next.refusal;
  effect.textContent = chosen ? chosen.effect : '';
  $('plan-recheck-row').hidden = next.mode !== 'all' || !!next.refusal;
  input('plan-recheck').checked = next.recheck;
  $('plan-unprocessable-row').hidden = next.mode !== 'retry' || next.unprocessableRows === 0;
  input('plan-unprocessable').checked = (next.redo ?? []).length > 1;
  const confirm = $('plan-confirm');
  confirm.hidden = !next.needsConfirm || !!next.refusal;
  confirm.textContent = confirmText(next);
  setText('plan-start', startLabel(next));
  renderPlanButtons();
}

/** The placements to choose from, as radio buttons with what each moves. */
function renderPlacements(next: RunPlan): void {
  const box = $('plan-placements');
  const list = $('plan-placement-list');
  list.textContent = '';
  box.hidden = !next.needsChoice || !!next.refusal;
  if (box.hidden) return;
  for (const choice of next.placements) {
    const row = document.createElement('div');
    row.className = 'choice';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'placement';
    radio.id = `placement-${choice.kind}`;
    radio.value = choice.kind;
    radio.checked = planRequest.placement === choice.kind;
    radio.addEventListener('change', () => {
      void requestPlan({ ...planRequest, placement: choice.kind as PlacementKind }, false);
    });
    const label = document.createElement('label');
    label.htmlFor = radio.id;
    label.textContent =
      choice.kind === 'insert'
        ? `Insert columns (${choice.columns})`
        : `Use ${choice.columns}, further right`;
    const effect = document.createElement('span');
    effect.className = 'gray';
    effect.textContent = choice.effect;
    label.append(effect);
    row.append(radio, label);
    list.append(row);
  }
}

function renderPlanButtons(): void {
  const ready = !!plan && !plan.refusal && (!plan.needsChoice || !!planRequest.placement);
  button('plan-start').disabled = planBusy || !ready;
  button('plan-cancel').disabled = planBusy;
  input('plan-recheck').disabled = planBusy;
  input('plan-unprocessable').disabled = planBusy;
}

function hidePlan(): void {
  plan = null;
  $('plan').hidden = true;
  $('run').hidden = false;
}

/** Starts the planned run; the server plans again and starts only if the price is still the one shown. */
async function startPlanned(): Promise<void> {
  if (!plan) return;
  const result = await call('startRun', { ...planRequest, confirmedCredits: plan.credits });
  if (result.started) {
    hidePlan();
    setProgress(result.progress);
    history = null;
    renderSummary();
    if (progress.state === 'running') follow();
    else void loadHistory();
  } else if (result.plan) {
    showPlan(result.plan);
    showError('The sheet changed since the plan was made: check the new plan, then start again.');
  } else {
    hidePlan();
    setProgress(result.progress);
    showError(result.progress.message);
  }
}

function setupPlan(): void {
  button('plan-start').addEventListener('click', () => {
    if (planBusy) return;
    planBusy = true;
    renderPlanButtons();
    clearError();
    startPlanned()
      .catch((error) => showError(failureMessage(error)))
      .finally(() => {
        planBusy = false;
        renderPlanButtons();
      });
  });
  button('plan-cancel').addEventListener('click', () => {
    hidePlan();
    button('new-run').focus();
  });
  input('plan-recheck').addEventListener('change', () => {
    void requestPlan({ ...planRequest, recheck: input('plan-recheck').checked }, false);
  });
  input('plan-unprocessable').addEventListener('change', () => {
    void requestPlan({ ...planRequest, includeUnprocessable: input('plan-unprocessable').checked }, false);
  });
  button('new-run').addEventListener('click', () => {
    void requestPlan({ source: 'selection', mode: 'all' }, true);
  });
  button('retry-failed').addEventListener('click', () => {
    void requestPlan({ source: 'lastRun', mode: 'retry' }, false);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Progress view

function setProgress(next: Progress): void {
  const ended = next.state !== progress.state && (next.state === 'done' || next.state === 'cancelled');
  progress = next;
  renderProgress();
  if (ended || (history === null && next.runId && (next.state === 'done' || next.state === 'cancelled')))
    void loadHistory();
}

async function refreshProgress(): Promise<void> {
  try {
    const next = await call('getEnrichmentProgress');
    if (!driving) setProgress(next);
  } catch (error) {
    showError(failureMessage(error));
  }
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
  const runPlan = $('run-plan');
  runPlan.hidden = !progress.plan;
  runPlan.textContent = progress.plan ? runPlanText(progress.plan) : '';
  setText('count-found', String(progress.found));
  setText('count-not-found', String(progress.notFound));
  setText('count-failed', String(progress.failed));
  setText('count-skipped', String(progress.skipped));
  setText('count-credits', creditsShown(progress));
  setText('run-message', progress.message);
  const notice = ownerNotice(progress) || driverNotice(progress);
  $('run-owner').hidden = notice === '';
  setText('run-owner', notice);
  // The missing-key message points at the Settings tab (the server's message cannot: it has no sidebar).
  $('run-key-hint').hidden = !(
    (progress.reason === 'no_key' || progress.reason === 'key_rejected') &&
    progress.state === 'stopped' &&
    !progress.readOnly
  );

  // Resume also restarts a running run whose drive loop gave up after failures.
  button('pause').disabled = runActionBusy || !canPause(progress);
  button('resume').disabled =
    runActionBusy ||
    !(canResume(progress) || (progress.state === 'running' && !progress.readOnly && !driving));
  button('cancel').disabled = runActionBusy || !canCancel(progress);
  if (!canCancel(progress)) $('cancel-confirm').hidden = true;
  button('new-run').disabled = isUnderWay(progress);
  renderRunNotice();
  renderSummary();
}

async function loadHistory(): Promise<void> {
  try {
    history = await call('getRunHistory');
  } catch (error) {
    showError(failureMessage(error));
    return;
  }
  renderSummary();
}

/** The last run's summary when it has ended (counters that do not overlap), and the recent runs. */
function renderSummary(): void {
  const last = history?.last;
  const shown =
    !!last && last.id === progress.runId && (progress.state === 'done' || progress.state === 'cancelled');
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
  const entries = history?.history ?? [];
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

/**
 * While the run is running and the sidebar open, calls continueEnrichment() again and again (each call is one
 * Apps Script execution working for a time budget) and shows each answer, until the state is no longer running.
 */
async function drive(): Promise<void> {
  if (driving || progress.state !== 'running' || progress.readOnly) return;
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
        if (mine !== generation) return refreshAfterActions();
        failures++;
        if (failures >= DRIVE_ATTEMPTS) {
          showError(`The run could not go on: ${failureMessage(error)} Press Resume to try again.`);
          return;
        }
        showError(`The run could not go on (${failureMessage(error)}). Trying again…`);
        await sleep(1000 * 2 ** (failures - 1));
        continue;
      }
      // A Pause or Cancel pressed meanwhile: its answer is shown, then the sheet as this slice left it.
      if (mine !== generation) return refreshAfterActions();
      if (failures > 0) clearError();
      failures = 0;
      const moved = next.processed !== progress.processed || next.state !== progress.state;
      setProgress(next);
      // No progress: another execution (the starter's other sidebar) holds the run; ask again a little later.
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

/**
 * Someone else's run: shows its progress now and then while it is under way, and never drives it (only its
 * starter's executions do). Stops when the run ends or becomes this user's to drive.
 */
async function watch(): Promise<void> {
  if (watching || driving) return;
  watching = true;
  try {
    while (progress.readOnly && isUnderWay(progress)) {
      await sleep(WATCH_INTERVAL_MS);
      try {
        if (!driving) setProgress(await call('getEnrichmentProgress'));
      } catch {
        // A failed look is tried again at the next interval; the last progress stays shown.
      }
    }
  } finally {
    watching = false;
  }
  follow();
}

/**
 * The sidebar open (any view) drives its user's running run: closing it leaves the run waiting, opening it again
 * resumes it. Someone else's run is only watched.
 */
function follow(): void {
  if (progress.readOnly) {
    if (isUnderWay(progress)) void watch();
  } else if (progress.state === 'running') void drive();
}

/**
 * A slice that was under way when Pause or Cancel was pressed wrote its last rows after the server answered them:
 * once both are back, the progress is asked for again, so the figures match the sheet.
 */
let refreshPending = false;
function refreshAfterActions(): void {
  if (runActionBusy) refreshPending = true;
  else if (!driving) void refreshProgress();
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
  follow();
  if (!driving && refreshPending) {
    refreshPending = false;
    void refreshProgress();
  }
}

function setupProgress(): void {
  button('pause').addEventListener('click', () => void runAction('pauseEnrichment'));
  // Cancel asks first; the run goes on meanwhile.
  button('cancel').addEventListener('click', () => {
    $('cancel-confirm').hidden = false;
    button('cancel-no').focus();
  });
  button('cancel-no').addEventListener('click', () => {
    $('cancel-confirm').hidden = true;
    button('cancel').focus();
  });
  button('cancel-yes').addEventListener('click', () => {
    $('cancel-confirm').hidden = true;
    void runAction('cancelEnrichment');
  });
  button('resume').addEventListener('click', () => {
    // A running run without a loop (it gave up after failures): drive it again.
    if (progress.state === 'running') {
      clearError();
      void drive();
    } else void runAction('resumeEnrichment');
  });
  button('run-key-open').addEventListener('click', () => {
    showView('settings', true);
    input('api-key').focus();
  });
  button('select-failed').addEventListener('click', () => {
    setMessage('summary-message', '');
    void withButtons(['select-failed'], async () => {
      setMessage('summary-message', await call('selectFirstFailedRow'));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Start

async function start(): Promise<void> {
  setupTabs();
  setupSettings();
  setupPlan();
  setupProgress();
  button('error-close').addEventListener('click', clearError);
  renderProgress();
  const opened = document.body.dataset.view ?? 'settings';
  const initial: View = opened === 'settings' ? 'settings' : 'progress';
  showView(initial);
  try {
    acceptState(await call('getSidebarState'), true);
  } catch (error) {
    showError(`Could not load the add-on's state: ${failureMessage(error)}`);
  } finally {
    $('loading').hidden = true;
  }
  // Opened by the menu on a plan (a choice, a price to confirm, or a refusal): show it; nothing has changed yet.
  if (opened === 'plan' || opened === 'retry') {
    await requestPlan({ source: 'selection', mode: opened === 'retry' ? 'retry' : 'all' }, false);
  } else if (account) follow();
}

void start();
