/**
 * A =FINDEMAIL range's key through dist/Code.js: no key check of its own (a 401 is free): a range of new URLs goes
 * out in one batch; a 401 is the cells' message, nothing paid, and halts the formulas for that key. At 10 % of
 * connections reset no profile is sent or charged more than once: an answer lost on the way is kept as lost, not sent
 * again by a later evaluation.
 */
import { predictLookup } from '../../../sandbox/profiles';
import type { LedgerEntry } from '../../../sandbox/service';
import { type Stub, startStub } from '../../bundle/helpers';
import { startWorld, url, type World } from '../../support/harness';
import { seeds, sweepAtOnce } from '../../support/sweep';
import { lookupBatches as batches, cellError, column, fillDown, lookups } from '../formula/helpers';

let world: World | undefined;
let stub: Stub | undefined;
afterEach(async () => {
  await world?.close();
  await stub?.close();
  world = undefined;
  stub = undefined;
});

function profiles(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => url(`${prefix}-${i}`));
}

const keyChecks = (w: World): LedgerEntry[] => w.sandbox.service.ledger().filter((entry) => entry.keyCheck);

/** What a cell shows when its profile was looked up: the address, or the sandbox's "no e-mail" answer. */
function answered(value: unknown, profileUrl: string): boolean {
  const prediction = predictLookup(profileUrl);
  return prediction.kind === 'found'
    ? value === prediction.email
    : value !== '' && !/^ERROR: /.test(String(value));
}

async function openRange(urls: string[], options: Parameters<typeof startWorld>[0] = {}): Promise<World> {
  const w = await startWorld({ data: [['URL'], ...urls.map((u) => [u])], ...options });
  w.env.enter(w.ss.id, 'B2', [[`=FINDEMAIL(A2:A${urls.length + 1})`]]);
  return w;
}

describe('the key check of a =FINDEMAIL range', () => {
  it('fault-free on a new spreadsheet: all 40 new profiles in one batch, no key check', async () => {
    const urls = profiles('fay-probe', 40);
    world = await openRange(urls, { faults: { latencyMs: 100 } });
    const report = await world.env.recalculate(world.ss.id);
    expect(report.results.every((result) => result.ok)).toBe(true);
    expect(column(world, 'B2:B41').every((value, i) => answered(value, urls[i]))).toBe(true);
    expect(keyChecks(world)).toEqual([]);
    expect(batches(world)).toEqual([40]);
    expect(world.sandbox.service.totalCharged()).toBe(40);
  });

  it('a single-URL cell, a range of 3, and 16 fresh single cells at once send no key check', async () => {
    const urls = profiles('sol-probe', 20);
    world = await startWorld({ data: [['URL'], ...urls.map((u) => [u])], faults: { latencyMs: 50 } });
    world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
    await world.env.recalculate(world.ss.id);
    world.env.enter(world.ss.id, 'C2', [['=FINDEMAIL(A3:A5)']]);
    await world.env.recalculate(world.ss.id);
    expect(lookups(world)).toHaveLength(4);
    // 16 cells of one new URL each, evaluated at once.
    fillDown(world, 'D', 'A', 6, 21);
    await world.env.recalculate(world.ss.id);
    expect(column(world, 'D6:D21').every((value, i) => answered(value, urls[i + 4]))).toBe(true);
    expect(lookups(world)).toHaveLength(20);
    expect(keyChecks(world)).toEqual([]);
  });

  it('a key the service refuses: the cells say so, nothing is paid, and the next cell sends nothing', async () => {
    stub = await startStub(() => ({
      status: 401,
      body: JSON.stringify({ error: 'Unauthorized: Invalid API Key or Organization not found.' }),
    }));
    const urls = profiles('rex-probe', 11);
    world = await startWorld({
      data: [['URL'], ...urls.map((u) => [u])],
      scriptProperties: { API_BASE_URL: stub.baseUrl },
    });
    world.env.enter(world.ss.id, 'C2', [['=FINDEMAIL(A3:A12)']]);
    await world.env.recalculate(world.ss.id);
    expect(cellError(world, 'C2')).toMatch(/API key was rejected/);
    // One batch, every answer a 401 (the service charges none).
    const sent = stub.requests.length;
    expect(sent).toBeLessThanOrEqual(10);
    // Formulas are halted for the key: a cell evaluated next sends nothing.
    world.env.enter(world.ss.id, 'D2', [['=FINDEMAIL(A2)']]);
    await world.env.recalculate(world.ss.id);
    expect(cellError(world, 'D2')).toMatch(/API key was rejected/);
    expect(stub.requests).toHaveLength(sent);
  });

  it('40 profiles at 10 % of connections reset, over 8 seeds: none sent or charged more than once, even evaluated again', async () => {
    // Seeds 1-8, fixed before the figures were known. Two evaluations each (what the user sees first, then a
    // recalculation).
    const urls = profiles('ria-reset', 40);
    const sentTwice = (w: World) => {
      const sent = new Map<string, number>();
      for (const entry of lookups(w))
        sent.set(entry.networkUrl ?? '', (sent.get(entry.networkUrl ?? '') ?? 0) + 1);
      return [...sent].filter(([, count]) => count > 1).map(([profile]) => profile);
    };
    const figures = await sweepAtOnce(seeds(8), async (seed) => {
      const w = await openRange(urls, { seed, faults: { latencyMs: 60, resetRate: 0.1 } });
      try {
        const report = await w.env.recalculate(w.ss.id);
        expect(report.results.every((result) => result.ok)).toBe(true);
        expect(Math.max(...Object.values(w.charges()))).toBeLessThanOrEqual(1);
        expect(sentTwice(w)).toEqual([]);
        // Every cell has its answer or says why not (its answer lost, or not reached in time).
        const shown = column(w, 'B2:B41');
        const lost = new Set<number>();
        for (const [i, value] of shown.entries()) {
          if (answered(value, urls[i])) continue;
          expect(String(value)).toMatch(
            /^ERROR: (The answer was lost on the way: .+; the service may have charged a credit\. It is not looked up again unless you ask|Not looked up in time)/,
          );
          if (/lost on the way/.test(String(value))) lost.add(i);
        }
        // Evaluated again: the lost answers are shown as they were, not sent again.
        expect((await w.env.recalculate(w.ss.id)).results.every((result) => result.ok)).toBe(true);
        const again = column(w, 'B2:B41');
        for (const i of lost) expect(again[i]).toBe(shown[i]);
        expect(sentTwice(w)).toEqual([]);
        const charges = w.charges();
        expect(Math.max(...Object.values(charges))).toBeLessThanOrEqual(1);
        return {
          seed,
          keyCheckLost: keyChecks(w).some((entry) => entry.status === 'reset'),
          batches: batches(w),
          lost: lost.size,
          profiles: Object.keys(charges).length,
          credits: w.sandbox.service.totalCharged(),
        };
      } finally {
        await w.close();
      }
    });
    const credits = figures.reduce((sum, figure) => sum + figure.credits, 0);
    const charged = figures.reduce((sum, figure) => sum + figure.profiles, 0);
    // One batch of 40 at 10 % of resets is lost almost surely (each of its answers maybe charged), and never sent
    // again: one charge a profile at most, the README's promise. The figures per seed are shown only when it fails.
    expect({ credits, charged, figures, withinOnce: credits <= charged }).toMatchObject({
      withinOnce: true,
    });
    // The faults did cost answers: the promise was tested, not met by luck.
    expect(figures.some((figure) => figure.lost > 0)).toBe(true);
  }, 180_000);
});
