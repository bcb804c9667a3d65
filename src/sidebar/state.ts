/** The sidebar's state shared by its views. Each view keeps what only it uses to itself. */
import { emptyRunCounts } from '../core/runWords';
import type { Progress, RunHistory, SidebarState, View } from './types';

export const ui: {
  account: SidebarState | null;
  progress: Progress;
  currentView: View;
  /** A drive loop is running (src/sidebar/drive.ts). */
  driving: boolean;
  /** A Pause, Resume or Cancel call is on its way. */
  runActionBusy: boolean;
  history: RunHistory | null;
} = {
  account: null,
  progress: { state: 'idle', message: '', ...emptyRunCounts() },
  currentView: 'settings',
  driving: false,
  runActionBusy: false,
  history: null,
};
