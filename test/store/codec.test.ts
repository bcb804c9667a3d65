import { FIELD_LIMITS } from '../../src/core/limits';
import {
  boundResult,
  CUT_MARKER,
  cut,
  type LookupResult,
  lostAnswer,
  unusableAnswer,
} from '../../src/lookup/result';
import { decodeResult, encodeResult } from '../../src/store/codec';

/** A property value's limit in Apps Script (https://developers.google.com/apps-script/guides/services/quotas). */
const PROPERTY_VALUE_BYTES = 9 * 1024;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
/** 6 bytes a code unit (JSON's `\u001f`) of the fields at their bounds, and the rest of the form. */
const MAX_ENCODED_BYTES =
  6 *
    (FIELD_LIMITS.name +
      FIELD_LIMITS.updatedAt +
      Math.max(FIELD_LIMITS.email + 2 * FIELD_LIMITS.status, FIELD_LIMITS.message)) +
  64;

describe('cut', () => {
  it('keeps a text within the limit as it is', () => {
    expect(cut('Jane Doe', 8)).toBe('Jane Doe');
    expect(cut('', 1)).toBe('');
  });

  it('cuts a longer one to the limit, ending with the marker', () => {
    expect(cut('Jane Doe', 5)).toBe(`Jane${CUT_MARKER}`);
    expect(cut('x'.repeat(10_240), FIELD_LIMITS.name)).toHaveLength(FIELD_LIMITS.name);
  });

  it('never leaves half of a surrogate pair', () => {
    const emoji = '😀'.repeat(300); // two code units each
    const result = cut(emoji, FIELD_LIMITS.name);
    expect(result.length).toBeLessThanOrEqual(FIELD_LIMITS.name);
    expect(result.endsWith(CUT_MARKER)).toBe(true);
    expect(result.slice(0, -1)).toBe('😀'.repeat((result.length - 1) / 2));
    expect(Buffer.from(result, 'utf8').toString('utf8')).toBe(result);
  });
});

/** Every field as long as `length` code units of `unit`. */
function oversized(kind: LookupResult['kind'], unit: string, length: number): LookupResult {
  const text = unit.repeat(Math.ceil(length / unit.length));
  const profile = { name: text, updatedAt: text };
  if (kind === 'found') {
    return { kind, email: text, emailStatus: text, catchAll: true, accountType: text, profile };
  }
  if (kind === 'unprocessable') return { kind, message: text, profile };
  if (kind === 'unusable') return { kind, lost: false, message: text, profile };
  return { kind, profile };
}

describe('stored results are bounded', () => {
  it('boundResult cuts every text field to its limit', () => {
    const result = boundResult(oversized('found', 'n', 10_240));
    if (result.kind !== 'found') throw new Error('kind changed');
    expect(result.profile.name).toHaveLength(FIELD_LIMITS.name);
    expect(result.profile.updatedAt).toHaveLength(FIELD_LIMITS.updatedAt);
    expect(result.email).toHaveLength(FIELD_LIMITS.email);
    expect(result.emailStatus).toHaveLength(FIELD_LIMITS.status);
    expect(result.accountType).toHaveLength(FIELD_LIMITS.status);
    expect(result.catchAll).toBe(true);
    const unprocessable = boundResult(oversized('unprocessable', 'm', 10_240));
    expect(unprocessable.kind === 'unprocessable' && unprocessable.message).toHaveLength(
      FIELD_LIMITS.message,
    );
  });

  it('leaves a normal result unchanged', () => {
    const normal: LookupResult = {
      kind: 'found',
      email: 'jane.doe@acme.test',
      emailStatus: 'VALID',
      catchAll: false,
      accountType: 'professional',
      profile: { name: 'Jane Doe', updatedAt: '2024-05-01T10:00:00+00:00' },
    };
    expect(boundResult(normal)).toEqual(normal);
    expect(boundResult({ kind: 'not_found', profile: {} })).toEqual({ kind: 'not_found', profile: {} });
  });

  it('the encoded form stays under MAX_ENCODED_BYTES, itself far under a property value, whatever the text', () => {
    expect(MAX_ENCODED_BYTES).toBeLessThan(PROPERTY_VALUE_BYTES / 2);
    // The costliest code units in JSON + UTF-8: control characters (6 bytes as \u001f), quotes and backslashes
    // (2), CJK (3), emoji (4 per pair), and a lone surrogate (escaped, 6).
    for (const unit of ['\u0001', '"', '\\', '中', '😀', '\ud800', 'a']) {
      for (const kind of ['found', 'not_found', 'unprocessable', 'unusable'] as const) {
        const encoded = encodeResult(oversized(kind, unit, 20_000), Number.MAX_SAFE_INTEGER);
        expect(utf8(encoded)).toBeLessThanOrEqual(MAX_ENCODED_BYTES);
        expect(decodeResult(encoded)?.result.kind).toBe(kind);
      }
    }
  });

  it('a 10 KB name is kept cut, with the marker, and read back the same', () => {
    const name = 'Jane Doe '.repeat(1200);
    const encoded = encodeResult({ kind: 'not_found', profile: { name } }, 1_700_000_000_000);
    const decoded = decodeResult(encoded);
    expect(decoded?.result.profile.name).toBe(`${name.slice(0, FIELD_LIMITS.name - 1)}${CUT_MARKER}`);
  });
});

describe('an answer the add-on cannot use is kept like a result', () => {
  it('an unusable 200 and a lost answer read back as they were, told apart, with when they were kept', () => {
    for (const result of [unusableAnswer('no "status"'), lostAnswer('Address unavailable')]) {
      const decoded = decodeResult(encodeResult(result, 1_700_000_000_000));
      expect(decoded).toEqual({ savedAt: 1_700_000_000_000, result });
    }
    expect(decodeResult(encodeResult(lostAnswer('x'), 0))?.result).toMatchObject({
      kind: 'unusable',
      lost: true,
    });
    expect(decodeResult(encodeResult(unusableAnswer('x'), 0))?.result).toMatchObject({
      kind: 'unusable',
      lost: false,
    });
  });
});
