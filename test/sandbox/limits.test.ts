/**
 * The sandbox's rate-limited mode (429 above N in flight or M a second) and its long-tailed latency, over real HTTP
 * on 127.0.0.1. The latency checks test the sandbox's distribution, not the speed of anything.
 */

import { parseCli } from '../../sandbox/cliArgs';
import { LONG_TAIL_DEFAULT_CAP, latencyAt, longTailQuantile, normalQuantile } from '../../sandbox/latency';
import type { SandboxServer } from '../../sandbox/server';
import { type Answer, KEY, lookup, ORG, post, start, waitFor } from './helpers';

jest.setTimeout(30_000);

const url = (slug: string) => `https://www.network.com/in/${slug}`;
/** Distinct profiles that all have an answer (no fault markers). */
const profiles = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => url(`${prefix}-person-${String.fromCharCode(97 + (i % 26))}${i}`));

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** Runs `tasks` with at most `width` at once (bounded: every task runs once). */
async function pool<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
  return results;
}

describe('the rate-limited mode', () => {
  let sandbox: SandboxServer;

  afterEach(async () => {
    await sandbox?.close();
  });

  it('with 5 in flight allowed, 20 concurrent lookups: exactly 15 get 429 with Retry-After, none of them charged', async () => {
    sandbox = await start({ faults: { rateLimit: { maxInFlight: 5, retryAfterSeconds: 2 } } });
    const urls = profiles(20, 'burst');
    // The admitted five are held until all twenty have arrived: fifteen refused, five waiting.
    const release = sandbox.service.hold();
    const sent = Promise.all(urls.map((u) => lookup(sandbox, u)));
    try {
      await waitFor(() => sandbox.service.held === 5 && sandbox.service.ledger().length === 15);
    } finally {
      release();
    }
    const answers = await sent;
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(15);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('2');
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(answer.json.error).toMatch(/^Too Many Requests: too many requests in flight/);
    }
    expect(sandbox.service.credits(ORG)).toBe(100 - 5);
    const ledger = sandbox.service.ledger();
    expect(ledger).toHaveLength(20);
    const limited = ledger.filter((e) => e.status === 429);
    expect(limited).toHaveLength(15);
    expect(
      limited.every((e) => e.charged === 0 && e.fault === '429' && e.faultSource === 'inFlightLimit'),
    ).toBe(true);
    expect(limited.every((e) => urls.includes(e.networkUrl ?? ''))).toBe(true);
    // A refusal is answered at once: all fifteen ended while the admitted five were held (the wait above).
    expect(limited.every((e) => e.delayMs === 0)).toBe(true);
    expect(sandbox.service.totalCharged()).toBe(5);
    expect(Object.keys(sandbox.service.chargesByUrl())).toHaveLength(5);

    // Once those five have ended, five at once are admitted again.
    sandbox.service.configure({ rateLimit: { maxInFlight: 5 } });
    const again = await Promise.all(profiles(5, 'after').map((u) => lookup(sandbox, u)));
    expect(again.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('with 10 a second allowed: the 11th within a second gets 429 until the window frees (a sliding window)', async () => {
    let now = 50_000;
    sandbox = await start({ clock: () => now, faults: { rateLimit: { maxPerSecond: 10 } } });
    const first = await Promise.all(profiles(25, 'window').map((u) => lookup(sandbox, u)));
    expect(first.filter((a) => a.status === 200)).toHaveLength(10);
    const refused = first.filter((a) => a.status === 429);
    expect(refused).toHaveLength(15);
    expect(refused.every((a) => a.headers.get('retry-after') === '1')).toBe(true);
    expect(refused[0].json.error).toMatch(/per second/);
    expect(sandbox.service.ledger().filter((e) => e.faultSource === 'perSecondLimit')).toHaveLength(15);

    // 999 ms later the ten are still in the window; at 1,000 ms they have left it.
    now += 999;
    expect((await lookup(sandbox, url('window-late'))).status).toBe(429);
    now += 1;
    const second = await Promise.all(profiles(5, 'early').map((u) => lookup(sandbox, u)));
    expect(second.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    // The window slides: 500 ms on, five more fill it; the next must wait until the first five age out.
    now += 500;
    const third = await Promise.all(profiles(6, 'later').map((u) => lookup(sandbox, u)));
    expect(third.filter((a) => a.status === 200)).toHaveLength(5);
    expect(third.filter((a) => a.status === 429).map((a) => a.headers.get('retry-after'))).toEqual(['1']);
    now += 499;
    expect((await lookup(sandbox, url('not-yet'))).status).toBe(429);
    now += 1;
    expect((await lookup(sandbox, url('now-then'))).status).toBe(200);
    expect(sandbox.service.credits(ORG)).toBe(100 - 21);
    expect(sandbox.service.ledger().filter((e) => e.status === 429 && e.charged !== 0)).toEqual([]);
  });

  it('is set and lifted at run time; a refusal comes before the key check; other paths are not limited', async () => {
    sandbox = await start();
    const release = sandbox.service.hold();
    const held = Promise.all(profiles(3, 'held').map((u) => lookup(sandbox, u)));
    try {
      await waitFor(() => sandbox.service.held === 3);
      // Three are under way when the limit is set: they count.
      sandbox.service.configure({ rateLimit: { maxInFlight: 3 } });
      const refused: Answer = await post(sandbox, {}, { key: 'not-a-key' });
      expect(refused.status).toBe(429);
      expect((await post(sandbox, {}, { path: '/api/v1/other' })).status).toBe(404);
    } finally {
      release();
    }
    expect((await held).map((a) => a.status)).toEqual([200, 200, 200]);
    sandbox.service.configure({});
    expect((await lookup(sandbox, url('free-again'))).status).toBe(200);
    expect(sandbox.service.faults.rateLimit).toBeUndefined();
  });

  it('rejects a bad limit', async () => {
    sandbox = await start();
    expect(() => sandbox.service.configure({ rateLimit: { maxInFlight: 0 } })).toThrow(/maxInFlight/);
    expect(() => sandbox.service.configure({ rateLimit: { maxPerSecond: 1.5 } })).toThrow(/maxPerSecond/);
    expect(() => sandbox.service.configure({ rateLimit: { retryAfterSeconds: -1 } })).toThrow(
      /retryAfterSeconds/,
    );
  });
});

describe('the long-tailed latency', () => {
  let sandbox: SandboxServer;

  afterEach(async () => {
    await sandbox?.close();
  });

  it('the normal quantile is right at known points', () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 5);
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232, 5);
  });

  it('100,000 draws have the median, p95 and p99 asked, within 3 %, and never exceed the cap', () => {
    const setting = { medianMs: 3000, p99Ms: 12_000 };
    // With 100,000 draws, 3 % is above three standard errors of each of these sample quantiles.
    const draws = Array.from({ length: 100_000 }, (_, n) => latencyAt(setting, 7, n)).sort((a, b) => a - b);
    expect(Math.abs(quantile(draws, 0.5) / 3000 - 1)).toBeLessThan(0.03);
    expect(Math.abs(quantile(draws, 0.99) / 12_000 - 1)).toBeLessThan(0.03);
    // p95 of this log-normal: median × (p99 / median)^(z95 / z99).
    const p95 = 3000 * 4 ** (1.6448536 / 2.3263479);
    expect(Math.abs(quantile(draws, 0.95) / p95 - 1)).toBeLessThan(0.03);
    expect(longTailQuantile(setting, 0.95)).toBeCloseTo(p95, 0);
    expect(draws[0]).toBeGreaterThan(0);
    expect(draws[draws.length - 1]).toBeLessThanOrEqual(LONG_TAIL_DEFAULT_CAP * 12_000);
    // The tail is long: the slowest 1 % take at least 4 times the median.
    expect(quantile(draws, 0.995)).toBeGreaterThan(4 * 3000);
    // A cap is honoured.
    const capped = Array.from({ length: 5000 }, (_, n) => latencyAt({ ...setting, maxMs: 13_000 }, 7, n));
    expect(Math.max(...capped)).toBe(13_000);
  });

  it('over HTTP: each request waits its drawn delay; the sample has the median and p95 asked; the same seed gives the same sequence', async () => {
    // Delays of hundreds of ms: a loaded machine's timer lateness (tens of ms) stays small beside them.
    const setting = { medianMs: 200, p95Ms: 600 };
    sandbox = await start({
      seed: 11,
      organizations: [{ name: ORG, keys: [KEY], credits: 1000 }],
      faults: { latencyMs: setting },
    });
    const count = 300;
    const urls = profiles(count, 'tail');
    const measured = await pool(
      urls.map((u) => async () => {
        const began = performance.now();
        const answer = await lookup(sandbox, u);
        expect(answer.status).toBe(200);
        return performance.now() - began;
      }),
      60,
    );
    const ledger = sandbox.service.ledger();
    expect(ledger).toHaveLength(count);
    // The k-th request to arrive got the k-th draw of the seed's sequence.
    expect(ledger.map((e) => e.delayMs)).toEqual(ledger.map((_, k) => latencyAt(setting, 11, k)));
    for (const entry of ledger)
      expect(entry.endedAt - entry.startedAt).toBeGreaterThanOrEqual((entry.delayMs ?? 0) - 1);
    const drawn = ledger.map((e) => e.delayMs ?? 0).sort((a, b) => a - b);
    expect(Math.abs(quantile(drawn, 0.5) / 200 - 1)).toBeLessThan(0.15);
    expect(Math.abs(quantile(drawn, 0.95) / 600 - 1)).toBeLessThan(0.2);
    // Measured by the client: at least the drawn median and p95.
    const seen = [...measured].sort((a, b) => a - b);
    expect(quantile(seen, 0.5)).toBeGreaterThanOrEqual(quantile(drawn, 0.5) - 1);
    expect(quantile(seen, 0.95)).toBeGreaterThanOrEqual(quantile(drawn, 0.95) - 1);
    // No upper bound on the time taken: how late the timers fire is the machine's business (a loaded machine made
    // the rank correlation of drawn and taken times 0.61); the promise is the draw and the wait of at least it.

    // Configuring again restarts the sequence; another service with the same seed draws the same delays.
    sandbox.service.configure({ latencyMs: setting });
    sandbox.service.resetLedger();
    for (const u of urls.slice(0, 5)) await lookup(sandbox, u);
    expect(sandbox.service.ledger().map((e) => e.delayMs)).toEqual(ledger.slice(0, 5).map((e) => e.delayMs));
  });

  it('rejects a bad distribution', async () => {
    sandbox = await start();
    const configure = (latencyMs: object) => () =>
      sandbox.service.configure({ latencyMs: latencyMs as never });
    expect(configure({ medianMs: 100 })).toThrow(/one tail percentile/);
    expect(configure({ medianMs: 100, p95Ms: 200, p99Ms: 300 })).toThrow(/one tail percentile/);
    expect(configure({ medianMs: 100, p99Ms: 80 })).toThrow(/above the median/);
    expect(configure({ medianMs: 100, p99Ms: 300, maxMs: 200 })).toThrow(/maxMs/);
    expect(configure({ medianMs: -1, p99Ms: 300 })).toThrow(/medianMs/);
  });
});

