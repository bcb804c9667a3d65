/**
 * The server functions the sidebar calls and the shapes they return. The shapes are those of src/api.ts (types
 * only, so the sidebar's DOM-typed build can read them). src/main.ts uses Apps Script services, so it cannot be
 * imported here: src/sidebarApi.check.ts fails the type check when this list and the entry points drift.
 */

import type {
  CreditsExport,
  CreditsExportRequest,
  CreditsSummary,
  FormulaCapState,
  FormulaPolicy,
  KeyCheckResult,
  Progress,
  RunHistory,
  RunPlan,
  RunRequest,
  RunStart,
  Settings,
  SidebarState,
  WatchRequest,
  WatchStart,
  WatchView,
} from '../api';

export type * from '../api';

/** The entry points of src/main.ts that the sidebar calls, by name. */
export interface ServerApi {
  getSidebarState(): SidebarState;
  saveApiKey(key: string): SidebarState;
  removeApiKey(): SidebarState;
  checkApiKey(): KeyCheckResult;
  saveSettings(settings: Settings): SidebarState;
  getEnrichmentProgress(): Progress;
  continueEnrichment(): Progress;
  pauseEnrichment(): Progress;
  resumeEnrichment(): Progress;
  cancelEnrichment(): Progress;
  getRunPlan(request: RunRequest): RunPlan;
  startRun(request: RunRequest): RunStart;
  getRunHistory(): RunHistory;
  selectFirstFailedRow(): string;
  getFormulaCap(): FormulaCapState;
  saveFormulaCap(policy: FormulaPolicy): FormulaCapState;
  getCreditsSummary(): CreditsSummary;
  exportCreditsLog(request: CreditsExportRequest): CreditsExport;
  getWatchState(): WatchView;
  startWatch(request: WatchRequest): WatchStart;
  stopWatch(): WatchView;
}

/** The sidebar's tabs. The page may open on `plan` or `retry`: the Progress tab, showing a run's plan first. */
export type View = 'settings' | 'progress' | 'credits' | 'watch';
