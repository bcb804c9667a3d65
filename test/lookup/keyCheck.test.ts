/**
 * The key check before the first paid batch (src/lookup/keyCheck.ts): one free request while the pace knows nothing;
 * a 401, a 404 or a redirect halt the run before any credit is spent, a 429's Retry-After holds the first batch, a
 * connection lost on the way counts as a loss. A transport that counts its calls, the fake clock.
 */

import { sliceBudget } from '../../src/lookup/budget';
import { checkKeyOfRun, keyCheckGate } from '../../src/lookup/keyCheck';
import { knowsNothing, loadPace, Pacer } from '../../src/lookup/pace';
import type { DocumentCache, LookupPorts, SendBudget, SentKeyCheck } from '../../src/lookup/ports';
import { serviceError } from '../../src/lookup/result';
import { memoryCache, testClock } from '../support/platform';

const PLAN = { apiKey: 'key-of-ann-123', endpoint: 'https://api.test/api/v1/network_finder' };
const START = 50;
const CAP = 100;

const unauthorized = serviceError('unauthorized', 'The API key was rejected (HTTP 401).', {
  status: 401,
  effect: 'stop',
});
const wrongAddress = serviceError('endpoint_not_found', 'The service address is wrong (HTTP 404).', {
  status: 404,
  effect: 'stop',
});
const quota = serviceError('quota', "Apps Script's daily limit of web requests is used up.", {
  effect: 'pause',
});
const reset = serviceError('transport', 'The service could not be reached (reset).', { retryable: true });
function tooMany(retryAfterMs: number) {
  return {
    ...serviceError('rate_limited', 'Too many requests (HTTP 429).', { status: 429, retryable: true }),
    retryAfterMs,
  };
}

/**
 * Ports whose transport answers the key check with `answer` after `takesMs` on the fake clock, and pays for no
 * lookup (sendBatch throws); any other port throws when reached.
 */
function world(answer: SentKeyCheck, takesMs = 300, cache: DocumentCache = memoryCache()) {
  const clock = testClock();
  let checks = 0;
  const ports = {
    cache,
    clock,
    transport: {
      sendBatch: () => {
        throw new Error('the key check sent a paid lookup');
      },
      checkKey: () => {
        checks++;
        clock.sleep(takesMs);
        return answer;
      },
    },
  } as Partial<LookupPorts>;
  const strict = new Proxy(ports as LookupPorts, {
    get(target, name) {
      if (name in target) return target[name as keyof LookupPorts];
      throw new Error(`the key check reached ports.${String(name)}`);
    },
  });
  const pacer = loadPace(cache, 'bulk', START, CAP, clock.now());
  const budget = sliceBudget(clock.now() + 60_000);
  return { ports: strict, clock, pacer, budget, checks: () => checks };
}

describe('keyCheckGate', () => {
  it('a passed check (400 to a body without network_url) is one free request, and the run goes on', () => {
    const w = world({ sent: 1, lost: false });
    const gate = keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 0);
    expect(gate.beforeClaim?.(10)).toBeUndefined();
    expect(w.checks()).toBe(1);
    expect(gate.passed()).toBe(true);
    expect(knowsNothing(w.pacer.state)).toBe(false);
  });

  it.each([
    ['a 401', unauthorized],
    ['a 404', wrongAddress],
    ["Apps Script's daily quota", quota],
  ])('%s halts the run before any claim, and says so once', (_, error) => {
    const w = world({ error, sent: error === quota ? 0 : 1, lost: error === quota });
    const halts: unknown[] = [];
    const gate = keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 0, (halt) => halts.push(halt));
    expect(gate.beforeClaim?.(10)).toEqual({ halt: error });
    expect(halts).toEqual([error]);
    expect(gate.passed()).toBe(false);
  });

  it('is sent once: a second claim of the same session, the pace knowing something now, sends none', () => {
    const w = world({ sent: 1, lost: false });
    const gate = keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 0);
    gate.beforeClaim?.(10);
    gate.beforeClaim?.(10);
    expect(w.checks()).toBe(1);
  });

  it('sends none for as few keys as `above` (a formula of one cell), nor without a pace (a fixed batch size)', () => {
    const w = world({ error: unauthorized, sent: 1, lost: false });
    expect(keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 1).beforeClaim?.(1)).toBeUndefined();
    expect(keyCheckGate(w.ports, undefined, PLAN, w.budget, 0).beforeClaim?.(10)).toBeUndefined();
    expect(w.checks()).toBe(0);
  });

  it('sends none when the kept pace already knows the service (an earlier execution sent lookups)', () => {
    const cache = memoryCache();
    const earlier = loadPace(cache, 'bulk', START, CAP, 0);
    earlier.observe({ size: 10, durationMs: 400, failures: 0, endedAt: 0 });
    earlier.save(cache, 'bulk');
    const w = world({ error: unauthorized, sent: 1, lost: false }, 300, cache);
    expect(keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 0).beforeClaim?.(10)).toBeUndefined();
    expect(w.checks()).toBe(0);
  });

  // The gate's `passed` says "the key works, the address is right"; a check whose answer was lost says neither, so
  // the formulas' account check still runs after it.
  it('a check whose answer was lost on the way has not passed', () => {
    const w = world({ error: reset, sent: 1, lost: true });
    const gate = keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 0);
    expect(gate.beforeClaim?.(10)).toBeUndefined();
    expect(gate.passed()).toBe(false);
  });

  it('a check answered 429 has not passed either (the service limited it before saying anything of the key)', () => {
    const w = world({ error: tooMany(1_000), sent: 1, lost: false });
    const gate = keyCheckGate(w.ports, w.pacer, PLAN, w.budget, 0);
    expect(gate.beforeClaim?.(10)).toBeUndefined();
    expect(gate.passed()).toBe(false);
  });
});

