/** The add-on's name as users see it, and where its settings are. Pure. */
export const ADDON_NAME = 'Profile Email Finder';
export const SETTINGS_PATH = `Extensions › ${ADDON_NAME} › Settings & API key`;
export const RETRY_PATH = `Extensions › ${ADDON_NAME} › Retry failed rows in the selected column`;
