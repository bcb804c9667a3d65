/**
 * =FINDEMAIL's paths that send nothing, over plain ports whose transport throws: the arguments checked, empty and
 * invalid cells answered for free, stored results shown without a claim or a credit, a refused property write
 * pointing to the bulk run, the daily properties quota in words a person can act on. The paths that send run in
 * the emulator (test/e2e/formula/).
 */
import type { ScriptConfig } from '../../src/core/config';
import { REFRESH_PATH } from '../../src/core/product';
import { DEFAULT_NETWORK_HOSTS, parseProfileInput } from '../../src/core/url';
import { findEmail } from '../../src/formula/findEmail';
import { NO_WRITES } from '../../src/formula/messages';
import { fieldValues, summaryValue } from '../../src/lookup/cellValues';
import type { LookupPorts, ResultStore } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';
import { memoryCache, testClock, testPlatform } from '../support/platform';

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
  const asked: string[][] = [];
  const writes: string[] = [];
  const store = {
    readStored(keys: string[]) {
      if (readFails) throw readFails;
      asked.push(keys);
      return {
        results: new Map(keys.filter((k) => stored.has(k)).map((k) => [k, stored.get(k) as LookupResult])),
        room: 100,
        property: () => undefined,
      };
    },
  } as unknown as ResultStore;
  const clock = testClock();
  const ports = {
    store,
    cache: memoryCache(),
    clock,
    transport: new Proxy(
      {},
      {
        get: () => {
          throw new Error('nothing may be sent');
        },
      },
    ),
    lock: new Proxy(
      {},
      {
        get: () => {
          throw new Error('no lock may be taken');
        },
      },
    ),
  } as unknown as LookupPorts;
  const platform = testPlatform({
    clock,
    cachedConfig: () =>
      ({ endpoint, networkHosts: DEFAULT_NETWORK_HOSTS, maxConcurrency: 20 }) as ScriptConfig,
    lookupPorts: () => ports,
    documentPropertyWritable: (name) => {
      writes.push(name);
      return writable;
    },
  });
  return { platform, asked, writes };
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
    expect(w.asked).toEqual([]);
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
  expect(w.asked).toEqual([]);
});

test('a stored result is shown without a write check, a claim or a request', () => {
  const w = world({ stored: new Map([[keyOf(ANA), found]]) });
  expect(findEmail(w.platform, ANA)).toBe(summaryValue(found));
  expect(w.writes).toEqual([]);
});

test('a range asks the store once for each profile, however often it appears', () => {
  const w = world({ stored: new Map([[keyOf(ANA), found]]) });
  const values = findEmail(w.platform, [[ANA], [`${ANA}/`], [ANA]]) as unknown[][];
  expect(values.flat()).toEqual([summaryValue(found), summaryValue(found), summaryValue(found)]);
  expect(w.asked).toEqual([[keyOf(ANA)]]);
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
  expect(w.writes).toHaveLength(1);
});

test("the add-on's service address is not set: its message, before anything is read", () => {
  const w = world({ endpoint: { ok: false, message: 'The add-on has no service address.' } });
  expect(() => findEmail(w.platform, ANA)).toThrow('The add-on has no service address.');
  expect(w.asked).toEqual([]);
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
