/** The result's words (src/lookup/result.ts): fields cut to their bounds, service errors and their advice. */

import { FIELD_LIMITS } from '../../src/core/limits';
import {
  boundResult,
  CUT_MARKER,
  cut,
  type LookupResult,
  serviceError,
  withAdvice,
} from '../../src/lookup/result';

describe('cut', () => {
  it('keeps a text within the limit as it is', () => {
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('', 3)).toBe('');
  });

  it('cuts a longer text to exactly the limit, the marker last', () => {
    const text = cut('abcdefghij', 5);
    expect(text).toBe(`abcd${CUT_MARKER}`);
    expect(text).toHaveLength(5);
  });

  it('never leaves half a surrogate pair (an emoji in a name) before the marker', () => {
    const text = cut('ab😀cd', 4);
    expect(text).toBe(`ab${CUT_MARKER}`);
    expect(text.length).toBeLessThanOrEqual(4);
    expect(() => encodeURIComponent(text)).not.toThrow();
  });
});

describe('boundResult', () => {
  it('cuts every field of a found result to FIELD_LIMITS, and keeps the rest', () => {
    const long = (n: number) => 'x'.repeat(n + 10);
    const bounded = boundResult({
      kind: 'found',
      email: long(FIELD_LIMITS.email),
      emailStatus: long(FIELD_LIMITS.status),
      catchAll: true,
      accountType: long(FIELD_LIMITS.status),
      profile: { name: long(FIELD_LIMITS.name), updatedAt: long(FIELD_LIMITS.updatedAt) },
    });
    expect(bounded.kind).toBe('found');
    if (bounded.kind !== 'found') return;
    expect(bounded.email).toHaveLength(FIELD_LIMITS.email);
    expect(bounded.emailStatus).toHaveLength(FIELD_LIMITS.status);
    expect(bounded.accountType).toHaveLength(FIELD_LIMITS.status);
    expect(bounded.profile.name).toHaveLength(FIELD_LIMITS.name);
    expect(bounded.profile.updatedAt).toHaveLength(FIELD_LIMITS.updatedAt);
    expect(bounded.catchAll).toBe(true);
  });

  it("cuts a 422's message, keeps a not-found's profile, and adds no field the result did not have", () => {
    const unprocessable = boundResult({
      kind: 'unprocessable',
      message: 'm'.repeat(FIELD_LIMITS.message * 2),
      profile: {},
    });
    expect(unprocessable).toEqual({
      kind: 'unprocessable',
      message: `${'m'.repeat(FIELD_LIMITS.message - 1)}${CUT_MARKER}`,
      profile: {},
    });
    const notFound: LookupResult = { kind: 'not_found', profile: { name: 'Jane Doe' } };
    expect(boundResult(notFound)).toEqual(notFound);
  });
});

describe('serviceError', () => {
  it('continues the run and is not retried unless told', () => {
    expect(serviceError('bad_request', 'Not accepted.')).toEqual({
      kind: 'error',
      error: 'bad_request',
      status: undefined,
      message: 'Not accepted.',
      retryable: false,
      effect: 'continue',
    });
  });

  it("quotes the service's words once after ours, without a web address, and keeps them", () => {
    const error = serviceError('payment_required', 'Out of credits (HTTP 402).', {
      status: 402,
      effect: 'pause',
      said: 'Insufficient credits: see https://billing.internal/x.',
    });
    expect(error.message).toMatch(
      /^Out of credits \(HTTP 402\)\. The service said: "Insufficient credits[^"]*"\.$/,
    );
    expect(error.message).not.toContain('billing.internal');
    expect(error.said).toBe('Insufficient credits: see https://billing.internal/x.');
    expect(error.effect).toBe('pause');
  });

  it('keeps no `said` when the service said nothing worth quoting', () => {
    expect(serviceError('server_error', 'Failed.', { said: '  ' })).not.toHaveProperty('said');
    expect(serviceError('server_error', 'Failed.', { said: '  ' }).message).toBe('Failed.');
  });
});

describe('withAdvice', () => {
  it("puts the advice between our words and the service's quote", () => {
    const error = serviceError('unauthorized', 'The API key was rejected (HTTP 401).', {
      said: 'Invalid API Key',
    });
    expect(withAdvice(error, 'Paste a new key in the Settings tab.')).toBe(
      'The API key was rejected (HTTP 401). Paste a new key in the Settings tab. The service said: "Invalid API Key".',
    );
  });

  it('adds the advice last when the service said nothing', () => {
    expect(withAdvice({ message: 'Out of credits.' }, 'Buy credits, then use Retry.')).toBe(
      'Out of credits. Buy credits, then use Retry.',
    );
  });
});
