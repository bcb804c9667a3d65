/** =FINDEMAIL cells and the bulk run on the same URLs: one credit per profile whatever the order. */

import { FORMULA_WORK_BUDGET_MS, POLL_FIRST_MS } from '../../../src/core/limits';
import { waitFor } from '../../sandbox/helpers';
import { LOCK_QUOTA, startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive, expectLogEqualsLedger, lanes, mismatches, start } from '../bulk/helpers';
import { column, emailOf, fillDown, lookups } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

async function warmWorkers(w: World, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => w.env.run('getEnrichmentProgress', [], w.as())));
}

describe('=FINDEMAIL with a bulk run', () => {
  it('formulas filled down and a bulk run started at once pay each URL once', async () => {
    world = await startWorld({
      env: LOCK_QUOTA,
      data: [['Profile'], ...urls(20, 'cal-dunn')],
      faults: { latencyMs: 1000 },
    });
    fillDown(world, 'H', 'A', 2, 21);
    await warmWorkers(world, 4);
    world.env.select(world.ss.id, 'A1:A21');
    const bulk = world.env.execute('enrichSelection', [], world.as());
    const formulas = world.env.recalculate(world.ss.id);
    const [slice] = await Promise.all([bulk, formulas]);
    expect(slice.ok).toBe(true);
    const done = await drive(world);
    expect(done.state).toBe('done');
    await world.env.recalculate(world.ss.id);
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(20);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D21'))).toEqual([]);
    const want = urls(20, 'cal-dunn').map(([link]) => emailOf(link));
    expect(column(world, 'H2:H21')).toEqual(want);
  });

  it('a bulk slice does not pay again for rows whose formulas got their results after the slice began', async () => {
    world = await startWorld({
      env: LOCK_QUOTA,
      data: [['Profile'], ...urls(20, 'dee-eng')],
      faults: { latencyMs: 200 },
      scriptProperties: { ENRICH_BATCH_SIZE: '5' },
    });
    const service = world.sandbox.service;
    fillDown(world, 'H', 'A', 12, 21);
    await warmWorkers(world, 4);
    world.env.select(world.ss.id, 'A1:A21');
    // The slice's first batch (rows 2-6) is held by the test: the slice has read the result store and waits on it
    // while the formulas of rows 12-21 answer, however slow the machine.
    // 20 lookups, more than one batch: the menu creates the run, the sidebar's first slice sends.
    expect(((await world.env.run('enrichSelection', [], world.as())) as { state: string }).state).toBe(
      'running',
    );
    let release = service.hold();
    let bulk: ReturnType<typeof world.env.execute> | undefined;
    try {
      bulk = world.env.execute('continueEnrichment', [], world.as());
      await waitFor(() => service.held === 5, 20_000);
      // Closed again before the held batch wakes: it stays held; the formulas' 10 lookups pass.
      release();
      release = service.hold(10);
      await world.env.recalculate(world.ss.id);
      expect(service.held).toBe(5);
    } finally {
      release();
    }
    expect(column(world, 'H12:H21')).toEqual(
      urls(20, 'dee-eng')
        .slice(10)
        .map(([link]) => emailOf(link)),
    );
    expect((await bulk).ok).toBe(true);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(20);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D21'))).toEqual([]);
  });

  it('a cell that waited on another cell starts no batch it has no time left for', async () => {
    // Always a 500: the first cell gives up and frees the URL. The test holds its request at the service until the
    // second cell is waiting on its record, then lets time pass until less than a batch's time is left in the second
    // cell's budget; the URL is freed only then, and the second cell must not send it.
    const broken = url('eve-fry-broken');
    world = await startWorld({
      env: LOCK_QUOTA,
      data: [['Profile'], [broken]],
    });
    const service = world.sandbox.service;
    // Warm workers, and an account already proven (no account check for a cell to wait on).
    await world.env.run(
      'FINDEMAIL',
      [url('eve-fry-warm')],
      world.as(undefined, { authMode: 'CUSTOM_FUNCTION' }),
    );
    await warmWorkers(world, 2);
    const paidBefore = lookups(world).length;
    const fetchesBefore = world.env.fetches.length;
    const sleepsBefore = world.env.sleeps.length;
    world.env.enter(world.ss.id, 'B2:C2', [['=FINDEMAIL(A2)', '=FINDEMAIL(A2)']]);
    let release = service.hold();
    let report: Awaited<ReturnType<typeof world.env.recalculate>>;
    try {
      const evaluation = world.env.recalculate(world.ss.id);
      const env = world.env;
      const sender = () =>
        env.fetches.slice(fetchesBefore).find((f) => f.payload?.includes('network_url'))?.execId;
      // Waiting on a claim is the only sleep of its first poll's length (a busy lock's pause is longer).
      const waiting = () =>
        env.sleeps.slice(sleepsBefore).some((s) => s.ms === POLL_FIRST_MS && s.execId !== sender());
      await waitFor(() => service.held === 1 && sender() !== undefined && waiting(), 20_000);
      world.env.passTime(FORMULA_WORK_BUDGET_MS - 3000);
      release();
      release = () => {};
      report = await evaluation;
    } finally {
      release();
    }
    expect(report.results.every((result) => result.ok)).toBe(true);
    expect(lookups(world).slice(paidBefore)).toHaveLength(1);
    const shown = [...column(world, 'B2'), ...column(world, 'C2')].map(String);
    // The cell that did not send says another cell has the profile.
    expect(shown.filter((text) => /Another cell/.test(text))).toHaveLength(1);
  });
  it('a column of =FINDEMAIL cells evaluated while four slices run: none refused by Apps Script, each cell answered or told to Refresh, one Refresh answers them all; every row written, each profile paid once', async () => {
    // 200 rows for the run, and a column of 25 cells beside it: 15 of the run's profiles and 10 of their own. Four
    // slices at once (BULK_SLICES=4, issue 40) and the cells are one person's executions together (30 at most).
    const rows = urls(200, 'fay-gill');
    const own = urls(10, 'fay-own');
    world = await startWorld({
      data: [['Profile'], ...rows],
      faults: { latencyMs: 300 },
      scriptProperties: { BULK_SLICES: '4', FETCH_MAX_CONCURRENCY: '20' },
    });
    const w = world;
    w.env.enter(w.ss.id, 'J1:J10', own);
    fillDown(w, 'H', 'A', 2, 16);
    w.env.enter(
      w.ss.id,
      'H17:H26',
      own.map((_, i) => [`=FINDEMAIL(J${i + 1})`]),
    );
    await warmWorkers(w, 6);
    const started = await start(w, 'A1:A201');
    expect(started.state).toBe('running');
    // Four lanes as the sidebar drives them, and the cells evaluated meanwhile.
    const evaluation = w.env.recalculate(w.ss.id);
    const [evaluated, ends] = await Promise.all([evaluation, lanes(w, started, 4, evaluation)]);
    expect(evaluated.results.every((result) => result.ok)).toBe(true);
    expect(ends.map((end) => end.state)).toEqual(['done', 'done', 'done', 'done']);
    expect(w.env.executions.some((e) => e.fn === 'continueEnrichment' && !e.ok)).toBe(false);
    // A cell whose profile a slice holds says so (the run pays for it); none meets "too many scripts".
    const want = [...rows.slice(0, 15), ...own].map(([link]) => emailOf(link));
    const shown = column(w, 'H2:H26').map(String);
    expect(
      shown.filter((value, i) => value !== want[i] && !/bulk run .* is looking this profile up/.test(value)),
    ).toEqual([]);
    const before = lookups(w).length;
    w.env.select(w.ss.id, 'H2:H26');
    await w.env.run('refreshFormulas', [], w.as());
    await w.env.formulasSettled();
    expect(column(w, 'H2:H26')).toEqual(want);
    expect(lookups(w)).toHaveLength(before);
    expect(mismatches(w.env.values(w.ss.id, 'A2:D201'))).toEqual([]);
    expect(chargedTwice(w)).toEqual([]);
    expect(Object.keys(w.charges())).toHaveLength(210);
    expectLogEqualsLedger(w);
  });
});
