/**
 * The bulk run's adaptive batch size through dist/Code.js (issue 12.1, issue 10.9 and 10.10): it grows to the
 * cap on a clean service, keeps under a rate limit and waits for Retry-After, stops on a redirect as on a 404,
 * and under connection resets keeps the credits near one per profile, never more than two, and reports the answers
 * lost apart. Cancel reports what the slice under way wrote and spent.
 */
import { normalizeProfileUrl } from '../../sandbox/profiles';
import { PACE_START } from '../../src/core/pace';
import { type Stub, startStub } from '../bundle/helpers';
import { waitFor } from '../sandbox/helpers';
import { ORG, startWorld, url, type World } from '../support/harness';
import { drive, mismatches, type ProgressView, start } from './helpers';

let world: World | undefined;
let stub: Stub | undefined;
afterEach(async () => {
  await world?.close();
  await stub?.close();
  world = undefined;
  stub = undefined;
});

/** `count` rows; every 10th repeats an earlier profile in another spelling. */
function rows(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) =>
    i % 10 === 9 ? [`http://WWW.network.com/in/${prefix}-${i - 5}/`] : [url(`${prefix}-${i}`)],
  );
}

function distinct(data: string[][]): number {
  return new Set(data.map(([link]) => normalizeProfileUrl(link))).size;
}

/** The ledger's requests grouped by the fetchAll they came in: requests that started within `gapMs` of each other. */
function batches(w: World): number[] {
  const starts = w.sandbox.service
    .ledger()
    .map((entry) => entry.startedAt)
    .sort((a, b) => a - b);
  const sizes: number[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const at of starts) {
    if (at - last > 40) sizes.push(0);
    sizes[sizes.length - 1]++;
    last = at;
  }
  return sizes;
}

describe('adaptive batch size', () => {
  it('starts modestly and grows to the cap on a clean service: far fewer fetchAll calls than rows', async () => {
    const data = rows(600, 'gus-pace');
    world = await startWorld({ data: [['Profile'], ...data], faults: { latencyMs: 200 } });
    const first = await start(world, `A1:A${data.length + 1}`);
    const done = first.state === 'running' ? await drive(world) : first;
    expect(done.state).toBe('done');
    expect(mismatches(world.env.values(world.ss.id, `A2:D${data.length + 1}`))).toEqual([]);
    expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
    expect(Object.keys(world.charges())).toHaveLength(distinct(data));
    const sizes = batches(world);
    // 4, 16, 64, then 100 at once; never above the cap.
    expect(sizes[0]).toBe(PACE_START);
    expect(Math.max(...sizes)).toBe(100);
    expect(world.sandbox.service.maxConcurrent).toBeLessThanOrEqual(100);
    expect(sizes.length).toBeLessThan(15);
  });

  it('FETCH_MAX_CONCURRENCY caps the requests per fetchAll', async () => {
    const data = rows(120, 'ida-cap');
    world = await startWorld({
      data: [['Profile'], ...data],
      faults: { latencyMs: 50 },
      scriptProperties: { FETCH_MAX_CONCURRENCY: '10' },
    });
    await start(world, `A1:A${data.length + 1}`);
    expect((await drive(world)).state).toBe('done');
    expect(world.sandbox.service.maxConcurrent).toBe(10);
  });

  it('under a rate limit: waits for every Retry-After, finishes with no row ERROR and few 429s', async () => {
    const data = rows(400, 'ray-limit');
    world = await startWorld({
      data: [['Profile'], ...data],
      faults: { latencyMs: 100, rateLimit: { maxInFlight: 12, retryAfterSeconds: 1 } },
    });
    await start(world, `A1:A${data.length + 1}`);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.failed).toBe(0);
    expect(mismatches(world.env.values(world.ss.id, `A2:D${data.length + 1}`))).toEqual([]);
    const ledger = world.sandbox.service.ledger();
    const refused = ledger.filter((entry) => entry.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length / ledger.length).toBeLessThanOrEqual(0.05);
    // No request leaves before the Retry-After of a 429 answered earlier has passed (one execution at a time; the
    // next slice too).
    for (const limited of refused) {
      // (Its own batch's requests left with it, within a few ms; the batch's answers took 100 ms.)
      const early = ledger.filter(
        (entry) => entry.startedAt > limited.endedAt + 50 && entry.startedAt < limited.endedAt + 1000 - 5,
      );
      expect(early).toEqual([]);
    }
    expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
  });
});

