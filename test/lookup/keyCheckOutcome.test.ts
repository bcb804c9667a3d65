/** The key check's one reading (src/lookup/contract.ts), the sidebar's and a session's: what passes, what is refused. */
import { keyCheckOutcome } from '../../src/lookup/contract';

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
