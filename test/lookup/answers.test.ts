/**
 * What an answer of the service means for a run (src/lookup/answers.ts): each status of the contract
 * (/work/shared/service-spec.md §7.1, and the 429 and redirects a proxy may add), the key masked in every message,
 * and which answers halt the run or may be retried.
 */

import { haltsRun, interpretAnswer, mayRetry, type RawAnswer } from '../../src/lookup/answers';
import { maskKey } from '../../src/lookup/apiKey';
import type { LookupOutcome } from '../../src/lookup/result';
import { testClock } from '../support/platform';

const KEY = 'sk_live_7f3a9c2e5b1d';
const error = (text: string) => JSON.stringify({ error: text });
const found = JSON.stringify({
  status: 'success',
  network_url: 'https://www.network.com/in/jane-doe',
  email_address: 'jane.doe@acme.test',
  email_status: 'VALID',
  account_type: 'professional',
  is_catch_all: false,
  profile: { name: 'Jane Doe', updated_at: '2024-01-01T00:00:00+00:00' },
});

function outcome(answer: RawAnswer, now = 0): LookupOutcome {
  return interpretAnswer(answer, KEY, now);
}

describe('interpretAnswer: the status codes of the contract', () => {
  it('200 with an address is a result; it neither halts nor is retried', () => {
    const result = outcome({ status: 200, body: found });
    expect(result).toMatchObject({ kind: 'found', email: 'jane.doe@acme.test' });
    expect(haltsRun(result)).toBe(false);
    expect(mayRetry(result)).toBe(false);
  });

  it('422 is a result worth keeping (charged): the message and the partial profile, no retry', () => {
    const result = outcome({
      status: 422,
      body: JSON.stringify({
        status: 'unprocessable',
        message: 'Cannot extract domain',
        profile: { name: 'Jo' },
      }),
    });
    expect(result).toEqual({
      kind: 'unprocessable',
      message: 'Cannot extract domain',
      profile: { name: 'Jo' },
    });
    expect(haltsRun(result)).toBe(false);
    expect(mayRetry(result)).toBe(false);
  });

  it.each([
    // status, error kind, halts the run, may be retried
    [400, 'bad_request', false, false],
    [401, 'unauthorized', true, false],
    [402, 'payment_required', true, false],
    [404, 'endpoint_not_found', true, false],
    [429, 'rate_limited', false, true],
    [500, 'server_error', false, true],
    [503, 'server_error', false, true],
    [418, 'unexpected_status', false, false],
  ])('%i is %s: halts %s, retried %s', (status, kind, halts, retried) => {
    const result = outcome({ status, body: error('something') });
    expect(result).toMatchObject({ kind: 'error', error: kind, status });
    expect(haltsRun(result)).toBe(halts);
    expect(mayRetry(result)).toBe(retried);
  });

  it('401 stops the run (a new key is needed); 402 pauses it (resumable once credits are bought)', () => {
    expect(outcome({ status: 401, body: error('Unauthorized') })).toMatchObject({ effect: 'stop' });
    expect(outcome({ status: 402, body: error('Insufficient credits') })).toMatchObject({ effect: 'pause' });
  });

  it('a redirect is the configuration: it stops the run without naming where it points', () => {
    const result = outcome({ status: 301, body: '', headers: { location: 'https://internal.example/x' } });
    expect(result).toMatchObject({ kind: 'error', error: 'config', effect: 'stop' });
    expect(haltsRun(result)).toBe(true);
    expect(JSON.stringify(result)).not.toContain('internal.example');
  });

  it("an HTML 401 or 402 from a gateway still halts: the status decides, not the body's shape", () => {
    expect(haltsRun(outcome({ status: 401, body: '<html>Unauthorized</html>' }))).toBe(true);
    expect(haltsRun(outcome({ status: 402, body: '<html>Payment</html>' }))).toBe(true);
    const page = outcome({ status: 502, body: '<html>Bad gateway</html>' });
    expect(mayRetry(page)).toBe(true);
  });
});

