/**
 * The sidebar: the API key (only ever received masked), the settings and the formulas' limit; and the Progress
 * tab: a run's plan and price before it starts, its progress (the sidebar drives the run while it is open, calling
 * continueEnrichment() again and again), what it did when it ends, and the last few runs.
 * Every text from the server goes into the page through textContent, never as HTML.
 * This file starts the page; the views: tabs.ts, settings.ts (key, settings, formulas' limit), plan.ts,
 * progressView.ts and summary.ts (a run and the last runs), drive.ts (the drive and watch loops, Pause, Resume,
 * Cancel), runControls.ts (the Progress tab's buttons); state.ts holds what they share, dom.ts the DOM helpers.
 */
import { call, failureMessage } from './client';
import { setupCredits } from './credits';
import { $, button, clearError, showError } from './dom';
import { follow } from './drive';
import { requestPlan, setupPlan } from './plan';
import { renderProgress } from './progressView';
import { setupDataRemoval } from './removeData';
import { setupProgress } from './runControls';
import { acceptState, setupSettings } from './settings';
import { ui } from './state';
import { setupTabs, showView } from './tabs';
import type { View } from './types';
import { setupWatch } from './watch';

async function start(): Promise<void> {
  setupTabs();
  setupSettings();
  setupDataRemoval();
  setupPlan();
  setupProgress();
  setupCredits();
  setupWatch();
  button('error-close').addEventListener('click', clearError);
  renderProgress();
  const opened = document.body.dataset.view ?? 'settings';
  const initial: View = opened === 'settings' ? 'settings' : opened === 'watch' ? 'watch' : 'progress';
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
  } else if (ui.account) follow();
}

void start();
