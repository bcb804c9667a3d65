/**
 * =FINDEMAIL's paths that send nothing, over plain ports whose transport throws: the arguments checked, empty and
 * invalid cells answered for free, stored results shown without a claim or a credit, a refused property write
 * pointing to the bulk run, the daily properties quota in words a person can act on. The paths that send run in
 * the emulator (test/e2e/formula/).
 */
import type { ScriptConfig } from '../../src/core/config';
import type { Platform, Properties, Transport } from '../../src/core/ports';
import { REFRESH_PATH } from '../../src/core/product';
import type { SpreadsheetPort } from '../../src/core/sheet';
import { DEFAULT_NETWORK_HOSTS, parseProfileInput } from '../../src/core/url';
import { findEmail } from '../../src/formula/findEmail';
import { NO_WRITES } from '../../src/formula/messages';
import { fieldValues, summaryValue } from '../../src/lookup/cellValues';
import type { LookupResult } from '../../src/lookup/result';
import { encodeResult } from '../../src/store/codec';
import { resultsSheetOn } from '../../src/store/resultsSheet';
import { hashOf } from '../../src/store/table';
import {
  freeLock,
  MemoryProperties,
  memoryCache,
  memoryHiddenSheet,
  testClock,
  testPlatform,
} from '../support/platform';

const ANA = 'https://www.linkedin.com/in/ana-example';
const BO = 'https://www.linkedin.com/in/bo-example';
const keyOf = (url: string) => {
  const input = parseProfileInput(url, DEFAULT_NETWORK_HOSTS);
  if (input.kind !== 'url') throw new Error(`${url} is not a profile URL`);
  return input.key;
};
const found: LookupResult = {
  kind: 'found',
  email: 'ana@example.com',
  emailStatus: 'valid',
  catchAll: false,
  accountType: 'professional',
  profile: { name: 'Ana' },
};

function world({
  stored = new Map<string, LookupResult>(),
  writable = true,
  endpoint = { ok: true, endpoint: 'http://127.0.0.1:1/network_finder', base: 'http://127.0.0.1:1' },
  readFails,
}: {
  stored?: Map<string, LookupResult>;
  writable?: boolean;
  endpoint?: ScriptConfig['endpoint'];
  readFails?: Error;
} = {}) {
  /** The results sheet's reads, and the document lock's holds. */
  const seen = { reads: 0, holds: 0 };
  const resultsSheet = memoryHiddenSheet();
  resultsSheetOn(resultsSheet).appendResults(
    new Map([...stored].map(([key, result]) => [hashOf(key), encodeResult(result, 0)])),
  );
  const reader = resultsSheet.reader;
  resultsSheet.reader = () => {
    seen.reads++;
    return reader();
  };
  const document = new MemoryProperties();
  const properties: Properties = {
    ...document,
    getProperty: (key) => document.getProperty(key),
    deleteProperty: (key) => document.deleteProperty(key),
    getKeys: () => document.getKeys(),
    getProperties: () => {
      if (readFails) throw readFails;
      return document.getProperties();
    },
    setProperties: (values) => {
      if (!writable) throw new Error('Exception: You do not have permission to call setProperties.');
      return document.setProperties(values);
    },
    setProperty: (key, value) => document.setProperty(key, value),
  };
  const clock = testClock();
  const platform = testPlatform({
    clock,
    config: () => ({ endpoint, networkHosts: DEFAULT_NETWORK_HOSTS, maxConcurrency: 20 }) as ScriptConfig,
    documentProperties: () => properties,
    userProperties: () => new MemoryProperties(),
    documentCache: () => memoryCache(),
    spreadsheet: () => ({ id: () => 'spreadsheet-1' }) as SpreadsheetPort,
    settings: { apiKey: () => 'sk_test_key_000000000000' } as Platform['settings'],
    resultsSheet,
    lock: {
      ...freeLock,
      tryWith: (work) => {
        seen.holds++;
        return { value: work() };
      },
    },
    transport: new Proxy({} as Transport, {
      get: () => {
        throw new Error('nothing may be sent');
      },
    }),
  });
  return { platform, seen };
}

describe('arguments', () => {
  test('no argument: says how to call it', () => {
    expect(() => findEmail(world().platform, undefined)).toThrow('=FINDEMAIL(A2)');
  });

  test('unknown fields are named', () => {
    expect(() => findEmail(world().platform, ANA, 'email,phone')).toThrow('Unknown field "phone"');
  });

  test('fields with more than one column of URLs: refused, nothing read', () => {
    const w = world();
    expect(() => findEmail(w.platform, [[ANA, BO]], 'email')).toThrow('single column');
    expect(w.seen.reads).toBe(0);
  });
});

test('empty and invalid cells are answered without reading the store', () => {
  const w = world();
  const values = findEmail(w.platform, [[''], ['not a url'], [new Date(0)]]) as unknown[][];
  expect(values).toHaveLength(3);
  expect(values[0][0]).toBe(summaryValue({ kind: 'empty' }));
  expect(values[1][0]).toBe(
    summaryValue({
      kind: 'invalid',
      reason: (parseProfileInput('not a url', DEFAULT_NETWORK_HOSTS) as { reason: string }).reason,
    }),
  );
  expect(values[2][0]).toBe(summaryValue({ kind: 'invalid', reason: 'a date is not a profile URL' }));
  expect(w.seen.reads).toBe(0);
});

test('a stored result is shown without the lock, a claim or a request', () => {
  const w = world({ stored: new Map([[keyOf(ANA), found]]) });
  expect(findEmail(w.platform, ANA)).toBe(summaryValue(found));
  expect(w.seen.holds).toBe(0);
});

test('a range of one profile written three ways reads the results sheet once', () => {
  const w = world({ stored: new Map([[keyOf(ANA), found]]) });
  const values = findEmail(w.platform, [[ANA], [`${ANA}/`], [ANA]]) as unknown[][];
  expect(values.flat()).toEqual([summaryValue(found), summaryValue(found), summaryValue(found)]);
  expect(w.seen.reads).toBe(1);
});

test('fields render the chosen fields of the stored result', () => {
  const w = world({ stored: new Map([[keyOf(ANA), found]]) });
  expect(findEmail(w.platform, [[ANA]], 'email,status')).toEqual([fieldValues(found, ['email', 'status'])]);
});

test('formulas may not write document properties: missing profiles point to the bulk run, nothing sent', () => {
  const w = world({ writable: false, stored: new Map([[keyOf(ANA), found]]) });
  const values = findEmail(w.platform, [[ANA], [BO]]) as unknown[][];
  expect(values[0][0]).toBe(summaryValue(found));
  expect(values[1][0]).toBe(summaryValue(NO_WRITES));
});

test("the add-on's service address is not set: its message, before anything is read", () => {
  const w = world({ endpoint: { ok: false, message: 'The add-on has no service address.' } });
  expect(() => findEmail(w.platform, ANA)).toThrow('The add-on has no service address.');
  expect(w.seen.reads).toBe(0);
});

test("the daily properties quota: says nothing was charged and to refresh tomorrow's way", () => {
  const w = world({ readFails: new Error('Service invoked too many times for one day: properties.') });
  expect(() => findEmail(w.platform, ANA)).toThrow(
    `Nothing was charged; try again tomorrow. Then use ${REFRESH_PATH}.`,
  );
});

test('another error reaches the cell as it is', () => {
  const w = world({ readFails: new Error('Exception: Service Spreadsheets failed') });
  expect(() => findEmail(w.platform, ANA)).toThrow('Exception: Service Spreadsheets failed');
});
