/**
 * The lookup session (src/lookup/session.ts, openLookup) over the real UrlFetchApp transport
 * (src/adapters/http.ts), bundled alone and run in the emulator against the sandbox: its retries, and a fetchAll
 * that threw as a whole: every answer of that batch is kept as lost (the service may have charged each), none is
 * sent again, and the later batches go on until a halting answer or the deadline, leaving the rest unsent.
 * (=FINDEMAIL and the bulk run use the same session; here no store, claims or gates: a store that records nothing.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { Environment } from '../../emulator';
import { type SandboxServer, startSandbox } from '../../sandbox/server';
import type { FaultConfig } from '../../sandbox/service';
import type { LookupOutcome, ServiceError } from '../../src/lookup/result';
import { waitFor } from '../sandbox/helpers';

const ROOT = join(__dirname, '..', '..');
const KEY = 'adapter-key-1234567890';
const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 40, maxDelayMs: 80 };

interface Report {
  outcomes: Array<[string, LookupOutcome]>;
  halt?: ServiceError;
  requestsSent: number;
}

let dir = '';
let sandbox: SandboxServer | undefined;
let env: Environment | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pef-adapter-'));
  const bundle = buildSync({
    stdin: {
      contents: [
        "export { openLookup } from './src/lookup/session';",
        "export { fixedBatchSize, sliceBudget } from './src/lookup/budget';",
        "export { fetchTransport } from './src/adapters/http';",
        "export { systemClock } from './src/adapters/clock';",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'Http',
    target: 'es2020',
    write: false,
  });
  const runner = `
function runLookup(urls, endpoint, key, concurrency, budgetMs, retry) {
  var ports = {
    store: {
      getMany: function () { return new Map(); },
      beginSend: function (ask) {
        var noop = function () {};
        var record = { toService: noop, keep: noop, drop: noop, endWithoutWriting: noop };
        return { send: ask.urlKeys, first: ask.first(ask.urlKeys), stored: new Map(), elsewhere: [], full: [],
          record: record };
      },
    },
    cache: null,
    lock: { tryWith: function (work) { return { value: work() }; } },
    clock: Http.systemClock,
    transport: Http.fetchTransport,
  };
  var session = Http.openLookup(ports, {
    apiKey: key, endpoint: endpoint, retry: retry, claim: { value: 'bulk', seconds: 360 },
    sizer: Http.fixedBatchSize(concurrency), budget: Http.sliceBudget(Date.now() + budgetMs),
    inStore: function () { return { stored: new Set() }; }, gates: [],
  });
  var report = session.lookUp(new Map(urls.map(function (url) { return [url, url]; })));
  session.close();
  return { outcomes: Array.from(report.outcomes.entries()), halt: report.halt, requestsSent: report.requestsSent };
}`;
  writeFileSync(join(dir, 'Code.js'), `${bundle.outputFiles[0].text}\n${runner}`);
});

afterEach(async () => {
  try {
    await env?.close();
  } finally {
    env = undefined;
    await sandbox?.close();
    sandbox = undefined;
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lookup(
  urls: string[],
  options: {
    faults?: FaultConfig;
    credits?: number;
    budgetMs?: number;
    /** Requests per fetchAll (default 20). */
    concurrency?: number;
    key?: string;
    /** Runs while the lookup does (the test's moves of the environment's clock). */
    during?: (env: Environment, sandbox: SandboxServer) => Promise<void>;
  } = {},
): Promise<Report & { byUrl: Map<string, LookupOutcome> }> {
  sandbox = await startSandbox({
    port: 0,
    organizations: [{ name: 'org', keys: [KEY], credits: options.credits ?? 100 }],
    faults: options.faults,
  });
  env = new Environment({ distDir: dir });
  const running = env.run('runLookup', [
    urls,
    `${sandbox.baseUrl}network_finder`,
    options.key ?? KEY,
    options.concurrency ?? 20,
    options.budgetMs ?? 20_000,
    FAST_RETRY,
  ]);
  await options.during?.(env, sandbox);
  const report = (await running) as Report;
  return { ...report, byUrl: new Map(report.outcomes) };
}

function requests(part: string) {
  return sandbox?.service.ledger().filter((e) => e.networkUrl?.includes(part)) ?? [];
}

const profile = (slug: string) => `https://network.com/in/${slug}`;

it('retries: always-500 gets maxAttempts tries, a 500-once gets 2, a 422 and a good one 1', async () => {
  const urls = [profile('jane-broken'), profile('ann-flaky'), profile('bob-nodomain'), profile('cy-twombly')];
  const report = await lookup(urls);
  expect(report.byUrl.get(urls[0])).toMatchObject({ kind: 'error', error: 'server_error', status: 500 });
  expect(report.byUrl.get(urls[1])).toMatchObject({ kind: 'found' });
  expect(report.byUrl.get(urls[2])).toMatchObject({ kind: 'unprocessable' });
  expect(report.byUrl.get(urls[3])).toMatchObject({ kind: 'found' });
  expect(requests('jane-broken')).toHaveLength(FAST_RETRY.maxAttempts);
  expect(requests('ann-flaky')).toHaveLength(2);
  expect(requests('bob-nodomain')).toHaveLength(1);
  expect(requests('cy-twombly')).toHaveLength(1);
  expect(report.requestsSent).toBe(FAST_RETRY.maxAttempts + 2 + 1 + 1);
});

