/**
 * The lookup session (src/lookup/session.ts, openLookup) over the real UrlFetchApp transport
 * (src/adapters/http.ts), bundled alone and run in the emulator against the sandbox: its retries, and after a
 * fetchAll that threw as a whole, the one-at-a-time re-send that stops at a halting answer and at the deadline,
 * leaving the rest unsent. (=FINDEMAIL and the bulk run use the same session; here no store, claims or gates: a store that records nothing.)
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
        var batch = { toService: noop, keep: noop, drop: noop, endWithoutWriting: noop };
        return { send: ask.urlKeys, first: ask.first(ask.urlKeys, new Map()), stored: new Map(), elsewhere: [], full: [],
          lost: new Map(), held: [], batch: batch };
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
    20,
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

  it('the one-at-a-time re-send stops at a 402; the rest stay unsent, each paid once', async () => {
    // 10 in the batch: 9 charged (ivy is reset) leaves 3 credits; the re-sends pay for 3, then get a 402.
    const report = await lookup(urls, {
      credits: 12,
      faults: { failFirst: { 'ivy-ince': { kind: 'reset', times: 99 } } },
    });
    expect(report.halt).toMatchObject({ error: 'payment_required' });
    expect(slugs.slice(0, 3).map((s) => report.byUrl.get(profile(s))?.kind)).toEqual([
      'found',
      'found',
      'found',
    ]);
    expect(report.byUrl.get(profile('dan-dunn'))).toMatchObject({ error: 'payment_required' });
    for (const slug of slugs.slice(4)) expect(report.byUrl.has(profile(slug))).toBe(false);
    expect(report.requestsSent).toBe(10 + 4);
    const charges = sandbox?.service.chargesByUrl() ?? {};
    for (const slug of slugs.slice(0, 3)) expect(charges[profile(slug)]).toBe(2);
    for (const slug of slugs.slice(3, 9)) expect(charges[profile(slug)]).toBe(1);
  });

  it('the re-send stops at the deadline: URLs not re-sent get no outcome (the caller retries them later)', async () => {
    // Every request takes 1 s and the deadline is a minute away: once the first re-send is answered, the test moves
    // the environment's clock past the deadline, so the re-sends stop there, however slow the machine.
    const report = await lookup(urls, {
      budgetMs: 60_000,
      faults: { latencyMs: 1000, failFirst: { 'ann-able': { kind: 'reset', times: 99 } } },
      during: async (environment, server) => {
        await waitFor(() => server.service.ledger().length >= 11, 30_000);
        environment.advanceClock(120_000);
      },
    });
    const resent = report.requestsSent - 10;
    expect(resent).toBeGreaterThanOrEqual(1);
    expect(resent).toBeLessThan(10);
    expect(report.outcomes).toHaveLength(resent);
    slugs.forEach((slug, index) => {
      const sentAgain = index < resent;
      expect(report.byUrl.has(profile(slug))).toBe(sentAgain);
      expect(requests(slug)).toHaveLength(sentAgain ? 2 : 1);
    });
  });
});