describe('the key check in the ledger', () => {
  let sandbox: SandboxServer;

  afterEach(async () => {
    await sandbox?.close();
  });

  it('a body without network_url is marked as a free key check, answered 400 or 401; a bad lookup body is not', async () => {
    sandbox = await start();
    expect((await post(sandbox, {})).status).toBe(400);
    expect((await post(sandbox, {}, { key: 'wrong' })).status).toBe(401);
    expect((await post(sandbox, { network_url: '' })).status).toBe(400);
    expect((await post(sandbox, 'not json')).status).toBe(400);
    const ledger = sandbox.service.ledger();
    expect(ledger.map((e) => [e.status, e.charged, e.keyCheck ?? false])).toEqual([
      [400, 0, true],
      [401, 0, true],
      [400, 0, false],
      [400, 0, false],
    ]);
  });
});

describe('what is answered before a lookup', () => {
  let sandbox: SandboxServer;

  afterEach(async () => {
    await sandbox?.close();
  });

  it('comes at once: a key check (400), a 401 and a 402 skip the latency, a lookup waits it; the draws stay in arrival order', async () => {
    const setting = { medianMs: 600, p95Ms: 1200 };
    sandbox = await start({ seed: 3, faults: { latencyMs: setting } });
    const timed = async (send: () => Promise<Answer>) => {
      const began = performance.now();
      const answer = await send();
      return { status: answer.status, ms: performance.now() - began };
    };
    const check = await timed(() => post(sandbox, {}));
    const refused = await timed(() => post(sandbox, {}, { key: 'wrong-key' }));
    const found = await timed(() => lookup(sandbox, url('lat-after-checks')));
    sandbox.service.setCredits(ORG, 0);
    const unpaid = await timed(() => lookup(sandbox, url('lat-no-credit')));
    expect([check.status, refused.status, found.status, unpaid.status]).toEqual([400, 401, 200, 402]);
    const ledger = sandbox.service.ledger();
    expect(ledger.map((e) => e.delayMs)).toEqual([0, 0, latencyAt(setting, 3, 2), 0]);
    // The lookup took the third draw of the sequence (each request takes one on arrival) and waited it; the others
    // waited none (the ledger's delayMs above: how long they took on the wire is the machine's).
    expect(found.ms).toBeGreaterThanOrEqual(latencyAt(setting, 3, 2) - 1);
  });
});