it('no retry of 401: one request, and the run halts', async () => {
  const report = await lookup([profile('jane-doe')], { key: 'not-the-key-1234567' });
  expect(report.halt).toMatchObject({ error: 'unauthorized', effect: 'stop' });
  expect(sandbox?.service.ledger()).toHaveLength(1);
});

describe('after a fetchAll that threw as a whole', () => {
  // Batches of 5: the first five, then the next five, and so on.
  const slugs = [
    'ann-able',
    'ben-baker',
    'cat-cole',
    'dan-dunn',
    'eve-east',
    'fred-ford',
    'gil-gray',
    'hal-hunt',
    'jon-jury',
    'ivy-ince',
  ];
  const urls = slugs.map(profile);
  const lostAnswer = {
    kind: 'unusable',
    lost: true,
    message: expect.stringMatching(
      /^The answer was lost on the way: .+; the service may have charged a credit\.$/,
    ),
  };

  it('every answer of the batch is kept as lost (the service charged it), none is sent again; the next batch goes on', async () => {
    // The sandbox looks `lost-answer-…` up, charges it, then resets the connection before the answer.
    const withLost = [...urls.slice(0, 5), profile('lost-answer-kim-lee'), ...urls.slice(5, 9)];
    const report = await lookup(withLost, { concurrency: 5 });
    expect(report.halt).toBeUndefined();
    for (const url of withLost.slice(0, 5)) expect(report.byUrl.get(url)).toMatchObject({ kind: 'found' });
    for (const url of withLost.slice(5))
      expect(report.byUrl.get(url)).toEqual({ ...lostAnswer, profile: {} });
    expect(report.requestsSent).toBe(10);
    for (const slug of [...slugs.slice(0, 9), 'lost-answer-kim-lee']) expect(requests(slug)).toHaveLength(1);
    expect(requests('lost-answer-kim-lee').map((e) => [e.status, e.charged])).toEqual([['reset', 1]]);
    // Each charged once: the lost batch too (its answers came, but the call threw).
    expect(sandbox?.service.chargesByUrl()).toEqual(Object.fromEntries(withLost.map((url) => [url, 1])));
  });

  it('a lost batch does not halt; a 402 in the next one does, the rest stay unsent, each paid at most once', async () => {
    // The first batch: ivy reset (nothing charged), 4 charged, 2 credits left; the second: 2 charged, then 402s.
    const ordered = [urls[9], ...urls.slice(0, 9), profile('kay-kent'), profile('lou-lane')];
    const report = await lookup(ordered, {
      credits: 6,
      concurrency: 5,
      faults: { failFirst: { 'ivy-ince': { kind: 'reset', times: 99 } } },
    });
    expect(report.halt).toMatchObject({ error: 'payment_required' });
    for (const url of ordered.slice(0, 5)) expect(report.byUrl.get(url)).toMatchObject(lostAnswer);
    expect(ordered.slice(5, 10).map((url) => report.byUrl.get(url))).toEqual([
      expect.objectContaining({ kind: 'found' }),
      expect.objectContaining({ kind: 'found' }),
      expect.objectContaining({ error: 'payment_required' }),
      expect.objectContaining({ error: 'payment_required' }),
      expect.objectContaining({ error: 'payment_required' }),
    ]);
    for (const url of ordered.slice(10)) expect(report.byUrl.has(url)).toBe(false);
    expect(report.requestsSent).toBe(10);
    for (const slug of slugs) expect(requests(slug)).toHaveLength(1);
    const charges = sandbox?.service.chargesByUrl() ?? {};
    expect(Object.values(charges)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(charges[profile('ivy-ince')]).toBeUndefined();
  });

  it('at the deadline the batches stop: URLs not sent get no outcome (the caller sends them later)', async () => {
    // Every request takes 1 s and the deadline is a minute away: once the first (lost) batch is answered, the test
    // moves the environment's clock past the deadline, so at most one more batch (already under way) goes out.
    const many = [...urls, ...Array.from({ length: 10 }, (_, i) => profile(`max-more-${'abcdefghij'[i]}`))];
    const report = await lookup(many, {
      budgetMs: 60_000,
      concurrency: 5,
      faults: { latencyMs: 1000, failFirst: { 'ann-able': { kind: 'reset', times: 99 } } },
      during: async (environment, server) => {
        await waitFor(() => server.service.ledger().length >= 5, 30_000);
        environment.advanceClock(120_000);
      },
    });
    expect([5, 10]).toContain(report.requestsSent);
    expect(report.outcomes).toHaveLength(report.requestsSent);
    for (const url of many.slice(0, 5)) expect(report.byUrl.get(url)).toMatchObject(lostAnswer);
    many.forEach((url, index) => {
      const sent = index < report.requestsSent;
      expect(report.byUrl.has(url)).toBe(sent);
      expect(sandbox?.service.ledger().filter((e) => e.networkUrl === url)).toHaveLength(sent ? 1 : 0);
    });
  });
});
