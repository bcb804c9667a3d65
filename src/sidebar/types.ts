/**
 * The server functions the sidebar calls and the shapes they return, mirrored from src/main.ts,
 * src/features/account.ts and src/core/job.ts (the sidebar is type-checked with the DOM library, apart from the
 * Apps Script sources, so it cannot import them).
 */

export type JobState = 'idle' | 'running' | 'paused' | 'stopped' | 'cancelled' | 'done';

export interface Progress {
  state: JobState;
  total: number;
  processed: number;
  found: number;
  notFound: number;
  failed: number;
  skipped: number;
  creditsUsed: number;
  message: string;
  sheetName?: string;
  range?: string;
}

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
