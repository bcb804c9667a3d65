import { FIELD_LIMITS } from '../../src/core/limits';
import {
  buildKeyCheckRequest,
  buildLookupRequest,
  interpretFetchException,
  interpretLookupResponse,
  keyCheckOutcome,
} from '../../src/lookup/contract';
import { CUT_MARKER } from '../../src/lookup/result';

const found = {
  status: 'success',
  network_url: 'https://www.network.com/in/jane-doe',
  email_address: 'jane.doe@acme.test',
  email_status: 'VALID',
  account_type: 'professional',
  is_catch_all: true,
  profile: { network_url: 'x', input_url: 'x', name: 'Jane Doe', updated_at: '2024-01-01T00:00:00+00:00' },
};

describe('buildLookupRequest', () => {
  it('is a POST with JSON, the key header, the URL as given and muted HTTP exceptions', () => {
    const request = buildLookupRequest(
      'https://api.test/api/v1/network_finder',
      'k-123456789',
      ' network.com/in/x',
    );
    expect(request).toEqual({
      url: 'https://api.test/api/v1/network_finder',
      method: 'post',
      contentType: 'application/json',
      headers: { 'X-KEY': 'k-123456789' },
      payload: JSON.stringify({ network_url: ' network.com/in/x' }),
      muteHttpExceptions: true,
      followRedirects: false,
    });
  });

  it('checks a key with a body that has no network_url', () => {
    expect(JSON.parse(buildKeyCheckRequest('https://a.test/x', 'k-123456789').payload)).toEqual({});
  });
});

