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

/** One payer's spend in the credits log: a person's runs, or the formulas. */
export interface CreditsSource {
  source: 'run' | 'formulas';
  /** The person (their e-mail address when Apps Script gave it), or whose key the formulas use. */
  payer: string;
  /** The viewer's own runs. */
  mine: boolean;
  /** Credits charged for answers received (found, no address, unprocessable). */
  credits: number;
  /** Answers lost to connection failures (each may have been charged). */
  lost: number;
}

/** One run in the credits log. */
export interface CreditsRun {
  runId: string;
  /** The run's range ('Sheet1'!A2:A100). */
  range: string;
  payer: string;
  mine: boolean;
  /** When its last charge was logged (epoch ms). */
  lastAt: number;
  credits: number;
  found: number;
  lost: number;
}

/** What the credits log says: the sidebar's Credits tab, and a run's plan (the share found). */
export interface CreditsSummary {
  /** The spreadsheet has a credits log (false: nothing was spent since the add-on started logging). */
  hasLog: boolean;
  /** Credits charged for answers received: since midnight (UTC), in the last 7 and 30 days, in all. */
  today: number;
  last7: number;
  last30: number;
  total: number;
  /** Answers lost to connection failures (maybe charged), apart: the same periods. */
  lostToday: number;
  lost7: number;
  lost30: number;
  lostTotal: number;
  /** Of `total` lookups answered, how many found an address. */
  found: number;
  sources: CreditsSource[];
  /** The last runs, newest first. */
  runs: CreditsRun[];
  /** Rows of the log that are not charges (edited by hand): left out. */
  unreadable: number;
}

/** Export of the credits log into a visible sheet, one execution at a time. */
export interface CreditsExportRequest {
  /** Absent on the first call; then as the last answer gave it. */
  sheetName?: string;
  /** The log's next row to copy (1-based, below the header), the rows to copy in all, and the tallies so far. */
  next?: number;
  last?: number;
  written?: number;
  skipped?: number;
}

export interface CreditsExport extends Required<CreditsExportRequest> {
  done: boolean;
  /** What to tell the person (progress, or the end: the sheet, the rows, what was skipped). */
  message: string;
}
