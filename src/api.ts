/** What the sidebar receives from the server: shared by src/settings/account.ts and the sidebar's own code. Pure. */

import type { Progress } from './bulk/job';
import type { FormulaCapState } from './formula/dailyLimitPolicy';

export interface Settings {
  /** Write the output column titles in the header row. */
  writeHeader: boolean;
  /** Add Account type and Name columns. */
  extraFields: boolean;
  /** A run that would spend more credits than this asks to confirm first. */
  confirmAbove: number;
}

export interface SidebarState {
  hasKey: boolean;
  /** e.g. ••••••••3f9a: the only form of the key that leaves the server. */
  maskedKey: string;
  settings: Settings;
  progress: Progress;
  configError: string;
  /** The formulas' spending cap in this spreadsheet (this user's setting; the owner's governs formulas). */
  formulas: FormulaCapState;
}

export interface KeyCheckResult {
  ok: boolean;
  message: string;
}
