import type { SandboxServer } from '../../sandbox/server';
import type { FaultConfig } from '../../sandbox/service';
import { KEY, lookup, ORG, post, start, waitFor } from './helpers';

const JANE = 'https://www.network.com/in/jane-doe-12ab';
const url = (slug: string) => `https://www.network.com/in/${slug}`;

describe('sandbox faults', () => {
  let sandbox: SandboxServer;

  // close() is idempotent: a test that starts its own servers closes the previous one again, harmlessly.
  afterEach(async () => {
    await sandbox?.close();
  });

  it('flaky marker: a 500 on the first request, success afterwards; configure() starts over', async () => {
    sandbox = await start();
    const flaky = url('sam-flaky');
    const first = await lookup(sandbox, flaky);
    expect(first.status).toBe(500);
    expect(first.json).toEqual({ error: 'An internal error occurred: connection time-out' });
    expect((await lookup(sandbox, flaky)).status).toBe(200);
    expect((await lookup(sandbox, flaky)).status).toBe(200);
    // Another spelling of the same profile is the same profile: no second failure.
    expect((await lookup(sandbox, 'network.com/in/sam-flaky/')).status).toBe(200);
    expect(sandbox.service.chargesByUrl()).toEqual({ 'https://network.com/in/sam-flaky': 3 });
    expect(sandbox.service.ledger()[0]).toMatchObject({
      status: 500,
      charged: 0,
      fault: '500',
      faultSource: 'flaky',
    });

    sandbox.service.configure({});
    expect((await lookup(sandbox, flaky)).status).toBe(500);
  });

  it('broken marker: always 500, never charged', async () => {
    sandbox = await start();
    for (let i = 0; i < 3; i++) expect((await lookup(sandbox, url('kim-broken'))).status).toBe(500);
    expect(sandbox.service.credits(ORG)).toBe(100);
    expect(sandbox.service.ledger().map((e) => e.faultSource)).toEqual(['broken', 'broken', 'broken']);
  });

  it('checks credits before faults: no credit gives 402 even for a broken profile', async () => {
    sandbox = await start();
    sandbox.service.setCredits(ORG, 0);
    expect((await lookup(sandbox, url('kim-broken'))).status).toBe(402);
  });

  it('failFirst: the first N matching requests fail, then they succeed; others are untouched', async () => {
    sandbox = await start({ faults: { failFirst: { 'jane-doe': { kind: '500', times: 2 } } } });
    expect((await lookup(sandbox, url('bob-smith'))).status).toBe(200);
    expect((await lookup(sandbox, JANE)).status).toBe(500);
    expect((await lookup(sandbox, JANE)).status).toBe(500);
    expect((await lookup(sandbox, JANE)).status).toBe(200);
    expect((await lookup(sandbox, JANE)).status).toBe(200);
    expect(sandbox.service.chargesByUrl()).toEqual({
      'https://network.com/in/bob-smith': 1,
      'https://network.com/in/jane-doe-12ab': 2,
    });
    expect(sandbox.service.ledger().map((e) => e.fault ?? null)).toEqual([null, '500', '500', null, null]);
  });

  it('failFirst: 429, HTML 502 and reset kinds', async () => {
    sandbox = await start({
      faults: {
        failFirst: {
          'ann-429': { kind: '429', times: 1 },
          'ann-html': { kind: 'html', times: 1 },
          'ann-reset': { kind: 'reset', times: 1 },
        },
      },
    });
    const limited = await lookup(sandbox, url('ann-429'));
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: 'Too Many Requests' });

    const html = await lookup(sandbox, url('ann-html'));
    expect(html.status).toBe(502);
    expect(html.contentType).toMatch(/^text\/html/);
    expect(html.text).toMatch(/<html>[\s\S]*Bad Gateway[\s\S]*<\/html>/);
    expect(html.json).toBeUndefined();

    // fetch's TypeError comes from another realm than jest's, hence the message rather than the class.
    await expect(lookup(sandbox, url('ann-reset'))).rejects.toThrow('fetch failed');

    for (const slug of ['ann-429', 'ann-html', 'ann-reset'])
      expect((await lookup(sandbox, url(slug))).status).toBe(200);
    expect(sandbox.service.credits(ORG)).toBe(97);
    expect(sandbox.service.ledger().slice(0, 3)).toEqual([
      expect.objectContaining({ status: 429, charged: 0, fault: '429', faultSource: 'failFirst' }),
      expect.objectContaining({ status: 502, charged: 0, fault: 'html' }),
      expect.objectContaining({ status: 'reset', charged: 0, fault: 'reset' }),
    ]);
  });

  it('resetRate: the client sees a socket error and nothing is charged', async () => {
    sandbox = await start({ faults: { resetRate: 1 } });
    const error = await lookup(sandbox, JANE).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(String((error as { cause?: unknown }).cause)).toMatch(/socket|closed|reset|ECONNRESET/i);
    expect(sandbox.service.ledger()).toEqual([expect.objectContaining({ status: 'reset', charged: 0 })]);
    expect(sandbox.service.credits(ORG)).toBe(100);
    // Other rates do not touch what is answered before a lookup.
    sandbox.service.configure({ error500Rate: 1, error429Rate: 0, htmlErrorRate: 0 });
    expect((await lookup(sandbox, JANE, 'wrong-key')).status).toBe(401);
    expect((await post(sandbox, {})).status).toBe(400);
  });

  it('resetRate is a property of the connection: a key check, a 401 and a 402 are reset too, for free', async () => {
    sandbox = await start({ faults: { resetRate: 1 } });
    const failed = (answer: Promise<unknown>) =>
      answer.then(
        () => 'answered',
        () => 'reset',
      );
    expect(await failed(post(sandbox, {}))).toBe('reset');
    expect(await failed(post(sandbox, {}, { key: 'wrong-key' }))).toBe('reset');
    sandbox.service.setCredits(ORG, 0);
    expect(await failed(lookup(sandbox, JANE))).toBe('reset');
    expect(sandbox.service.ledger().map((e) => [e.status, e.charged, e.keyCheck ?? false, e.fault])).toEqual([
      ['reset', 0, true, 'reset'],
      ['reset', 0, true, 'reset'],
      ['reset', 0, false, 'reset'],
    ]);
  });

  it("the resets of answers before a lookup come from a stream of their own: the lookups' faults do not shift", async () => {
    const statuses = async (withKeyChecks: boolean) => {
      const s = await start({ seed: 5, faults: { resetRate: 0.3 } });
      try {
        const lookups: Array<number | 'reset'> = [];
        const checks: Array<number | 'reset'> = [];
        const status = (answer: Promise<{ status: number }>) =>
          answer.then(
            (a) => a.status,
            () => 'reset' as const,
          );
        for (let i = 0; i < 40; i++) {
          if (withKeyChecks) checks.push(await status(post(s, {})));
          lookups.push(await status(lookup(s, url(`reset-${'abcdefgh'[i % 8]}-${i}`))));
        }
        return { lookups, checks };
      } finally {
        await s.close();
      }
    };
    const alone = await statuses(false);
    const mixed = await statuses(true);
    expect(mixed.lookups).toEqual(alone.lookups);
    expect(alone.lookups).toContain('reset');
    expect(alone.lookups).toContain(200);
    // The key checks are reset at about the rate too (40 draws of 0.3: between 4 and 20 is far from chance).
    const resets = mixed.checks.filter((status) => status === 'reset').length;
    expect(resets).toBeGreaterThanOrEqual(4);
    expect(resets).toBeLessThanOrEqual(20);
    expect(mixed.checks.filter((status) => status !== 'reset').every((status) => status === 400)).toBe(true);
  });

  it('429 and HTML rates', async () => {
    sandbox = await start({ faults: { error429Rate: 1 } });
    expect((await lookup(sandbox, JANE)).status).toBe(429);
    sandbox.service.configure({ htmlErrorRate: 1 });
    const html = await lookup(sandbox, JANE);
    expect(html.status).toBe(502);
    expect(html.contentType).toMatch(/^text\/html/);
    expect(sandbox.service.credits(ORG)).toBe(100);
  });

  it('rates are deterministic for a seed, and roughly the fraction asked', async () => {
    const run = async (seed: number, faults: FaultConfig, count: number) => {
      const s = await start({ seed, faults });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < count; i++) statuses.push((await lookup(s, url(`p-${i % 7}-x`))).status);
        return statuses;
      } finally {
        await s.close();
      }
    };
    const a = await run(7, { error500Rate: 0.5 }, 24);
    const b = await run(7, { error500Rate: 0.5 }, 24);
    const c = await run(8, { error500Rate: 0.5 }, 24);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);

    const many = await run(3, { error500Rate: 0.25 }, 200);
    const failures = many.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(25);
    expect(failures).toBeLessThan(75);
  });

  it('latency is applied asynchronously: parallel requests overlap', async () => {
    sandbox = await start({ faults: { latencyMs: 150 } });
    const began = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => lookup(sandbox, url(`lat-${'abcdef'[i]}`))),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);
    expect(sandbox.service.maxConcurrent).toBeGreaterThan(1);
    for (const entry of sandbox.service.ledger())
      expect(entry.endedAt - entry.startedAt).toBeGreaterThanOrEqual(140);

    sandbox.service.resetLedger();
    await lookup(sandbox, JANE);
    expect(sandbox.service.maxConcurrent).toBe(1);
  });

  it('a latency range delays every request by at least its minimum', async () => {
    sandbox = await start({ faults: { latencyMs: [60, 120] } });
    for (let i = 0; i < 4; i++) {
      const began = Date.now();
      await lookup(sandbox, JANE);
      expect(Date.now() - began).toBeGreaterThanOrEqual(55);
    }
  });

  it('slowMs: a client that gives up has still paid (the lookup was done)', async () => {
    sandbox = await start({ faults: { slowMs: 20_000 } });
    const controller = new AbortController();
    const request = fetch(`${sandbox.baseUrl}network_finder`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-KEY': KEY },
      body: JSON.stringify({ network_url: JANE }),
      signal: controller.signal,
    });
    request.catch(() => undefined);
    // Gives up only once the server holds the request and has decided it (a fixed time-out could fire before).
    await waitFor(() => sandbox.service.inFlight === 1 && sandbox.service.credits(ORG) === 99);
    controller.abort();
    await expect(request).rejects.toThrow();
    await waitFor(() => sandbox.service.ledger().length === 1);
    expect(sandbox.service.ledger()[0]).toMatchObject({ status: 200, charged: 1, clientGone: true });
    expect(sandbox.service.inFlight).toBe(0);
    expect(sandbox.service.credits(ORG)).toBe(99);
  });

  it('hold: lookups wait until released; answers before a lookup are not held; a client that leaves has paid', async () => {
    sandbox = await start();
    const service = sandbox.service;
    const release = service.hold();
    let answered = 0;
    const held = [lookup(sandbox, JANE), lookup(sandbox, url('bob-smith'))].map((answer) =>
      answer.then((a) => {
        answered += 1;
        return a.status;
      }),
    );
    await waitFor(() => service.held === 2);
    // Answered before any lookup, so not held: a wrong key's 401, a key check's 400.
    expect((await lookup(sandbox, JANE, 'wrong-key')).status).toBe(401);
    expect((await post(sandbox, {})).status).toBe(400);

    const client = new AbortController();
    const leaving = post(sandbox, { network_url: url('cy-leaves') }, { signal: client.signal });
    leaving.catch(() => undefined);
    await waitFor(() => service.held === 3);
    client.abort();
    await expect(leaving).rejects.toThrow();
    await waitFor(() => service.ledger().some((entry) => entry.clientGone));
    expect(service.ledger().find((entry) => entry.clientGone)).toMatchObject({ status: 200, charged: 1 });

    // Three round trips later the two held lookups are still unanswered, their credits taken.
    expect([answered, service.held, service.inFlight, service.chargesInFlight]).toEqual([0, 2, 2, 2]);
    expect(service.credits(ORG)).toBe(97);
    release();
    expect(await Promise.all(held)).toEqual([200, 200]);
    expect([service.held, service.chargesInFlight, service.totalCharged()]).toEqual([0, 0, 3]);
    release();
    expect((await lookup(sandbox, JANE)).status).toBe(200);

    // Two lookups pass, the third waits; one hold at a time.
    const again = service.hold(2);
    expect(() => service.hold()).toThrow(/held already/);
    expect((await lookup(sandbox, url('dee-one'))).status).toBe(200);
    expect((await lookup(sandbox, url('eve-two'))).status).toBe(200);
    const third = lookup(sandbox, url('fay-three'));
    await waitFor(() => service.held === 1);
    again();
    expect((await third).status).toBe(200);
  });

  it('failFirst slow: only the first request is delayed', async () => {
    sandbox = await start({
      faults: { failFirst: { 'jane-doe': { kind: 'slow', times: 1, delayMs: 300 } } },
    });
    const began = Date.now();
    expect((await lookup(sandbox, JANE)).status).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect((await lookup(sandbox, JANE)).status).toBe(200);
    expect(sandbox.service.ledger().map((e) => e.fault ?? null)).toEqual(['slow', null]);
    expect(sandbox.service.chargesByUrl()).toEqual({ 'https://network.com/in/jane-doe-12ab': 2 });
  });
});
