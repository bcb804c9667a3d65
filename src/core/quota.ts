/**
 * The daily quota (apps-script/guides/services/quotas), reported: "Service invoked too many times for one day:
 * graphite property writes." (googleworkspace/apps-script-oauth2#217).
 */
const DAILY = /too many times for one day: [^.]*propert/i;
/** Reported: "Service invoked too many times in a short time: properties. Try Utilities.sleep(1000) between calls." */
const SHORT_TIME = /too many times in a short time: [^.]*propert/i;

export function isPropertiesQuotaError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return DAILY.test(message) || SHORT_TIME.test(message);
}

export const PROPERTIES_QUOTA_MESSAGE =
  "Apps Script's daily limit of property reads and writes is used up for this account. Nothing was charged; try again tomorrow.";
const SHORT_TIME_MESSAGE =
  'Apps Script refused more property reads and writes for a moment (too many in a short time). Nothing was charged; try again in a minute.';

export function propertiesQuotaMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return SHORT_TIME.test(message) ? SHORT_TIME_MESSAGE : PROPERTIES_QUOTA_MESSAGE;
}