describe('the command line', () => {
  it('parses the rate limit and the long-tailed latency', () => {
    expect(
      parseCli([
        '--max-in-flight',
        '5',
        '--max-per-second',
        '20',
        '--retry-after',
        '3',
        '--latency-median',
        '3000',
        '--latency-p99',
        '12000',
      ]),
    ).toMatchObject({
      faults: {
        rateLimit: { maxInFlight: 5, maxPerSecond: 20, retryAfterSeconds: 3 },
        latencyMs: { medianMs: 3000, p99Ms: 12_000 },
      },
    });
    expect(
      parseCli(['--latency-median', '100', '--latency-p95', '400', '--latency-max', '2000']),
    ).toMatchObject({
      faults: { latencyMs: { medianMs: 100, p95Ms: 400, maxMs: 2000 } },
    });
    expect(parseCli([])).toMatchObject({ faults: {} });
  });

  it('rejects bad values', () => {
    expect(() => parseCli(['--max-in-flight', '0'])).toThrow(/max-in-flight/);
    expect(() => parseCli(['--max-per-second', 'x'])).toThrow(/max-per-second/);
    expect(() => parseCli(['--latency-p99', '900'])).toThrow(/--latency-median/);
    expect(() => parseCli(['--latency', '100', '--latency-median', '100', '--latency-p99', '300'])).toThrow(
      /not both/,
    );
    expect(() => parseCli(['--latency-median', '100'])).toThrow(/one tail percentile/);
    expect(() => parseCli(['--latency-median', '100', '--latency-p99', '50'])).toThrow(/above the median/);
  });
});
