/**
 * The sidebar page: tabs.ts, settings.ts, plan.ts, progressView.ts (the views), drive.ts (the drive and watch loops,
 * Pause, Resume, Cancel), the Progress tab's buttons; state.ts holds what they share, dom.ts the DOM helpers.
 */
import { setupCredits } from './credits';
import { $, clearError, confirmBox, input, onClick, orShowError, setMessage, withButtons } from './dom';
import { drive, follow, pauseOnClose, runAction } from './drive';
import { requestPlan, setupPlan } from './plan';
import { renderProgress } from './progressView';
import { setupDataRemoval } from './removeData';
import { acceptState, setupSettings } from './settings';
import { ui } from './state';
import { setupTabs, showView } from './tabs';
import { call } from './types';
import { setupWatch } from './watch';

/** The Progress tab's buttons: Pause, Resume, Cancel (asked first), the key hint and Select failed rows. */
function setupProgress(): void {
  pauseOnClose();
  onClick('pause', () => void runAction('pauseEnrichment'));
  // Cancel asks first; the run goes on meanwhile.
  onClick('cancel', confirmBox('cancel-confirm', 'cancel', 'cancel-no'));
  onClick('cancel-yes', () => {
    $('cancel-confirm').hidden = true;
    void runAction('cancelEnrichment');
  });
  onClick('resume', () => {
    // A running run without a loop (it gave up after failures): drive it again.
    if (ui.progress.state === 'running') {
      clearError();
      void drive();
    } else void runAction('resumeEnrichment');
  });
  onClick('run-key-open', () => {
    showView('settings', true);
    input('api-key').focus();
  });
  onClick('select-failed', () => {
    setMessage('summary-message', '');
    void withButtons(['select-failed'], async () =>
      setMessage('summary-message', await call('selectFirstFailedRow')),
    );
  });
}

async function start(): Promise<void> {
  setupTabs();
  setupSettings();
  setupDataRemoval();
  setupPlan();
  setupProgress();
  setupCredits();
  setupWatch();
  onClick('error-close', clearError);
  renderProgress();
  const opened = document.body.dataset.view ?? 'settings';
  showView(opened === 'settings' || opened === 'watch' ? opened : 'progress');
  const state = await orShowError(call('getSidebarState'), "Could not load the add-on's state");
  if (state) acceptState(state, true);
  $('loading').hidden = true;
  // Opened by the menu on a plan (a choice, a price to confirm, or a refusal): nothing has changed yet.
  if (opened === 'plan' || opened === 'retry')
    await requestPlan({ source: 'selection', mode: opened === 'retry' ? 'retry' : 'all' }, false);
  else if (ui.account) follow();
}

void start();
