/**
 * =FINDEMAIL at the platform's limit, through dist/Code.js in the emulator against the sandbox: a new spreadsheet's
 * range of 100 is answered in one evaluation with fetchAll at 10 at once; a slow answer sent early returns inside the
 * limit; an
 * execution the platform ends mid-send leaves no charge out of the credits log, and its profiles (charged, their
 * answers lost) are not bought again; LockService's refusal is answered
 * at once. The 30 s limit and the 26 s budget are scaled down (emulator limit, FINDEMAIL_BUDGET_MS) where a test
 * waits for them, keeping their ratio; what is asserted is counted (batches, lock calls, credits), not timed.
 */
import { normalizeProfileUrl } from '../../../sandbox/profiles';
import { CREDITS_SHEET } from '../../../src/core/propertyNames';
import { LOCK_BUSY } from '../../../src/formula/messages';
import { parseChargeRow } from '../../../src/store/credits';
import { waitFor } from '../../sandbox/helpers';
import { startWorld, url, type World } from '../../support/harness';
import { column, emailOf, lookupBatches, lookups } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function profiles(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => url(`${prefix}-${i}`));
}

async function openRange(urls: string[], options: Parameters<typeof startWorld>[0] = {}): Promise<World> {
  const w = await startWorld({ data: [['URL'], ...urls.map((u) => [u])], ...options });
  w.env.enter(w.ss.id, 'B2', [[`=FINDEMAIL(A2:A${urls.length + 1})`]]);
  return w;
}

/** tryLock, waitLock and releaseLock calls of one execution (what LockService's rate quota counts). */
function lockCalls(counts: Record<string, number>): number {
  return ['Lock.tryLock', 'Lock.waitLock', 'Lock.releaseLock'].reduce(
    (sum, name) => sum + (counts[name] ?? 0),
    0,
  );
}

const NOT_DONE = /^ERROR: /;

describe('a new spreadsheet at the platform limit', () => {
  it('100 new profiles at 1 s, fetchAll running 10 at once: answered in one evaluation, each paid once', async () => {
    const urls = profiles('eve-hundred', 100);
    world = await openRange(urls, { faults: { latencyMs: 1000 }, env: { fetchAllAtOnce: 10 } });
    const report = await world.env.recalculate(world.ss.id);
    expect(report.results[0]).toMatchObject({ ok: true, timedOut: false });
    expect(column(world, 'B2:B101').filter((value) => NOT_DONE.test(String(value)))).toEqual([]);
    // The first batch fits the time left were fetchAll to run 10 at once at 4 s (its parallelism is undocumented);
    // the next are sized by what the last took.
    expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
    expect(world.sandbox.service.totalCharged()).toBe(100);
  }, 60_000);

  it('one slow answer sent in the first batch returns inside the limit, every other cell answered', async () => {
    // One answer is held by the test while 20 s of the 30 s limit pass (env.passTime: the clock and the limit
    // alike), as a lookup taking 20 s of the 26 s budget would: the cell still returns inside the limit, every other
    // cell answered from the same first batch, however slow the machine.
    const urls = profiles('sam-slow', 30);
    world = await openRange(urls, { faults: { latencyMs: 200 } });
    const service = world.sandbox.service;
    const release = service.hold(29);
    let report: Awaited<ReturnType<typeof world.env.recalculate>>;
    try {
      const evaluation = world.env.recalculate(world.ss.id);
      await waitFor(() => service.held > 0, 20_000);
      world.env.passTime(20_000);
      release();
      report = await evaluation;
    } finally {
      release();
    }
    expect(report.results[0]).toMatchObject({ ok: true, timedOut: false });
    expect(column(world, 'B2:B31')).toEqual(urls.map(emailOf));
    expect(lookupBatches(world)).toEqual([30]);
  }, 60_000);

  it("40 new profiles with a verifier's long tail (a few answers near two thirds of the budget): all in two evaluations at most", async () => {
    // The first evaluation's last 5 answers are held by the test while 15.5 s of the 30 s limit pass (env.passTime),
    // as five lookups taking 60 % of the 26 s budget would, however slow the machine.
    const urls = profiles('tia-tail', 40);
    world = await openRange(urls, { faults: { latencyMs: [300, 900] } });
    const w = world;
    const service = w.sandbox.service;
    let evaluations = 0;
    const unfinished = () => column(w, 'B2:B41').some((value) => NOT_DONE.test(String(value)));
    for (; evaluations === 0 || (evaluations < 2 && unfinished()); evaluations++) {
      let report: Awaited<ReturnType<typeof w.env.recalculate>>;
      if (evaluations === 0) {
        const release = service.hold(35);
        try {
          const evaluation = w.env.recalculate(w.ss.id);
          await waitFor(() => service.held === 5, 20_000);
          w.env.passTime(15_500);
          release();
          report = await evaluation;
        } finally {
          release();
        }
      } else report = await w.env.recalculate(w.ss.id);
      expect(report.results[0]).toMatchObject({ ok: true, timedOut: false });
    }
    expect(unfinished()).toBe(false);
    expect(Object.values(w.charges()).every((n) => n === 1)).toBe(true);
  }, 60_000);
});

