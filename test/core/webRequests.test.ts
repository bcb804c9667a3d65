/** Google's daily quota of web requests as the add-on counts its own (src/core/webRequests.ts). Pure. */
import {
  addWebRequests,
  currentCount,
  DAILY_WEB_REQUESTS,
  QUOTA_DAY_MS,
  webRequestQuotaNote,
  webRequestsLeft,
} from '../../src/core/webRequests';

const HOUR = 3600 * 1000;
const at = (ms: number) => `t+${ms / HOUR}h`;

describe('the count of web requests', () => {
  it('runs for 24 hours from the first request counted, not a calendar day, then starts again', () => {
    const start = Date.UTC(2026, 10, 27, 22, 0);
    let kept = addWebRequests(null, 100, start);
    // Past midnight (UTC, and most time zones) the same quota day goes on.
    kept = addWebRequests(kept, 50, start + 3 * HOUR);
    expect(currentCount(kept, start + 3 * HOUR)).toEqual({ since: start, sent: 150 });
    expect(webRequestsLeft(kept, start + 23 * HOUR)).toEqual({
      left: DAILY_WEB_REQUESTS - 150,
      sent: 150,
      since: start,
    });
    // 24 hours after the first request: a new quota day begins with the next request.
    expect(webRequestsLeft(kept, start + QUOTA_DAY_MS)).toEqual({ left: DAILY_WEB_REQUESTS, sent: 0 });
    const next = addWebRequests(kept, 7, start + QUOTA_DAY_MS + HOUR);
    expect(currentCount(next, start + QUOTA_DAY_MS + HOUR)).toEqual({
      since: start + QUOTA_DAY_MS + HOUR,
      sent: 7,
    });
    // Never below nothing left; an unreadable count is no count.
    expect(webRequestsLeft(addWebRequests(null, 25_000, start), start).left).toBe(0);
    expect(currentCount('{"since":', start)).toBeUndefined();
  });

  it("a plan's note only when the lookups need more than are left, with the figures and when it resets", () => {
    const start = 10 * HOUR;
    const kept = addWebRequests(null, 19_000, start);
    const left = webRequestsLeft(kept, start + HOUR);
    expect(webRequestQuotaNote(1000, left, at)).toBeUndefined();
    expect(webRequestQuotaNote(1001, left, at)).toBe(
      'Google allows about 20,000 web requests a day for a consumer account (100,000 for Google Workspace), and ' +
        'this add-on has sent 19,000 for you since t+10h: this run needs at least 1,001, so it will pause when ' +
        'they are used and can resume after t+34h (Resume in this sidebar).',
    );
    // Nothing counted: a run larger than a whole day.
    expect(webRequestQuotaNote(25_000, webRequestsLeft(null, start), at)).toBe(
      'Google allows about 20,000 web requests a day for a consumer account (100,000 for Google Workspace): this ' +
        'run needs at least 25,000, so it will pause when they are used and can resume after 24 hours (Resume in ' +
        'this sidebar).',
    );
  });
});
