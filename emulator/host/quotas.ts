/**
 * Daily quotas per user (https://developers.google.com/apps-script/guides/services/quotas, "Current quotas"):
 * "Quotas are per user and reset 24 hours after the first request." The emulator counts by the environment's
 * clock, so advanceClock(24 h) starts a new day; resetDailyQuota() does it at once.
 */
import { fail } from '../errors';

export type QuotaKind = 'properties' | 'urlfetch';

/** The quotas page's figures: consumer accounts (gmail.com) and Google Workspace accounts. */
export const DAILY_QUOTAS: Record<'consumer' | 'workspace', Record<QuotaKind, number>> = {
  // "Properties read/write 50,000 / day | 500,000 / day"; "URL Fetch calls 20,000 / day | 100,000 / day".
  consumer: { properties: 50_000, urlfetch: 20_000 },
  workspace: { properties: 500_000, urlfetch: 100_000 },
};

const DAY_MS = 24 * 3600 * 1000;

/**
 * The texts scripts meet past a daily quota, as reported (the quotas page gives none): UrlFetchApp's "Service invoked
 * too many times for one day: urlfetch." (Blacksmoke16/GESI#99 quotes the service's name the same way); the
 * properties' "… graphite property writes." (googleworkspace/apps-script-oauth2#217, for writes; reads: not
 * reported, the same text).
 */
export const DAILY_QUOTA_MESSAGES: Record<QuotaKind, string> = {
  urlfetch: 'Service invoked too many times for one day: urlfetch.',
  properties: 'Service invoked too many times for one day: graphite property writes.',
};

/** Reported past a short burst of property calls (andrewroberts/TrelloSync#17). */
export const PROPERTIES_SHORT_TIME_MESSAGE =
  'Service invoked too many times in a short time: properties. Try Utilities.sleep(1000) between calls.';

/** Reported past a burst of web requests (Blacksmoke16/GESI#99). */
export const URLFETCH_SHORT_TIME_MESSAGE =
  'Service invoked too many times in a short time: urlfetch. Try Utilities.sleep(1000) between calls.';

interface Usage {
  since: number;
  used: Record<QuotaKind, number>;
}

export class DailyQuotas {
  private readonly users = new Map<string, Usage>();

  constructor(private readonly limitsByKind: Record<QuotaKind, number>) {}

  /** Counts `n` calls of `user`; throws Apps Script's error (and counts nothing) past the day's quota. */
  charge(user: string, kind: QuotaKind, n: number, now: number): void {
    let usage = this.users.get(user);
    if (!usage || now - usage.since >= DAY_MS) {
      usage = { since: now, used: { properties: 0, urlfetch: 0 } };
      this.users.set(user, usage);
    }
    if (usage.used[kind] + n > this.limitsByKind[kind]) fail(DAILY_QUOTA_MESSAGES[kind]);
    usage.used[kind] += n;
  }

  /** Calls counted today for `user` (all users when omitted). */
  used(kind: QuotaKind, user?: string): number {
    let total = 0;
    for (const [name, usage] of this.users)
      if (user === undefined || name === user) total += usage.used[kind];
    return total;
  }

  limits(): Record<QuotaKind, number> {
    return { ...this.limitsByKind };
  }

  reset(): void {
    this.users.clear();
  }
}
