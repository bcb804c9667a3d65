/**
 * No profile is charged more than twice under any fault pattern, across executions, even when
 * the document cache (best-effort) forgets everything: how many answers for a profile were lost to connection
 * failures is kept in document properties (LOST_PROPERTY), read in the read the store makes before each batch.
 *
 * The sandbox charges a lookup it answered even when the answer never arrives: a request timed out (`slow`) is
 * charged, and so is every other request of a batch whose fetchAll threw because one of them was reset (the reset
 * request itself is not charged).
 */

import { propertyCalls } from '../../../emulator';
import { LOST_MARK_MS, MAX_LOST_MARKS } from '../../../src/core/limits';
import { LOST_PROPERTY } from '../../../src/core/propertyNames';
import { lostSendsOf, withLostSends } from '../../../src/store/lostMarks';
import { findEmail } from '../../bundle/helpers';
import { startWorld, url, type World, type WorldOptions } from '../../support/harness';
import { drive, type ProgressView, start } from '../bulk/helpers';
import { storedHash } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// The emulator's fetch time-out for every request of these worlds: ordinary answers take 0-20 ms.
const TIMEOUT_MS = 1500;
const SLOW = 'tim-slow'; // every answer timed out: each send charged, each answer lost
const RESET = 'rex-reset'; // every connection reset: its batch's other answers charged and lost
const LOST_TWICE = /Answer lost twice — this profile is not sent again before (\d+ \w+ )?\d\d:\d\d/;

function lossyWorld(data: unknown[][], options: WorldOptions = {}): Promise<World> {
  return startWorld({
    data,
    ...options,
    env: { fetchTimeoutMs: TIMEOUT_MS, cacheEviction: { probability: 1, seed: 3 }, ...options.env },
    faults: {
      latencyMs: [0, 20],
      failFirst: {
        [SLOW]: { kind: 'slow', times: 999, delayMs: 4 * TIMEOUT_MS },
        [RESET]: { kind: 'reset', times: 999 },
      },
    },
  });
}

/** The most any profile was charged, from the sandbox's ledger. */
function mostCharged(w: World): number {
  return Math.max(0, ...Object.values(w.charges()));
}

/** The formula's rows (all fields), failing the test when the execution failed. */
async function evaluate(w: World, inputs: string[]): Promise<unknown[][]> {
  const result = await findEmail(
    w,
    inputs.map((input) => [input]),
  );
  if (!result.ok) throw new Error(result.error?.message);
  return result.value as unknown[][];
}

/** A new bulk run over `a1`, driven to its end (the sidebar's Start, then Continue until done). */
async function bulkRun(w: World, a1: string): Promise<ProgressView> {
  await start(w, a1);
  return drive(w);
}

const charged = (w: World, slug: string) => w.charges()[`https://network.com/in/${slug}`] ?? 0;