describe('answers that stop or cost a run', () => {
  it('a redirect stops the run with a configuration message, as a 404 does: no row ERROR, one batch', async () => {
    stub = await startStub(() => ({
      status: 301,
      body: '',
      headers: { Location: 'https://login.example.com/', 'Content-Type': 'text/html' },
    }));
    const data = rows(30, 'ann-moved');
    world = await startWorld({
      data: [['Profile'], ...data],
      scriptProperties: { API_BASE_URL: stub.baseUrl },
    });
    const stopped = await start(world, `A1:A${data.length + 1}`);
    expect(stopped.state).toBe('stopped');
    expect(stopped.reason).toBe('configuration');
    expect(stopped.message).toBe(
      "The service address redirects (HTTP 301 to https://login.example.com/). Check API_BASE_URL: it must be the service's own address.",
    );
    expect(world.env.values(world.ss.id, `C2:C${data.length + 1}`).every((row) => row[0] === '')).toBe(true);
    // The first batch only (the adaptive size starts at PACE_START).
    expect(stub.requests).toHaveLength(PACE_START);
  });

  it('10 % of connections reset: credits within 10 % of the profiles, none charged more than twice, lost answers shown apart', async () => {
    // Enough rows that what the first lost batch costs, before the size drops, is amortised (as in a real run).
    const data = rows(900, 'kit-reset');
    world = await startWorld({
      data: [['Profile'], ...data],
      faults: { latencyMs: [0, 10], resetRate: 0.1 },
    });
    await start(world, `A1:A${data.length + 1}`);
    const done = await drive(world);
    expect(done.state).toBe('done');
    const charges = world.charges();
    const profiles = distinct(data);
    const spent = world.sandbox.service.totalCharged();
    expect(spent).toBeLessThanOrEqual(1.1 * profiles);
    expect(Math.max(...Object.values(charges))).toBeLessThanOrEqual(2);
    // Every row has a status; a row is ERROR only after its answer was lost twice (each may have been charged).
    const statuses = world.env.values(world.ss.id, `C2:C${data.length + 1}`).map((row) => row[0]);
    expect(statuses.every((status) => status !== '')).toBe(true);
    const notes = world.env.values(world.ss.id, `A2:E${data.length + 1}`).filter((row) => row[2] === 'ERROR');
    for (const row of notes) expect(String(row[4])).toMatch(/Answer lost twice/);
    // "Credits used" counts the answers received; what may have been charged for lost answers is shown apart.
    const lostSends = world.sandbox.service.ledger().filter((entry) => entry.status === 'reset').length;
    const unanswered = new Set(notes.map((row) => normalizeProfileUrl(String(row[0])))).size;
    expect(done.creditsUsed).toBe(profiles - unanswered);
    expect(done.creditsMaybeLost).toBeGreaterThanOrEqual(lostSends);
    expect(done.creditsUsed + (done.creditsMaybeLost ?? 0)).toBeGreaterThanOrEqual(spent);
    expect(done.message).toContain(
      `${done.creditsUsed} credits used, up to ${done.creditsMaybeLost} more may have been charged for answers lost to connection failures`,
    );
  });

  it('Cancel during a slice reports the rows written and the credits spent by the end of the slice', async () => {
    const data = rows(40, 'lea-stop');
    world = await startWorld({
      data: [['Profile'], ...data],
      faults: { latencyMs: 1500 },
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
    });
    const service = world.sandbox.service;
    world.env.select(world.ss.id, `A1:A${data.length + 1}`);
    const running = world.env.execute('enrichSelection', [], world.as());
    // The first window (10 rows) is answered and written; cancel while the second waits on the service.
    await waitFor(() => service.ledger().length >= 10 && service.inFlight > 0, 20_000);
    const cancelled = (await world.env.run('cancelEnrichment', [], world.as())) as ProgressView;
    expect(cancelled.state).toBe('cancelled');
    await running;
    const after = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    const written = world.env.values(world.ss.id, `C2:C${data.length + 1}`).filter((row) => row[0] !== '');
    const spent = service.totalCharged();
    expect(written.length).toBeGreaterThanOrEqual(10);
    expect(spent).toBeGreaterThanOrEqual(10);
    expect(after).toMatchObject({ state: 'cancelled', processed: written.length, creditsUsed: spent });
    expect(after.message).toBe(
      `Cancelled. Results written so far are kept (${written.length} rows; ${spent} credits used).`,
    );
    expect(service.credits(ORG)).toBe(1000 - spent);
  });
});
