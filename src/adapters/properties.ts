/** PropertiesService: the spreadsheet's document properties and this user's user properties. */

/** The document properties, shared by every user of the spreadsheet. */
export function documentProperties(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getDocumentProperties();
}

/** This user's own properties (in a custom function: the spreadsheet owner's, apps-script/guides/sheets/functions). */
export function userProperties(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}