describe('lost answers are remembered across executions (document properties)', () => {
  it('formulas evaluated again and again with a cache that forgets: no profile charged more than twice', async () => {
    const inputs = [url('ann-able'), url(SLOW), url(RESET), url('ben-baker'), url('cat-cole')];
    world = await lossyWorld([]);
    const first = await evaluate(world, inputs);
    expect(String(first[1][6])).toMatch(LOST_TWICE);
    expect(String(first[2][6])).toMatch(LOST_TWICE);
    expect(charged(world, SLOW)).toBe(2);
    const sends = world.sandbox.service.ledger().length;
    for (let again = 0; again < 3; again++) {
      world.env.documentCache(world.ss.id).entries.clear();
      const rows = await evaluate(world, inputs);
      expect(String(rows[1][6])).toMatch(LOST_TWICE);
      expect(String(rows[2][6])).toMatch(LOST_TWICE);
    }
    // Nothing was sent again: the two lost twice are not sent for now, the others were kept.
    expect(world.sandbox.service.ledger()).toHaveLength(sends);
    expect(mostCharged(world)).toBe(2);
  }, 60_000);

  it('bulk runs started again over the failed rows: no profile charged more than twice', async () => {
    const slugs = ['ann-able', SLOW, RESET, 'ben-baker', 'cat-cole', 'dan-dunn'];
    world = await lossyWorld([['Profile'], ...slugs.map((slug) => [url(slug)])]);
    const done = await bulkRun(world, 'A1:A7');
    expect(done.state).toBe('done');
    expect(charged(world, SLOW)).toBe(2);
    // Lookups only: each run whose pace the cache lost first sends its free key check.
    const lookups = () => world?.sandbox.service.ledger().filter((entry) => !entry.keyCheck) ?? [];
    const sends = lookups().length;
    // Two more runs (a run redoes ERROR rows), each in new executions with nothing left in the cache.
    for (let run = 0; run < 2; run++) {
      world.env.documentCache(world.ss.id).entries.clear();
      expect((await bulkRun(world, 'A1:A7')).state).toBe('done');
    }
    const notes = world.env.values(world.ss.id, 'A2:E7');
    expect(notes.filter((row) => row[2] === 'ERROR').map((row) => row[0])).toEqual([url(SLOW), url(RESET)]);
    expect(lookups()).toHaveLength(sends);
    expect(mostCharged(world)).toBe(2);
  }, 90_000);

  it('two executions at once over the same failing profiles, three times over: at most two charges each', async () => {
    const slugs = [SLOW, RESET, 'eve-east', 'fred-ford', 'gil-gray', 'hal-hunt'];
    const inputs = slugs.map((slug) => url(slug));
    world = await lossyWorld([['Profile'], ...inputs.map((input) => [input])], { env: { maxConcurrent: 8 } });
    const w = world;
    for (let round = 0; round < 3; round++) {
      w.env.documentCache(w.ss.id).entries.clear();
      w.env.select(w.ss.id, 'A1:A7');
      // A formula and a bulk slice (round 1), then two formulas at once, each over every profile.
      const other =
        round === 0 ? w.env.execute('enrichSelection', [], w.as()) : evaluate(w, [...inputs].reverse());
      const [rows] = await Promise.all([evaluate(w, inputs), other]);
      expect(rows).toHaveLength(inputs.length);
    }
    expect((await drive(w)).state).not.toBe('running');
    expect(charged(w, SLOW)).toBeGreaterThan(0);
    expect(mostCharged(w)).toBeLessThanOrEqual(2);
  }, 120_000);
});

describe('the marks stay bounded', () => {
  it('expire after 6 hours (the profile may be sent again) and are pruned when marks are written', async () => {
    world = await lossyWorld([]);
    await evaluate(world, [url(SLOW), url(RESET), url('ann-able')]);
    const props = world.env.documentProperties(world.ss.id);
    // Within 6 hours: nothing sent.
    world.env.advanceClock(LOST_MARK_MS - 120_000);
    const sends = world.sandbox.service.ledger().length;
    await evaluate(world, [url(SLOW), url(RESET)]);
    expect(world.sandbox.service.ledger()).toHaveLength(sends);
    // Past them: the time-out profile goes again (a new 6 hours), and the ended marks are gone.
    world.env.advanceClock(180_000);
    const rows = await evaluate(world, [url(SLOW)]);
    expect(String(rows[0][6])).toMatch(LOST_TWICE);
    expect(charged(world, SLOW)).toBe(4);
    // Folded by the next writing execution (the sidebar opens): one mark left, the time-out profile's, lost twice
    // (hash, 2, until when); the marks of the first losses ended with their 6 hours.
    await world.env.run('getSidebarState', [], world.as());
    expect(props.get(LOST_PROPERTY)).toMatch(new RegExp(`^${storedHash(url(SLOW))}2[0-9a-z]{6}$`));
  }, 60_000);

  it(`keep at most ${MAX_LOST_MARKS}: past it the marks ending first are dropped, the new ones kept`, async () => {
    world = await lossyWorld([]);
    const props = world.env.documentProperties(world.ss.id);
    let seeded = '';
    const start = world.env.now() - 3600_000;
    for (let i = 0; i < MAX_LOST_MARKS; i++)
      seeded = withLostSends(seeded, [`network.com/in/old-${i}`], start + i * 1000);
    props.set({ [LOST_PROPERTY]: seeded });
    await evaluate(world, [url(SLOW)]);
    const value = props.get(LOST_PROPERTY) ?? '';
    expect(value.length).toBe(MAX_LOST_MARKS * 21);
    expect(value.length).toBeLessThanOrEqual(9 * 1024);
    // The time-out profile (lost twice) is remembered; it is not sent again.
    const sends = world.sandbox.service.ledger().length;
    await evaluate(world, [url(SLOW)]);
    expect(world.sandbox.service.ledger()).toHaveLength(sends);
    expect(charged(world, SLOW)).toBe(2);
  }, 60_000);
});

