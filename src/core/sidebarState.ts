/** What the sidebar receives from the server: shared by src/features/account.ts and the sidebar's own code. Pure. */
import type { Progress } from './job';

export interface Settings {
  /** Write the output column titles in the header row. */
  writeHeader: boolean;
  /** Add Account type and Name columns. */
  extraFields: boolean;
  /** Look up rows that already hold a result again (costs credits). */
  recheck: boolean;
}

export interface SidebarState {
  hasKey: boolean;
  /** e.g. ••••••••3f9a: the only form of the key that leaves the server. */
  maskedKey: string;
  settings: Settings;
  progress: Progress;
  configError: string;
}

export interface KeyCheckResult {
  ok: boolean;
  message: string;
}
