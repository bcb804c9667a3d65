/** The sidebar's state, assembled at the entry layer from the features: no feature imports another to show it. */

import type { SidebarState } from './api';
import { getEnrichmentProgress } from './bulk/controls';
import type { Platform } from './core/ports';
import { readFormulaCapState } from './formula/dailyLimit';
import { singleCellColumnState } from './formula/refresh';
import { accountState } from './settings/account';
import { foldFormulas } from './store/store';

export function sidebarState(platform: Platform): SidebarState {
  // Opening the sidebar may write the spreadsheet: what formulas paid for moves into the results sheet.
  foldFormulas(platform);
  return {
    ...accountState(platform),
    progress: getEnrichmentProgress(platform),
    formulas: readFormulaCapState(platform),
    singleCells: singleCellColumnState(platform),
  };
}