describe('interpretLookupResponse', () => {
  it('maps a 200 with an address to found', () => {
    expect(interpretLookupResponse(200, JSON.stringify(found))).toEqual({
      kind: 'found',
      email: 'jane.doe@acme.test',
      emailStatus: 'VALID',
      catchAll: true,
      accountType: 'professional',
      profile: { name: 'Jane Doe', updatedAt: '2024-01-01T00:00:00+00:00' },
    });
  });

  it('maps a 200 without an address to not found', () => {
    const body = { ...found, email_address: null, email_status: null };
    expect(interpretLookupResponse(200, JSON.stringify(body))).toEqual({
      kind: 'not_found',
      profile: { name: 'Jane Doe', updatedAt: '2024-01-01T00:00:00+00:00' },
    });
  });

  it('maps a 200 with nulls or an empty address to not found (the not-found shape of the sandbox)', () => {
    const nulls = {
      ...found,
      email_address: null,
      email_status: null,
      account_type: null,
      is_catch_all: null,
    };
    expect(interpretLookupResponse(200, JSON.stringify(nulls))).toMatchObject({ kind: 'not_found' });
    expect(interpretLookupResponse(200, JSON.stringify({ ...found, email_address: '  ' }))).toMatchObject({
      kind: 'not_found',
    });
    const { network_url: _url, ...withoutUrl } = found;
    expect(interpretLookupResponse(200, JSON.stringify(withoutUrl))).toMatchObject({ kind: 'found' });
  });

  const { status: _status, ...noStatus } = found;
  const { email_address: _email, ...noAddress } = found;
  const { profile: _profile, ...noProfile } = found;
  it.each([
    ['{}', {}, /no "status"/],
    ['a found body without status', noStatus, /no "status"/],
    ['status "error"', { ...found, status: 'error' }, /"status" is "error"/],
    ['status true', { ...found, status: true }, /"status" is true/],
    ['no email_address', noAddress, /"email_address" is missing or not text/],
    ['a numeric email_address', { ...found, email_address: 42 }, /"email_address" is missing or not text/],
    ['no profile', noProfile, /"profile" is missing/],
    ['a profile that is a list', { ...found, profile: [] }, /"profile" is missing/],
    ['a text is_catch_all', { ...found, is_catch_all: 'yes' }, /"is_catch_all" is not true or false/],
    ['a numeric email_status', { ...found, email_status: 1 }, /"email_status" is not text/],
    ['an object account_type', { ...found, account_type: {} }, /"account_type" is not text/],
    ['a numeric network_url', { ...found, network_url: 7 }, /"network_url" is not text/],
    ['a numeric name', { ...found, profile: { name: 12 } }, /"profile.name" is not text/],
    [
      'an address over 320 characters',
      { ...found, email_address: `${'a'.repeat(400)}@acme.test` },
      /"email_address" is longer than 320/,
    ],
  ])(
    'a 200 with %s is an unusable answer with the reason: kept (maybe charged), not retried',
    (_name, body, reason) => {
      const outcome = interpretLookupResponse(200, JSON.stringify(body));
      expect(outcome).toMatchObject({ kind: 'unusable', lost: false, profile: {} });
      expect(outcome.kind === 'unusable' && outcome.message).toMatch(reason);
      expect(outcome.kind === 'unusable' && outcome.message).toMatch(/HTTP 200 without a usable result/);
      expect(outcome.kind === 'unusable' && outcome.message).toMatch(/may have charged a credit/);
    },
  );

  it('a JSON 200 that is not an object (a list, a string) is an unusable answer', () => {
    for (const body of ['[]', '"success"', 'null', '42']) {
      expect(interpretLookupResponse(200, body)).toMatchObject({ kind: 'unusable', lost: false });
    }
  });

  it('cuts oversized fields of a result, with the marker', () => {
    const huge = 'Jane Doe '.repeat(1200);
    const outcome = interpretLookupResponse(
      200,
      JSON.stringify({ ...found, email_status: 'V'.repeat(100), profile: { ...found.profile, name: huge } }),
    );
    if (outcome.kind !== 'found') throw new Error(`expected found, got ${outcome.kind}`);
    expect(outcome.profile.name).toBe(`${huge.trim().slice(0, FIELD_LIMITS.name - 1)}${CUT_MARKER}`);
    expect(outcome.emailStatus).toHaveLength(FIELD_LIMITS.status);
    expect(outcome.email).toBe('jane.doe@acme.test');
    const unprocessable = interpretLookupResponse(
      422,
      JSON.stringify({ status: 'unprocessable', message: 'm'.repeat(5000), profile: { name: huge } }),
    );
    if (unprocessable.kind !== 'unprocessable') throw new Error('expected unprocessable');
    expect(unprocessable.message).toHaveLength(FIELD_LIMITS.message);
    expect(unprocessable.message.endsWith(CUT_MARKER)).toBe(true);
    expect(unprocessable.profile.name).toHaveLength(FIELD_LIMITS.name);
  });

  it('maps 422 to unprocessable with the message and the partial profile', () => {
    const body = {
      status: 'unprocessable',
      message: 'Unable to extract the domain',
      profile: { name: 'Jo' },
    };
    expect(interpretLookupResponse(422, JSON.stringify(body))).toEqual({
      kind: 'unprocessable',
      message: 'Unable to extract the domain',
      profile: { name: 'Jo' },
    });
  });

  it.each([
    [400, 'bad_request', false, 'continue'],
    [401, 'unauthorized', false, 'stop'],
    [402, 'payment_required', false, 'pause'],
    [404, 'endpoint_not_found', false, 'stop'],
    [429, 'rate_limited', true, 'continue'],
    [500, 'server_error', true, 'continue'],
    [503, 'server_error', true, 'continue'],
    [418, 'unexpected_status', false, 'continue'],
  ])('maps %i to %s (retryable %p, effect %s) with the body text', (status, error, retryable, effect) => {
    const outcome = interpretLookupResponse(status, JSON.stringify({ error: `said ${status}` }));
    expect(outcome).toMatchObject({ kind: 'error', error, status, retryable, effect });
    expect(outcome.kind === 'error' && outcome.message).toContain(`said ${status}`);
  });

  it('bounds the error text of any status', () => {
    const outcome = interpretLookupResponse(402, JSON.stringify({ error: 'x'.repeat(20_000) }));
    expect(outcome.kind === 'error' && outcome.message.length).toBeLessThan(FIELD_LIMITS.message + 80);
    expect(outcome.kind === 'error' && outcome.message).toContain(CUT_MARKER);
  });

  it('reads a message field as well as an error field', () => {
    const outcome = interpretLookupResponse(
      500,
      '{"message":"An internal error occurred: connection time-out"}',
    );
    expect(outcome.kind === 'error' && outcome.message).toBe(
      'The service failed (HTTP 500). The service said: "An internal error occurred: connection time-out".',
    );
  });

  it('treats a non-JSON body (a proxy page) as an error, retryable when 5xx; as an unusable answer with a 200', () => {
    expect(interpretLookupResponse(502, '<html><body>Bad Gateway</body></html>')).toMatchObject({
      error: 'server_error',
      retryable: true,
    });
    // A 200 may have been charged: its page is kept as an unusable answer, never bought again unasked.
    const page = interpretLookupResponse(200, '<html>hi</html>');
    expect(page).toMatchObject({ kind: 'unusable', lost: false });
    expect(page.kind === 'unusable' && page.message).toMatch(/its body is not JSON/);
    expect(interpretLookupResponse(418, '<html>hi</html>')).toMatchObject({
      error: 'invalid_body',
      retryable: false,
    });
  });
});

