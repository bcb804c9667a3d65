export const ADDON_NAME = 'Profile Email Finder';
export const SETTINGS_PATH = `Extensions › ${ADDON_NAME} › Settings & API key`;
export const KEY_SOURCE = "Account › API settings in the service's dashboard";
export const BULK_RUN_ITEM = 'Find e-mails for the selected column';
export const BULK_RUN_PATH = `Extensions › ${ADDON_NAME} › ${BULK_RUN_ITEM}`;
/** Sheets cannot run a custom function again on request: every cell message that needs it names this item. */
export const REFRESH_ITEM = 'Refresh =FINDEMAIL cells';
export const REFRESH_PATH = `Extensions › ${ADDON_NAME} › ${REFRESH_ITEM}`;
export const WATCH_ITEM = 'Watch the selected column for new rows';
/** Whose API key and credits =FINDEMAIL uses (custom functions get that person's user properties). */
export const FORMULA_PAYER =
  "the spreadsheet's owner (in a shared drive, where no one owns the file, the person who created it; after a transfer of ownership, the new owner)";
export const RETRY_PATH = `Extensions › ${ADDON_NAME} › Retry failed rows in the selected column`;
