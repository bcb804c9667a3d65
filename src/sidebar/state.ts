/** The sidebar's state shared by its views. Each view keeps what only it uses to itself. */
import { emptyRunCounts } from '../core/runWords';
import type { Progress, RunHistory, RunRequest, SidebarState, View } from './types';

/** Pause and Cancel, the server functions that halt a run. */
export type Halt = 'pauseEnrichment' | 'cancelEnrichment';

export const ui = {
  account: null as SidebarState | null,
  progress: { state: 'idle', message: '', ...emptyRunCounts() } as Progress,
  currentView: 'settings' as View,
  driving: false,
  runActionBusy: false,
  starting: false,
  /** Pause or Cancel pressed before the run's job existed: sent again as soon as Start has answered. */
  pendingAction: null as Halt | null,
  history: null as RunHistory | null,
  /** The ended run's figures changed since its summary was read: the box waits for it to be read again. */
  summaryStale: false,
  /** The trial under way or last ended in this sidebar, and the request of the whole run. */
  trial: null as { runId: string; rest: RunRequest } | null,
};
