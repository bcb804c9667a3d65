/**
 * Google's daily quota of web requests (UrlFetchApp calls), as the add-on counts its own. Pure.
 *
 * The quotas page (apps-script/guides/services/quotas): "URL Fetch calls 20,000 / day" for consumer accounts,
 * 100,000 for Google Workspace, and "Quotas are per user and reset 24 hours after the first request". So the count
 * follows that quota day, not a calendar day (neither UTC's nor the spreadsheet's): it starts at the first request
 * counted and ends 24 hours later. The add-on cannot tell the account's kind without another scope, and sees only
 * its own bulk runs' requests (not other scripts', nor formulas'), so it speaks of the consumer figure, "about".
 */
import { DAILY_WEB_REQUESTS, QUOTA_DAY_MS, WORKSPACE_DAILY_WEB_REQUESTS } from './limits';
import { storedRecord } from './storedJson';

/** The count as kept in the user's properties (WEB_REQUESTS_PROPERTY). */
export interface WebRequestCount {
  /** Epoch ms of the quota day's first request. */
  since: number;
  sent: number;
}

/** The count of the quota day under way at `nowMs`, or undefined (none kept, unreadable, or its 24 hours over). */
export function currentCount(raw: string | null | undefined, nowMs: number): WebRequestCount | undefined {
  const kept = storedRecord<WebRequestCount>(raw, { since: 'number', sent: 'number' });
  return kept && nowMs - kept.since < QUOTA_DAY_MS ? kept : undefined;
}

/** The value to keep after `sent` more requests ending at `nowMs`: a new quota day when the last one is over. */
export function addWebRequests(raw: string | null | undefined, sent: number, nowMs: number): string {
  const count = currentCount(raw, nowMs) ?? { since: nowMs, sent: 0 };
  return JSON.stringify({ since: count.since, sent: count.sent + sent });
}

/** Requests left in the quota day at `nowMs` (of a consumer account's day), what was sent in it, since when. */
export function webRequestsLeft(raw: string | null | undefined, nowMs: number): WebRequestsLeft {
  const count = currentCount(raw, nowMs);
  if (!count) return { left: DAILY_WEB_REQUESTS, sent: 0 };
  return { left: Math.max(0, DAILY_WEB_REQUESTS - count.sent), sent: count.sent, since: count.since };
}

export interface WebRequestsLeft {
  left: number;
  sent: number;
  /** The quota day's first request (absent: none under way). */
  since?: number;
}

const figure = (n: number) => n.toLocaleString('en-US');

/** What Google allows, in the words the plan and the pause use. */
export const WEB_REQUEST_QUOTA_WORDS = `Google allows about ${figure(DAILY_WEB_REQUESTS)} web requests a day for a consumer account (${figure(WORKSPACE_DAILY_WEB_REQUESTS)} for Google Workspace)`;

/**
 * The plan's note when its `lookups` need more web requests than are left today, else undefined. `timeText` says
 * a time in the spreadsheet's time zone.
 */
export function webRequestQuotaNote(
  lookups: number,
  count: WebRequestsLeft,
  timeText: (ms: number) => string,
): string | undefined {
  if (lookups <= count.left) return undefined;
  const open = count.sent > 0 && count.since !== undefined;
  const used = open
    ? `, and this add-on has sent ${figure(count.sent)} for you since ${timeText(count.since as number)}`
    : '';
  const after = open ? timeText((count.since as number) + QUOTA_DAY_MS) : '24 hours';
  return (
    `${WEB_REQUEST_QUOTA_WORDS}${used}: this run needs at least ${figure(lookups)}, so it will pause when they are ` +
    `used and can resume after ${after} (Resume in this sidebar).`
  );
}
