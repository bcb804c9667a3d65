/** Names of the add-on's stored properties, shared with the playground (pure: no Apps Script global). */

/** User property: the user's API key. */
export const API_KEY_PROPERTY = 'PEF_API_KEY';
/** Document property: the spreadsheet's bulk-run state. */
export const JOB_PROPERTY = 'pef.job';
