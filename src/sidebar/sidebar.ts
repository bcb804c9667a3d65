/**
 * The sidebar page: tabs.ts, settings.ts, plan.ts, progressView.ts and summary.ts (the views), drive.ts (the drive
 * and watch loops, Pause, Resume, Cancel), runControls.ts; state.ts holds what they share, dom.ts the DOM helpers.
 */
import { call } from './client';
import { setupCredits } from './credits';
import { $, clearError, onClick, orShowError } from './dom';
import { follow } from './drive';
import { requestPlan, setupPlan } from './plan';
import { renderProgress } from './progressView';
import { setupDataRemoval } from './removeData';
import { setupProgress } from './runControls';
import { acceptState, setupSettings } from './settings';
import { ui } from './state';
import { setupTabs, showView } from './tabs';
import { setupWatch } from './watch';

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