describe('an execution the platform ends mid-send', () => {
  it('leaves the credits log equal to the service ledger once the next evaluation has run; its answers shown lost, no profile paid again', async () => {
    const urls = profiles('kip-killed', 10);
    world = await openRange(urls, { faults: { latencyMs: 20 } });
    const service = world.sandbox.service;
    // The batch is held by the test; once it is out, the platform ends the call (its time limit), however slow the
    // machine.
    const release = service.hold();
    let killed: Awaited<ReturnType<typeof world.env.recalculate>>;
    try {
      const evaluation = world.env.recalculate(world.ss.id);
      await waitFor(() => service.held === 10, 20_000);
      expect(world.env.endByTimeLimit('custom')).toBe(1);
      killed = await evaluation;
    } finally {
      release();
    }
    expect(killed.results[0].timedOut).toBe(true);
    // The service answers (and charges) what was sent, though no execution reads the answers.
    const deadline = Date.now() + 20_000;
    while (world.sandbox.service.totalCharged() < 10 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(world.sandbox.service.totalCharged()).toBe(10);

    // Past the batch's record (it outlives a formula's 30 s), the next evaluation finds it and keeps its answers as
    // lost (maybe charged): the cells say so, and nothing is sent again.
    world.env.advanceClock(40_000);
    const next = await world.env.recalculate(world.ss.id);
    expect(next.results[0]).toMatchObject({ ok: true, timedOut: false });
    expect(column(world, 'B2:B11')).toEqual(
      urls.map(
        () =>
          'ERROR: The answer was lost on the way: its execution ended before the answer came; the service may have charged a credit. It is not looked up again unless you ask: select its URL, choose Find e-mails for the selected column, then Retry failed rows (1 credit).',
      ),
    );
    expect(lookupBatches(world)).toEqual([10]);
    const charges = world.charges();
    expect(Object.values(charges).every((n) => n === 1)).toBe(true);

    // A writing execution (opening the spreadsheet) moves the formulas' buffer into the credits log.
    const opened = await world.env.execute(
      'onOpen',
      [],
      world.as(undefined, { authMode: 'LIMITED', event: {} }),
    );
    expect(opened.ok).toBe(true);
    const rows = world.env
      .values(world.ss.id, 'A2:G100', CREDITS_SHEET)
      .flatMap((row) => parseChargeRow(row) ?? []);
    const lost = rows.filter((row) => row.outcome === 'lost');
    expect(lost.map((row) => row.profile).sort()).toEqual(urls.map(normalizeProfileUrl).sort());
    expect(rows).toHaveLength(world.sandbox.service.totalCharged());
    // Settled once: a later evaluation adds nothing.
    await world.env.recalculate(world.ss.id);
    expect(lookups(world)).toHaveLength(10);
  }, 90_000);
});

describe('LockService: few calls, and a refusal is an answer', () => {
  it('a new profile in a single cell costs one hold of the lock: at most 2 lock calls', async () => {
    world = await startWorld({ data: [['URL'], [url('lil-single')], [url('lil-second')]] });
    world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
    const first = await world.env.recalculate(world.ss.id);
    expect(column(world, 'B2')).toEqual([emailOf(url('lil-single'))]);
    expect(lockCalls(first.results[0].counts)).toBeLessThanOrEqual(2);
    world.env.enter(world.ss.id, 'B3', [['=FINDEMAIL(A3)']]);
    const second = await world.env.recalculate(world.ss.id, { cells: [{ a1: 'B3' }] });
    expect(column(world, 'B3')).toEqual([emailOf(url('lil-second'))]);
    expect(lockCalls(second.results[0].counts)).toBeLessThanOrEqual(2);
  });

  it('a refused lock: the cell tries again after pauses while its budget allows, then says so; the next cell tries too', async () => {
    world = await startWorld({
      data: [['URL'], [url('ria-refused')], [url('ria-next')]],
      env: { lockRateLimit: { calls: 0, windowMs: 60_000 } },
      scriptProperties: { FINDEMAIL_BUDGET_MS: '3000' },
    });
    world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
    const first = await world.env.recalculate(world.ss.id);
    expect(String(column(world, 'B2')[0])).toContain(LOCK_BUSY.message);
    // One refused tryLock a try; a pause of 1 to 2 s between tries, within a 3 s budget.
    expect(lockCalls(first.results[0].counts)).toBeGreaterThanOrEqual(1);
    expect(lockCalls(first.results[0].counts)).toBeLessThanOrEqual(2);
    world.env.enter(world.ss.id, 'B3', [['=FINDEMAIL(A3)']]);
    const next = await world.env.recalculate(world.ss.id, { cells: [{ a1: 'B3' }] });
    expect(String(column(world, 'B3')[0])).toContain(LOCK_BUSY.message);
    expect(lockCalls(next.results[0].counts)).toBeGreaterThanOrEqual(1);
    expect(world.sandbox.service.totalCharged()).toBe(0);
  });
});
