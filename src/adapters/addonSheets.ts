/** The add-on's own sheets of the active spreadsheet, by name: found and deleted (Spreadsheet.deleteSheet). */
import type { AddonSheets } from '../platform/platform';
import { activeSpreadsheet } from './spreadsheet';

export const addonSheets: AddonSheets = {
  present(names) {
    const ss = activeSpreadsheet();
    return names.filter((name) => ss.getSheetByName(name) !== null);
  },
  remove(names) {
    const ss = activeSpreadsheet();
    const removed: string[] = [];
    for (const name of names) {
      const sheet = ss.getSheetByName(name);
      if (!sheet) continue;
      ss.deleteSheet(sheet);
      removed.push(name);
    }
    return removed;
  },
};
