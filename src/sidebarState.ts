/**
 * The sidebar's state, assembled at the entry layer (src/main.ts) from the features: the person's key and settings
 * (src/settings/), the bulk run's progress and the formulas' daily limit. So no feature imports another to show it.
 */

import type { SidebarState } from './api';
import { getEnrichmentProgress } from './bulk/controls';
import { readFormulaCapState } from './formula/dailyLimit';
import { singleCellColumnState } from './formula/refresh';
import type { Platform } from './platform/platform';
import { accountState } from './settings/account';

export function sidebarState(platform: Platform): SidebarState {
  // Opening the sidebar may write the spreadsheet: what formulas paid for moves into the results sheet.
  platform.foldAnswers();
  return {
    ...accountState(platform),
    progress: getEnrichmentProgress(platform),
    formulas: readFormulaCapState(platform),
    singleCells: singleCellColumnState(platform),
  };
}
