/** The API key as people may see it (src/lookup/apiKey.ts): masked, redacted from texts, its shape checked. */

import { API_KEY_MAX_CHARS, API_KEY_MIN_CHARS } from '../../src/core/limits';
import { checkKeyShape, maskKey, redactKey } from '../../src/lookup/apiKey';

const KEY = 'sk_live_7f3a9c2e5b1d';

describe('maskKey', () => {
  it('shows the last four characters only, behind eight dots whatever the length', () => {
    expect(maskKey(KEY)).toBe('••••••••5b1d');
    expect(maskKey(`${'x'.repeat(200)}WXYZ`)).toBe('••••••••WXYZ');
    expect(maskKey(KEY)).not.toContain(KEY.slice(0, -4));
  });
});

describe('redactKey', () => {
  it('replaces every occurrence of the key, leaving the rest of the text', () => {
    expect(redactKey(`key=${KEY}&again=${KEY}.`, KEY)).toBe('key=••••••••5b1d&again=••••••••5b1d.');
  });

  it('leaves a text without the key, or with no key given, unchanged', () => {
    expect(redactKey('Connection reset', KEY)).toBe('Connection reset');
    expect(redactKey(`has ${KEY}`, null)).toBe(`has ${KEY}`);
    expect(redactKey(`has ${KEY}`, undefined)).toBe(`has ${KEY}`);
    expect(redactKey(`has ${KEY}`, '')).toBe(`has ${KEY}`);
  });

  it('does not redact a key of fewer than four characters (it would mask common words, and show it whole)', () => {
    expect(redactKey('abc and abc', 'abc')).toBe('abc and abc');
  });
});

describe('checkKeyShape', () => {
  it('trims what was pasted and keeps the key', () => {
    expect(checkKeyShape(`\t ${KEY} \n`)).toEqual({ ok: true, key: KEY });
  });

  it(`accepts ${API_KEY_MIN_CHARS} to ${API_KEY_MAX_CHARS} characters, and refuses one fewer or one more`, () => {
    expect(checkKeyShape('k'.repeat(API_KEY_MIN_CHARS))).toMatchObject({ ok: true });
    expect(checkKeyShape('k'.repeat(API_KEY_MAX_CHARS))).toMatchObject({ ok: true });
    expect(checkKeyShape('k'.repeat(API_KEY_MIN_CHARS - 1))).toMatchObject({ ok: false });
    expect(checkKeyShape('k'.repeat(API_KEY_MAX_CHARS + 1))).toMatchObject({ ok: false });
  });

  it('refuses inner spaces and characters beyond printable ASCII (a copy that caught a dot or a quote mark)', () => {
    for (const pasted of [
      'sk_live 7f3a9c2e',
      'sk_live_7f3a9c2e•',
      'sk_live_“7f3a9c2e”',
      'sk_live_\u200b7f3a9c2e',
    ]) {
      const checked = checkKeyShape(pasted);
      expect(checked).toMatchObject({ ok: false });
      if (!checked.ok) expect(checked.message).toMatch(/copy it again from API settings/);
    }
  });

  it('asks for a key when nothing or no text was given', () => {
    for (const pasted of [undefined, null, 42, '', '   ']) {
      expect(checkKeyShape(pasted)).toEqual({ ok: false, message: 'Paste your API key.' });
    }
  });

  it('never repeats the refused text in its message (it may be a key)', () => {
    const long = `${KEY}${'q'.repeat(API_KEY_MAX_CHARS)}`;
    for (const pasted of [long, `${KEY} x`, KEY.slice(0, 5)]) {
      const checked = checkKeyShape(pasted);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.message).not.toContain(KEY.slice(0, 5));
    }
  });
});
