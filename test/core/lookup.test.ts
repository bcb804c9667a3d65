import {
  buildKeyCheckRequest,
  buildLookupRequest,
  checkKeyShape,
  interpretFetchException,
  interpretKeyCheck,
  interpretLookupResponse,
  maskKey,
  redactKey,
} from '../../src/core/lookup';

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
    expect(interpretKeyCheck(400, '{"error":"Please provide a URL"}')).toEqual({ valid: true });
    expect(interpretKeyCheck(401, '{"error":"Unauthorized: Invalid API Key"}')).toEqual({
      valid: false,
      message: 'Unauthorized: Invalid API Key',
    });
    expect(interpretKeyCheck(500, '{"error":"boom"}')).toMatchObject({
      kind: 'error',
      error: 'server_error',
    });
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

  it('reads a message field as well as an error field', () => {
    const outcome = interpretLookupResponse(
      500,
      '{"message":"An internal error occurred: connection time-out"}',
    );
    expect(outcome.kind === 'error' && outcome.message).toBe(
      'An internal error occurred: connection time-out',
    );
  });

  it('treats a non-JSON body (a proxy page) as an error, retryable when 5xx', () => {
    expect(interpretLookupResponse(502, '<html><body>Bad Gateway</body></html>')).toMatchObject({
      error: 'server_error',
      retryable: true,
    });
    expect(interpretLookupResponse(200, '<html>hi</html>')).toMatchObject({
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
});

describe('keys', () => {
  it('masks and redacts', () => {
    expect(maskKey('abcdefgh1234')).toBe('••••••••1234');
    expect(redactKey('bad key abcdefgh1234 here abcdefgh1234', 'abcdefgh1234')).toBe(
      'bad key ••••••••1234 here ••••••••1234',
    );
  });

  it('checks the shape before storing', () => {
    expect(checkKeyShape('  key-0123456789  ')).toEqual({ ok: true, key: 'key-0123456789' });
    expect(checkKeyShape('')).toMatchObject({ ok: false });
    expect(checkKeyShape('short')).toMatchObject({ ok: false });
    expect(checkKeyShape('has a space 12345')).toMatchObject({ ok: false });
    expect(checkKeyShape(12345678)).toMatchObject({ ok: false });
  });
});
