/** The sidebar's state shared by its views. Each view keeps what only it uses to itself. */
import { emptyRunCounts } from '../core/runWords';
import type { Progress, RunHistory, SidebarState, View } from './types';

export const ui: {
  account: SidebarState | null;
  progress: Progress;
  currentView: View;
  driving: boolean;
  runActionBusy: boolean;
  starting: boolean;
  /** Pause or Cancel pressed before the run's job existed: sent again as soon as Start has answered. */
  pendingAction: 'pauseEnrichment' | 'cancelEnrichment' | null;
  history: RunHistory | null;
  /** The ended run's figures changed since its summary was read: the box waits for it to be read again. */
  summaryStale: boolean;
} = {
  account: null,
  progress: { state: 'idle', message: '', ...emptyRunCounts() },
  currentView: 'settings',
  driving: false,
  runActionBusy: false,
  starting: false,
  pendingAction: null,
  history: null,
  summaryStale: false,
};
