/**
 * The sidebar's Settings over a platform of plain objects: the key leaves only masked, a bad key is refused before it
 * is stored, the key check spends no credit and never echoes the key, a working key lifts the formulas' halt.
 */
import type { Settings } from '../../src/api';
import type { ScriptConfig } from '../../src/core/config';
import { DEFAULT_SETTINGS, MAX_START_AT_ONCE_UNDER } from '../../src/core/limits';
import type { RawAnswer } from '../../src/core/ports';
import {
  accountState,
  checkApiKey,
  removeApiKey,
  saveApiKey,
  saveSettings,
} from '../../src/settings/account';
import { memoryTransport, testClock, testPlatform } from '../support/platform';

const KEY = 'sk_live_ABCDEFGH12345678wxyz';

function world({
  key = null as string | null,
  endpoint = {
    ok: true,
    endpoint: 'https://api.example.com/network_finder',
    base: 'https://api.example.com',
  } as ScriptConfig['endpoint'],
  answer = { status: 400, body: '{"message":"network_url is required"}' } as RawAnswer,
} = {}) {
  const stored = { key, settings: { ...DEFAULT_SETTINGS } as Settings };
  const events: string[] = [];
  const asked: string[] = [];
  const platform = testPlatform({
    settings: {
      apiKey: () => stored.key,
      saveApiKey(value) {
        events.push('save key');
        stored.key = value;
      },
      deleteApiKey() {
        events.push('delete key');
        stored.key = null;
      },
      read: () => stored.settings,
      save(settings) {
        events.push('save settings');
        stored.settings = settings;
      },
    },
    config: () => ({ endpoint }) as ScriptConfig,
    clock: testClock(),
    documentCache: () => ({
      get: () => null,
      put: () => {},
      remove: () => {
        events.push('clear halt');
      },
    }),
    transport: {
      ...memoryTransport(),
      checkKey: ({ apiKey }) => {
        asked.push(apiKey);
        return answer;
      },
    },
  });
  return { platform, stored, events, asked };
}

describe('accountState', () => {
  test('a saved key leaves only masked: eight dots and its last four characters', () => {
    const w = world({ key: KEY });
    const state = accountState(w.platform);
    expect(state).toEqual({
      hasKey: true,
      maskedKey: '••••••••wxyz',
      settings: DEFAULT_SETTINGS,
      configError: '',
    });
    expect(JSON.stringify(state)).not.toContain(KEY.slice(0, 8));
  });

  test("no key: none to mask; the owner's configuration error is passed on", () => {
    const w = world({ endpoint: { ok: false, message: 'The add-on has no service address.' } });
    expect(accountState(w.platform)).toMatchObject({
      hasKey: false,
      maskedKey: '',
      configError: 'The add-on has no service address.',
    });
  });
});

describe('saveApiKey', () => {
  test('a key is saved trimmed, and a halt after a 401 or 402 is lifted', () => {
    const w = world();
    saveApiKey(w.platform, `  ${KEY}\n`);
    expect(w.stored.key).toBe(KEY);
    expect(w.events).toEqual(['save key', 'clear halt']);
  });

  test.each([
    ['nothing', undefined, 'Paste your API key.'],
    ['blank text', '   ', 'Paste your API key.'],
    ['too short', 'abc', 'does not look like an API key'],
    ['with a space inside', 'sk_live ABCDEFGH1234', 'no spaces'],
    ['a number', 12345678, 'Paste your API key.'],
  ])('%s is refused with words to act on, and nothing is stored or lifted', (_name, raw, words) => {
    const w = world({ key: KEY });
    expect(() => saveApiKey(w.platform, raw)).toThrow(words);
    expect(w.stored.key).toBe(KEY);
    expect(w.events).toEqual([]);
  });
});

test('removeApiKey deletes the key and nothing else', () => {
  const w = world({ key: KEY });
  removeApiKey(w.platform);
  expect(w.stored.key).toBeNull();
  expect(w.events).toEqual(['delete key']);
});

describe('checkApiKey', () => {
  test('no key saved: nothing is asked, the message says where to get one', () => {
    const w = world();
    const result = checkApiKey(w.platform);
    expect(result.ok).toBe(false);
    expect(result.message).toContain('API settings');
    expect(w.asked).toEqual([]);
  });

  test('a working key: says no credit was spent, and lifts the halt', () => {
    const w = world({ key: KEY });
    expect(checkApiKey(w.platform)).toEqual({
      ok: true,
      message: 'The API key works. Checking it spent no credit.',
    });
    expect(w.asked).toEqual([KEY]);
    expect(w.events).toEqual(['clear halt']);
  });

  test("a rejected key: the service's words are quoted, the key in them masked, the halt kept", () => {
    const w = world({
      key: KEY,
      answer: { status: 401, body: JSON.stringify({ message: `Key ${KEY} is revoked` }) },
    });
    const result = checkApiKey(w.platform);
    expect(result.ok).toBe(false);
    expect(result.message).toContain('rejected this API key');
    expect(result.message).toContain('••••••••wxyz is revoked');
    expect(result.message).not.toContain(KEY);
    expect(w.events).toEqual([]);
  });

  test("the owner's configuration is wrong: its message, and no halt lifted", () => {
    const w = world({ key: KEY, endpoint: { ok: false, message: 'The add-on has no service address.' } });
    expect(checkApiKey(w.platform)).toEqual({ ok: false, message: 'The add-on has no service address.' });
    expect(w.events).toEqual([]);
  });

  test('the check could not be made (a timeout): says so with the key masked, no halt lifted', () => {
    const w = world({ key: KEY, answer: { thrown: `Timeout: No answer for ${KEY} in time.` } });
    const result = checkApiKey(w.platform);
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/^Could not check the API key: /);
    expect(result.message).not.toContain(KEY);
    expect(w.events).toEqual([]);
  });
});

test('saveSettings stores the checked settings, not what was sent', () => {
  const w = world();
  saveSettings(w.platform, { extraFields: true, startAtOnceUnder: MAX_START_AT_ONCE_UNDER + 5, apiKey: KEY });
  expect(w.stored.settings).toEqual({
    ...DEFAULT_SETTINGS,
    extraFields: true,
    startAtOnceUnder: MAX_START_AT_ONCE_UNDER,
  });
  expect(w.events).toEqual(['save settings']);
});