describe('checkKeyOfRun', () => {
  it("a 429 does not halt: its Retry-After holds the first paid batch, counted from the answer's end", () => {
    const w = world({ error: tooMany(8_000), sent: 1, lost: false }, 500);
    const started = w.clock.now();
    const checked = checkKeyOfRun(w.ports, w.pacer.state, CAP, PLAN, w.budget);
    expect(checked.halt).toBeUndefined();
    expect(checked.state.notBefore).toBe(started + 500 + 8_000);
  });

  it('a 429 sets no ceiling from a single request: the first batch is not cut to one', () => {
    const w = world({ error: tooMany(1_000), sent: 1, lost: false });
    const { state } = checkKeyOfRun(w.ports, w.pacer.state, CAP, PLAN, w.budget);
    expect(state.ceiling).toBe(CAP);
    expect(new Pacer(state, CAP).next()).toBe(START);
  });

  it('a connection lost on the way counts as a lost batch: the first paid batch holds one request', () => {
    const w = world({ error: reset, sent: 1, lost: true });
    const checked = checkKeyOfRun(w.ports, w.pacer.state, CAP, PLAN, w.budget);
    expect(checked.halt).toBeUndefined();
    expect(checked.state.lost).toBe(1);
    expect(new Pacer(checked.state, CAP).next()).toBe(1);
  });

  it("a passed check is the run's one request that is not a lookup: the pace knows something now", () => {
    const w = world({ sent: 1, lost: false });
    const checked = checkKeyOfRun(w.ports, w.pacer.state, CAP, PLAN, w.budget);
    expect(checked.halt).toBeUndefined();
    expect(knowsNothing(checked.state)).toBe(false);
    expect(checked.state).toMatchObject({ requests: 1, clean: 1, size: START });
  });

  it.each([
    ['a 401', unauthorized],
    ['a 404', wrongAddress],
  ])('%s halts the run, the state given back unchanged', (_, error) => {
    const w = world({ error, sent: 1, lost: false });
    const before = w.pacer.state;
    const checked = checkKeyOfRun(w.ports, before, CAP, PLAN, w.budget);
    expect(checked.halt).toEqual(error);
    expect(checked.state).toEqual(before);
  });

  it('leaves the state it is given as it was (the caller keeps the new one)', () => {
    const w = world({ error: reset, sent: 1, lost: true });
    const before = { ...w.pacer.state };
    const given = w.pacer.state;
    checkKeyOfRun(w.ports, given, CAP, PLAN, w.budget);
    expect(given).toEqual(before);
  });

  it('is not sent outside the budget: the first paid batch goes out unchecked instead', () => {
    const w = world({ error: unauthorized, sent: 1, lost: false });
    const over: SendBudget = { ...w.budget, mayStart: () => false };
    const checked = checkKeyOfRun(w.ports, w.pacer.state, CAP, PLAN, over);
    expect(checked.halt).toBeUndefined();
    expect(w.checks()).toBe(0);
    expect(knowsNothing(checked.state)).toBe(true);
  });

  it('is not sent before a Retry-After kept from an earlier execution', () => {
    const w = world({ error: unauthorized, sent: 1, lost: false });
    const held = { ...w.pacer.state, notBefore: w.clock.now() + 1 };
    expect(checkKeyOfRun(w.ports, held, CAP, PLAN, w.budget).halt).toBeUndefined();
    expect(w.checks()).toBe(0);
  });

  it('is not sent while the pace knows something already', () => {
    const w = world({ error: unauthorized, sent: 1, lost: false });
    const known = { ...w.pacer.state, requests: 20 };
    expect(checkKeyOfRun(w.ports, known, CAP, PLAN, w.budget)).toEqual({ state: known });
    expect(w.checks()).toBe(0);
  });

  it('is not sent by a transport that cannot send one', () => {
    const w = world({ sent: 1, lost: false });
    const ports = { ...w.ports, transport: { sendBatch: w.ports.transport.sendBatch } } as LookupPorts;
    expect(knowsNothing(checkKeyOfRun(ports, w.pacer.state, CAP, PLAN, w.budget).state)).toBe(true);
  });
});
