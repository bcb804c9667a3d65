/** The sidebar's tabs (Settings, Progress, Credits, Watch) and switching between them. */
import { loadCredits } from './credits';
import { $, button, onClick } from './dom';
import { follow } from './drive';
import { refreshProgress, renderRunNotice } from './progressView';
import { refreshSingleCells } from './settings';
import { ui } from './state';
import type { View } from './types';
import { loadWatch } from './watch';

export function showView(view: View, focusTab = false): void {
  ui.currentView = view;
  for (const name of ['settings', 'progress', 'credits', 'watch'] as const) {
    const tab = button(`tab-${name}`);
    const selected = name === view;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`view-${name}`).hidden = !selected;
    if (selected && focusTab) tab.focus();
  }
  renderRunNotice();
  if (ui.account) follow();
  // Never stale: coming back to the tab asks the server for the run as it is now.
  if (view === 'progress' && ui.account && !ui.driving) void refreshProgress();
  if (view === 'settings') void refreshSingleCells();
  if (view === 'credits') void loadCredits();
  if (view === 'watch') void loadWatch();
}

export function setupTabs(): void {
  const tabs = [button('tab-settings'), button('tab-progress'), button('tab-credits'), button('tab-watch')];
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
  onClick('run-notice-open', () => showView('progress', true));
}
