/**
 * The server functions the sidebar calls and the shapes they return. The shapes come from pure modules of
 * src/core (no Apps Script global, so the sidebar's DOM-typed build can read them). src/main.ts uses Apps Script
 * services, so it cannot be imported here: src/sidebarApi.check.ts fails the type check when this list and the
 * entry points drift.
 */
import type { Progress, RunReason } from '../core/job';
import type { KeyCheckResult, Settings, SidebarState } from '../core/sidebarState';

export type { KeyCheckResult, Progress, RunReason, Settings, SidebarState };

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
}

export type View = 'settings' | 'progress';
