/** PropertiesService: the spreadsheet's document properties and this user's user properties. */
import { ADDON_NAME } from '../core/product';

/**
 * The document properties, shared by every user of the spreadsheet, or null: "When document properties are not
 * available this method returns null" (apps-script/reference/properties/properties-service#getDocumentProperties).
 */
export function documentPropertiesOrNull(): GoogleAppsScript.Properties.Properties | null {
  return PropertiesService.getDocumentProperties();
}

/** The document properties; throws when the execution has no document. */
export function documentProperties(): GoogleAppsScript.Properties.Properties {
  const properties = documentPropertiesOrNull();
  if (!properties)
    throw new Error(
      `This works only inside a spreadsheet: open the spreadsheet, then use Extensions › ${ADDON_NAME} there again.`,
    );
  return properties;
}

/** This user's own properties (in a custom function: the spreadsheet owner's, apps-script/guides/sheets/functions). */
export function userProperties(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}