describe('interpretAnswer: Retry-After of a 429', () => {
  it('in seconds, as ms', () => {
    const result = outcome({ status: 429, body: error('slow down'), headers: { retryAfter: '7' } });
    expect(result).toMatchObject({ error: 'rate_limited', retryAfterMs: 7_000 });
  });

  it('as an HTTP date, the time left from now', () => {
    const clock = testClock();
    const at = new Date(clock.now() + 12_000).toUTCString();
    const result = outcome(
      { status: 429, body: error('slow down'), headers: { retryAfter: at } },
      clock.now(),
    );
    expect(result).toMatchObject({ retryAfterMs: 12_000 });
  });

  it("in seconds from the answer's Date (to the second: one more at most): a 429 that came before the batch's slowest answer has waited since", () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 5, 400);
    const sentAt = (ms: number) => new Date(ms).toUTCString();
    const refused = (retryAfter: string, date?: string) =>
      outcome({ status: 429, body: error('slow down'), headers: { retryAfter, date } }, now);
    // Sent at 12:00:00 (the Date says so to the second), fetchAll back at 12:00:05.4: 2 s from 12:00:01 at the latest.
    expect(refused('2', sentAt(now - 5_400))).toMatchObject({ retryAfterMs: 0 });
    expect(refused('7', sentAt(now - 5_400))).toMatchObject({ retryAfterMs: 2_600 });
    // Sent within the last second: counted from now.
    expect(refused('2', sentAt(now - 300))).toMatchObject({ retryAfterMs: 2_000 });
  });

  it('no Date, one more than a minute old, one ahead of ours or unreadable: in seconds from now', () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 5, 400);
    const refused = (date?: string) =>
      outcome({ status: 429, body: error('slow down'), headers: { retryAfter: '2', date } }, now);
    expect(refused()).toMatchObject({ retryAfterMs: 2_000 });
    expect(refused(new Date(now - 61_500).toUTCString())).toMatchObject({ retryAfterMs: 2_000 });
    expect(refused(new Date(now + 30_000).toUTCString())).toMatchObject({ retryAfterMs: 2_000 });
    expect(refused('yesterday')).toMatchObject({ retryAfterMs: 2_000 });
  });

  it('a date already passed is no wait; an unreadable one is none given', () => {
    const clock = testClock();
    const past = new Date(clock.now() - 60_000).toUTCString();
    expect(outcome({ status: 429, body: '{}', headers: { retryAfter: past } }, clock.now())).toMatchObject({
      retryAfterMs: 0,
    });
    const unreadable = outcome({ status: 429, body: '{}', headers: { retryAfter: 'soon' } }, clock.now());
    expect(unreadable.kind === 'error' && unreadable.retryAfterMs).toBeUndefined();
  });
});

describe('interpretAnswer: the key never shows', () => {
  it("a service echoing the key in its error has it masked, in our message and in the service's words", () => {
    const result = outcome({ status: 401, body: error(`Invalid API Key ${KEY}`) });
    expect(result.kind).toBe('error');
    const text = JSON.stringify(result);
    expect(text).not.toContain(KEY);
    expect(text).toContain(maskKey(KEY));
  });

  it('an exception of UrlFetchApp naming the key has it masked too', () => {
    const result = outcome({ thrown: `Exception: Request failed for https://api.test?key=${KEY} (reset)` });
    expect(JSON.stringify(result)).not.toContain(KEY);
  });
});

describe('interpretAnswer: exceptions of UrlFetchApp', () => {
  it('a time-out and a reset connection may be retried; the daily quota pauses the run', () => {
    const timeout = outcome({ thrown: 'Exception: Timeout: https://api.test' });
    expect(timeout).toMatchObject({ error: 'timeout' });
    expect(mayRetry(timeout)).toBe(true);
    const reset = outcome({ thrown: 'Exception: Address unavailable: https://api.test' });
    expect(reset).toMatchObject({ error: 'transport' });
    expect(mayRetry(reset)).toBe(true);
    const quota = outcome({ thrown: 'Exception: Service invoked too many times for one day: urlfetch.' });
    expect(quota).toMatchObject({ error: 'quota', effect: 'pause' });
    expect(haltsRun(quota)).toBe(true);
    expect(mayRetry(quota)).toBe(false);
  });
});

describe('haltsRun and mayRetry without an outcome', () => {
  it('are false for none', () => {
    expect(haltsRun(undefined)).toBe(false);
    expect(mayRetry(undefined)).toBe(false);
  });
});