describe('no extra property calls when nothing is lost', () => {
  // The figures main had before the marks moved from the cache into document properties (the same scenario),
  // but for the cached evaluation's configuration read, which the script cache now spares.
  it('a paying formula, a cached evaluation and a clean bulk run cost what they did', async () => {
    const inputs = ['ann-able', 'ben-baker', 'cat-cole', 'dan-dunn'].map((slug) => url(slug));
    const rows = Array.from({ length: 20 }, (_, i) => [url(`clean-${i}-run`)]);
    // One window of 20 (ENRICH_BATCH_SIZE): the adaptive pace's ramp would send this short run in a number of
    // windows that the batches' times decide.
    world = await startWorld({ data: [['Profile'], ...rows], scriptProperties: { ENRICH_BATCH_SIZE: '20' } });
    const table = inputs.map((input) => [input]);
    const paying = await findEmail(world, table);
    const cached = await findEmail(world, table);
    expect([paying.ok, cached.ok]).toEqual([true, true]);
    // 2 more, once per spreadsheet: the first paying formula checks that it may write document properties (a
    // write read back, src/formula/writeCheck.ts); the next one finds the flag in the read it makes anyway. 1 more,
    // at most once an hour: the pace kept for days in a document property (src/lookup/pace.ts).
    // 17: one read of the document properties fewer than before batch records (18).
    expect(propertyCalls(paying.counts)).toBe(17);
    const nextPaying = await findEmail(world, [
      [url('eve-east')],
      [url('fay-ford')],
      [url('gus-gray')],
      [url('hal-hill')],
    ]);
    expect(nextPaying.ok).toBe(true);
    // (fewer than the first: the account is known now, so no account check marker round trip)
    expect(propertyCalls(nextPaying.counts)).toBeLessThanOrEqual(15);
    // 1 since formulas take the script configuration from the script cache (test/e2e/store/configCache.test.ts).
    expect(propertyCalls(cached.counts)).toBe(1);
    world.env.resetCounts();
    expect((await bulkRun(world, 'A1:A21')).state).toBe('done');
    expect(world.sandbox.service.totalCharged()).toBe(28);
    // 39 (38 before batch records): fewer reads (each hold of the lock reads the document properties once for
    // the fold, the job and the batch's check), and a delete for each property folded (each batch's record and
    // answers, the formulas' and the run's), where the formulas' buffer was moved in one rewrite of the whole
    // store. Besides: Start's key check (the starter's key read, the job read again under the
    // lock that creates it), Google's daily quota of web requests (the person's count read by each plan, read and
    // written by the slice), and what the key's service took (Start reads the key's figure; the slice keeps it).
    expect(propertyCalls(world.env.counts)).toBe(39);
    expect(world.env.documentProperties(world.ss.id).get(LOST_PROPERTY)).toBeNull();
  }, 60_000);
});

describe("the marks' format (src/store/lostMarks.ts)", () => {
  const now = Date.UTC(2026, 0, 1);
  it('counts lost sends per URL for 6 hours after the last one; ignores what it cannot read', () => {
    let value = withLostSends(null, ['network.com/in/a', 'network.com/in/b'], now);
    value = withLostSends(value, ['network.com/in/a'], now + 3600_000);
    const keys = ['network.com/in/a', 'network.com/in/b', 'network.com/in/c'];
    expect(Object.fromEntries(lostSendsOf(value, keys, now + 3600_000))).toEqual({
      'network.com/in/a': 2,
      'network.com/in/b': 1,
    });
    // b's six hours are over, a's (counted again an hour later) not yet.
    expect(Object.fromEntries(lostSendsOf(value, keys, now + LOST_MARK_MS + 60_000))).toEqual({
      'network.com/in/a': 2,
    });
    // Pruned at the next write.
    expect(withLostSends(value, [], now + LOST_MARK_MS + 60_000)).toHaveLength(21);
    expect(lostSendsOf('{"not":"marks"}', keys, now).size).toBe(0);
    expect(lostSendsOf(undefined, keys, now).size).toBe(0);
  });
});
