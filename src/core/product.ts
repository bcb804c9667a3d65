/** The add-on's name as users see it, and where its settings and menu items are. Pure. */
export const ADDON_NAME = 'Profile Email Finder';
export const SETTINGS_PATH = `Extensions › ${ADDON_NAME} › Settings & API key`;
/** Where a person gets a valid key (the service's dashboard). */
export const KEY_SOURCE = "Account › API settings in the service's dashboard";
/** The menu item of the bulk run (src/main.ts onOpen). */
export const BULK_RUN_ITEM = 'Find e-mails for the selected column';
export const BULK_RUN_PATH = `Extensions › ${ADDON_NAME} › ${BULK_RUN_ITEM}`;
/**
 * The menu item that enters unfinished =FINDEMAIL formulas again: Sheets has no "recalculate" for custom functions
 * (a formula runs again only when its text or an input changes), so every cell message that needs a new
 * evaluation names this item.
 */
export const REFRESH_ITEM = 'Refresh =FINDEMAIL cells';
export const REFRESH_PATH = `Extensions › ${ADDON_NAME} › ${REFRESH_ITEM}`;
/** The menu item that opens the sidebar's Watch tab (src/watch/). */
export const WATCH_ITEM = 'Watch the selected column for new rows';
/** Whose API key and credits =FINDEMAIL uses (custom functions get that person's user properties). */
export const FORMULA_PAYER =
  "the spreadsheet's owner (in a shared drive, where no one owns the file, the person who created it; after a transfer of ownership, the new owner)";
export const RETRY_PATH = `Extensions › ${ADDON_NAME} › Retry failed rows in the selected column`;
