/** Apps Script's daily PropertiesService quota, as the add-on tells the user about it. Pure. */

/**
 * "Service invoked too many times for one day: properties." (50,000 reads and writes a day for consumer accounts,
 * 500,000 for Workspace, per user: apps-script/guides/services/quotas).
 */
export function isPropertiesQuotaError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /too many times for one day: properties/i.test(message);
}

export const PROPERTIES_QUOTA_MESSAGE =
  "Apps Script's daily limit of property reads and writes is used up for this account. Nothing was charged; try again tomorrow.";
