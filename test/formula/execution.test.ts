/**
 * One =FINDEMAIL execution's state and policy over plain ports: no key, no lookup; the budget never above the
 * formulas' own; the URL sent as first written; formula claims; the gates in their order.
 */

import type { ScriptConfig } from '../../src/core/config';
import { FORMULA_CLAIM_SECONDS, FORMULA_WORK_BUDGET_MS, MAX_BATCH_SIZE } from '../../src/core/limits';
import { PACE_PREFIX, PACE_SCOPES } from '../../src/core/propertyNames';
import type { SpreadsheetPort } from '../../src/core/sheet';
import type { ProfileInput } from '../../src/core/url';
import { formulaLookupPolicy, fromStore, startFormulaExecution } from '../../src/formula/execution';
import type { RowOutcome } from '../../src/lookup/cellValues';
import { FORMULA_CLAIM } from '../../src/lookup/claims';
import type { LookupPorts, ResultStore, StoreRead } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';
import { MemoryProperties, memoryCache, testClock, testPlatform } from '../support/platform';

const KEY = 'sk_live_ABCDEFGH12345678wxyz';
const ENDPOINT = 'http://127.0.0.1:1/network_finder';
const START = Date.UTC(2026, 10, 28, 4);

const found = (email: string) => ({ email }) as unknown as LookupResult;

function read(
  results: Array<[string, LookupResult]> = [],
  properties: Record<string, string> = {},
): StoreRead {
  return { results: new Map(results), room: 7, property: (name) => properties[name] };
}

function world({ apiKey = KEY as string | null, config = {} as Partial<ScriptConfig> } = {}) {
  const asked: string[][] = [];
  const stored = new Map<string, LookupResult>([['p/ana', found('ana@example.com')]]);
  const store = {
    readStored(keys: string[]) {
      asked.push(keys);
      return read(keys.filter((k) => stored.has(k)).map((k) => [k, stored.get(k) as LookupResult]));
    },
  } as ResultStore;
  const clock = testClock(START);
  const ports = { store, cache: memoryCache(), clock } as unknown as LookupPorts;
  const document = new MemoryProperties();
  const platform = testPlatform({
    cachedConfig: () => ({ maxConcurrency: 40, ...config }) as ScriptConfig,
    settings: { apiKey: () => apiKey } as never,
    documentProperties: () => document,
    userProperties: () => new MemoryProperties(),
    spreadsheet: () => ({ id: () => 'spreadsheet-1' }) as SpreadsheetPort,
  });
  return { platform, ports, asked, document };
}

const url = (key: string, sent: string): ProfileInput => ({ kind: 'url', key, sent });

test('fromStore puts stored results into the outcomes and returns the read', () => {
  const w = world();
  const execution = startFormulaExecution(w.platform, w.ports, ENDPOINT, [], new Map(), START, read());
  const result = fromStore(execution, ['p/ana', 'p/bo']);
  expect(w.asked).toEqual([['p/ana', 'p/bo']]);
  expect(result.room).toBe(7);
  expect([...execution.outcomes.keys()]).toEqual(['p/ana']);
});

test('no key saved for the formulas: the execution does not start, and the message says what the owner does', () => {
  const w = world({ apiKey: null });
  expect(() => startFormulaExecution(w.platform, w.ports, ENDPOINT, [], new Map(), START, read())).toThrow(
    'No API key is saved for the formulas of this spreadsheet.',
  );
});

test('the URL sent is the first spelling of each profile; empty and invalid inputs send nothing', () => {
  const w = world();
  const inputs: ProfileInput[] = [
    url('p/ana', 'https://network.example/in/Ana/'),
    { kind: 'empty' },
    url('p/ana', 'network.example/in/ana'),
    { kind: 'invalid', reason: 'a date is not a profile URL' },
    url('p/bo', 'https://network.example/in/bo'),
  ];
  const execution = startFormulaExecution(w.platform, w.ports, ENDPOINT, inputs, new Map(), START, read());
  expect([...execution.spellingSent]).toEqual([
    ['p/ana', 'https://network.example/in/Ana/'],
    ['p/bo', 'https://network.example/in/bo'],
  ]);
  expect(execution.apiKey).toBe(KEY);
  expect(execution.endpoint).toBe(ENDPOINT);
});

test('the work budget ends FORMULA_WORK_BUDGET_MS after the start; the script property may lower it, never raise it', () => {
  const start = (config: Partial<ScriptConfig>) =>
    startFormulaExecution(world({ config }).platform, world().ports, ENDPOINT, [], new Map(), START, read());
  expect(start({}).budget.end).toBe(START + FORMULA_WORK_BUDGET_MS);
  expect(start({ findEmailBudgetMs: 5000 }).budget.end).toBe(START + 5000);
  expect(start({ findEmailBudgetMs: FORMULA_WORK_BUDGET_MS * 3 }).budget.end).toBe(
    START + FORMULA_WORK_BUDGET_MS,
  );
});

test('a fixed concurrency sets the batch size (at most MAX_BATCH_SIZE) and no pace is kept', () => {
  const w = world({ config: { concurrency: MAX_BATCH_SIZE * 5 } });
  const execution = startFormulaExecution(w.platform, w.ports, ENDPOINT, [], new Map(), START, read());
  expect(execution.pace).toBeUndefined();
  expect(execution.fixedSize).toBe(MAX_BATCH_SIZE);
  const policy = formulaLookupPolicy(w.platform, execution);
  expect(policy.sizer.next()).toBe(MAX_BATCH_SIZE);
  expect(policy.pace).toBeUndefined();
});

test('without a fixed size the pace starts at the cap, from the kept property as the first read found it', () => {
  const w = world({ config: { maxConcurrency: 12 } });
  const execution = startFormulaExecution(
    w.platform,
    w.ports,
    ENDPOINT,
    [],
    new Map(),
    START,
    read([], { [PACE_PREFIX + PACE_SCOPES.formula]: 'not a pace' }),
  );
  expect(execution.pace).toBeDefined();
  expect(execution.pace?.pacer.cap).toBe(12);
  expect(execution.fixedSize).toBeUndefined();
  expect(formulaLookupPolicy(w.platform, execution).sizer.next()).toBeLessThanOrEqual(12);
});

test('the policy claims as a formula for the claim time, with the gates in order: halt, key check, account check, daily limit', () => {
  const w = world();
  const execution = startFormulaExecution(w.platform, w.ports, ENDPOINT, [], new Map(), START, read());
  const policy = formulaLookupPolicy(w.platform, execution);
  expect(policy.claim).toEqual({ value: FORMULA_CLAIM, seconds: FORMULA_CLAIM_SECONDS });
  expect(policy.apiKey).toBe(KEY);
  expect(policy.budget).toBe(execution.budget);
  expect(policy.gates.map((gate) => gate.name)).toEqual([
    'halt',
    'key check',
    'account check',
    'daily limit',
  ]);
});

test("the policy's store read fills the execution's outcomes", () => {
  const w = world();
  const outcomes = new Map<string, RowOutcome>();
  const execution = startFormulaExecution(w.platform, w.ports, ENDPOINT, [], outcomes, START, read());
  const policy = formulaLookupPolicy(w.platform, execution);
  const answer = policy.inStore?.(['p/ana', 'p/zed']);
  expect(answer?.room).toBe(7);
  expect(answer?.stored.has('p/ana')).toBe(true);
  expect(answer?.stored.has('p/zed')).toBe(false);
  expect(outcomes.has('p/ana')).toBe(true);
  expect(outcomes.has('p/zed')).toBe(false);
});
