/**
 * The server functions the sidebar calls and the shapes they return. The job's shapes come from src/core/job.ts
 * (pure, no Apps Script global); the rest mirror src/main.ts and src/features/account.ts, which use Apps Script
 * services the sidebar's DOM-typed build cannot see.
 */
import type { JobState, Progress } from '../core/job';

export type { JobState, Progress };

export interface Settings {
  writeHeader: boolean;
  extraFields: boolean;
  recheck: boolean;
}

export interface SidebarState {
  hasKey: boolean;
  /** e.g. ••••••••3f9a: the only form of the key the sidebar ever receives. */
  maskedKey: string;
  settings: Settings;
  progress: Progress;
  configError: string;
}

export interface KeyCheckResult {
  ok: boolean;
  message: string;
}

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
