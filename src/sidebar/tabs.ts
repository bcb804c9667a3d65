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
  for (const [index, tab] of tabs.entries()) {
    tab.addEventListener('click', () => showView(tab.dataset.view as View));
    tab.addEventListener('keydown', (event) => {
      const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: -1 };
      const next = moves[event.key];
      if (next === undefined) return;
      event.preventDefault();
      showView(tabs[(next + tabs.length) % tabs.length].dataset.view as View, true);
    });
  }
  onClick('run-notice-open', () => showView('progress', true));
}
