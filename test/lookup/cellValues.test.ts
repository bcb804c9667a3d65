import { parseFields } from '../../src/core/cells';
import { enrichmentRow, fieldValues, summaryValue } from '../../src/lookup/cellValues';
import { interpretLookupResponse } from '../../src/lookup/contract';
import type { LookupResult } from '../../src/lookup/result';
import { decodeResult, encodeResult } from '../../src/store/codec';

const found: LookupResult = {
  kind: 'found',
  email: 'jane.doe@acme.test',
  emailStatus: 'VALID',
  catchAll: false,
  accountType: 'professional',
  profile: { name: 'Jane Doe', updatedAt: '2024-05-01T10:00:00+00:00' },
};
const unprocessable: LookupResult = {
  kind: 'unprocessable',
  message: 'Cannot extract the domain',
  profile: { name: 'Jo' },
};

describe('cells', () => {
  it('writes the four enrichment columns, and two more on request', () => {
    expect(enrichmentRow(found, false)).toEqual(['jane.doe@acme.test', 'VALID', false, '']);
    expect(enrichmentRow(found, true)).toEqual([
      'jane.doe@acme.test',
      'VALID',
      false,
      '',
      'professional',
      'Jane Doe',
    ]);
    expect(enrichmentRow({ kind: 'not_found', profile: {} }, false)).toEqual([
      '',
      'NOT_FOUND',
      '',
      'No address found for this profile.',
    ]);
    expect(enrichmentRow(unprocessable, false)).toEqual([
      '',
      'UNPROCESSABLE',
      '',
      'The service could not process this profile of Jo (HTTP 422). The service said: "Cannot extract the domain".',
    ]);
    expect(enrichmentRow({ kind: 'invalid', reason: 'not a web address' }, false)[1]).toBe('INVALID_URL');
    const error = interpretLookupResponse(500, '{"error":"An internal error occurred: connection time-out"}');
    if (error.kind !== 'error') throw new Error('a 500 is an error');
    // Our words, what to do, then the service's own words quoted once.
    expect(enrichmentRow(error, false)).toEqual([
      '',
      'ERROR',
      '',
      'The service failed (HTTP 500). To try again: Extensions › Profile Email Finder › Retry failed rows in the selected column. The service said: "An internal error occurred: connection time-out".',
    ]);
    expect(enrichmentRow({ ...error, error: 'bad_request', retryable: false }, false)[1]).toBe('INVALID_URL');
  });

  it('gives distinct single values for every kind of outcome', () => {
    const values = [
      summaryValue(found),
      summaryValue({ kind: 'not_found', profile: {} }),
      summaryValue(unprocessable),
      summaryValue({ kind: 'invalid', reason: 'not a web address' }),
      summaryValue({ kind: 'empty' }),
    ];
    expect(values).toEqual([
      'jane.doe@acme.test',
      'NOT_FOUND',
      'UNPROCESSABLE: The service could not process this profile of Jo (HTTP 422). The service said: "Cannot extract the domain".',
      'INVALID_URL: not a web address.',
      '',
    ]);
  });

  it('parses fields and lists the valid ones on a mistake', () => {
    expect(parseFields(' Email , status,catch_all')).toEqual({
      ok: true,
      fields: ['email', 'status', 'catch_all'],
    });
    expect(parseFields(undefined)).toEqual({ ok: true, fields: null });
    const bad = parseFields('email,phone');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(
      /Unknown field "phone".*Valid fields: email, status, catch_all, account_type, name, updated_at/,
    );
  });

  it('fills requested fields; without status the email field carries the marker', () => {
    expect(
      fieldValues(found, ['email', 'status', 'catch_all', 'account_type', 'name', 'updated_at']),
    ).toEqual([
      'jane.doe@acme.test',
      'VALID',
      false,
      'professional',
      'Jane Doe',
      '2024-05-01T10:00:00+00:00',
    ]);
    expect(fieldValues({ kind: 'not_found', profile: {} }, ['email', 'status'])).toEqual(['', 'NOT_FOUND']);
    expect(fieldValues({ kind: 'not_found', profile: {} }, ['email', 'name'])).toEqual(['NOT_FOUND', '']);
  });

  it('round-trips cached results compactly', () => {
    for (const result of [
      found,
      unprocessable,
      { kind: 'not_found', profile: { name: 'A' } } as LookupResult,
    ]) {
      const encoded = encodeResult(result, 1_700_000_000_123);
      expect(encoded.length).toBeLessThan(200);
      expect(decodeResult(encoded)).toEqual({ result, savedAt: 1_700_000_000_123 });
    }
    // Version 1 stored seconds: still read, as milliseconds.
    expect(decodeResult('[1,"n","A","",1700000000]')).toEqual({
      result: { kind: 'not_found', profile: { name: 'A' } },
      savedAt: 1_700_000_000_000,
    });
    expect(decodeResult('not json')).toBeUndefined();
    expect(decodeResult('[99,"f"]')).toBeUndefined();
  });
});