describe('interpretFetchException', () => {
  it('recognises the daily quota, time-outs and transport failures', () => {
    expect(
      interpretFetchException('Exception: Service invoked too many times for one day: urlfetch.'),
    ).toMatchObject({
      error: 'quota',
      effect: 'pause',
    });
    expect(interpretFetchException('Exception: Timeout: https://a.test')).toMatchObject({
      error: 'timeout',
      retryable: true,
    });
    expect(interpretFetchException('Exception: Address unavailable: https://a.test')).toMatchObject({
      error: 'transport',
      retryable: true,
    });
  });

  it('too many web requests in a short time: refused before sending, tried again after a pause', () => {
    expect(
      interpretFetchException('Exception: Service invoked too many times in a short time: urlfetch.'),
    ).toMatchObject({ error: 'rate_limited', retryable: true, retryAfterMs: 1000 });
  });
});

const KEY = 'k-123456789abcdef';

describe("the key check's reading", () => {
  it('passes a 400 (the missing URL refused after the key) and a 200, whatever its body', () => {
    expect(
      keyCheckOutcome({ status: 400, body: '{"error":"Please provide a URL"}' }, KEY, 0),
    ).toBeUndefined();
    expect(keyCheckOutcome({ status: 200, body: '{}' }, KEY, 0)).toBeUndefined();
    expect(keyCheckOutcome({ status: 200, body: '{"email_address":"a@b.test"}' }, KEY, 0)).toBeUndefined();
  });

  it("reads a 401 as the key refused, with the service's words, the key masked", () => {
    expect(
      keyCheckOutcome({ status: 401, body: `{"error":"Unauthorized: Invalid API Key ${KEY}"}` }, KEY, 0),
    ).toMatchObject({ kind: 'error', error: 'unauthorized', said: expect.not.stringContaining(KEY) });
  });

  it('reads any other answer as a lookup would: a 500, a 429 with its Retry-After, a thrown fetch', () => {
    expect(keyCheckOutcome({ status: 500, body: '{"error":"boom"}' }, KEY, 0)).toMatchObject({
      error: 'server_error',
    });
    expect(
      keyCheckOutcome({ status: 429, body: '{}', headers: { retryAfter: '30' } }, KEY, 1_000),
    ).toMatchObject({ error: 'rate_limited', retryAfterMs: expect.any(Number) });
    expect(keyCheckOutcome({ thrown: `Timeout for ${KEY}` }, KEY, 0)).toMatchObject({ kind: 'error' });
  });
});
