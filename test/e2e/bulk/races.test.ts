/**
 * Bulk runs racing themselves and the user: Pause/Resume and a lease that ran out while a slice still waits on
 * the service, oversized cell texts in the job's state, cells the run must leave alone, columns it must not take
 * over, and the fallback triggers of two spreadsheets.
 */

import type { ExecutionResult } from '../../../emulator';
import { waitFor } from '../../sandbox/helpers';
import {
  API_KEY_PROPERTY,
  LOCK_QUOTA,
  LOCK_QUOTA_WINDOW_MS,
  OWNER,
  OWNER_KEY,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { chargedTwice, drive, mismatches, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TITLES = ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'];

function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

async function warmWorkers(w: World, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => w.env.run('getEnrichmentProgress', [], w.as())));
}

/** Whether the promise has settled yet. */
function ended(promise: Promise<unknown>): () => boolean {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return () => settled;
}

/** A slice refused by the lock quota: the drive pauses (the emulator's clock) one quota window, as the sidebar does. */
const QUOTA_WINDOW_MS = LOCK_QUOTA_WINDOW_MS;

describe('bulk enrichment races', () => {
  it('Pause then Resume while the first slice waits on the service charges no URL twice', async () => {
    world = await startWorld({ env: LOCK_QUOTA, data: [['Profile'], ...urls(10, 'pia-ross')] });
    const service = world.sandbox.service;
    await warmWorkers(world, 3);
    world.env.select(world.ss.id, 'A1:A11');
    // The first slice's lookups are held by the test until Pause has landed and Resume has done its part.
    const release = service.hold();
    const first = world.env.execute('enrichSelection', [], world.as());
    let resumed: Promise<ExecutionResult> = first;
    try {
      // The whole batch, its ten profiles, at the service (requests of one fetchAll arrive one by one).
      await waitFor(() => service.held >= 10, 10_000);
      const firstHeld = service.held;
      const paused = (await world.env.run('pauseEnrichment', [], world.as())) as ProgressView;
      expect(paused.state).toBe('paused');
      resumed = world.env.execute('resumeEnrichment', [], world.as());
      const resumeEnded = ended(resumed);
      // Resume returns, or its own lookups wait too.
      await waitFor(() => resumeEnded() || service.held > firstHeld, 10_000);
    } finally {
      release();
    }
    const [a, b] = await Promise.all([first, resumed]);
    expect(a.ok && b.ok).toBe(true);
    const done = await drive(world, 400, QUOTA_WINDOW_MS);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(10);
    expect(done.creditsUsed).toBe(10);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D11'))).toEqual([]);
  });

  it('a slice past its time budget still holds the lease while its last batch waits on the service', async () => {
    world = await startWorld({
      env: LOCK_QUOTA,
      data: [['Profile'], ...urls(3, 'quin-tate')],
      scriptProperties: { ENRICH_STEP_BUDGET_MS: '1' },
    });
    const service = world.sandbox.service;
    await warmWorkers(world, 2);
    world.env.select(world.ss.id, 'A1:A4');
    // The first slice's last batch is held by the test until the second slice has done its part.
    const release = service.hold();
    const first = world.env.execute('enrichSelection', [], world.as());
    let continued: Promise<ExecutionResult> = first;
    try {
      // The whole batch, its three profiles, at the service (requests of one fetchAll arrive one by one).
      await waitFor(() => service.held >= 3, 10_000);
      const firstHeld = service.held;
      // Within Apps Script's 6-minute limit the first execution may still be running: its rows stay its own.
      world.env.advanceClock(60_000);
      continued = world.env.execute('continueEnrichment', [], world.as());
      const secondEnded = ended(continued);
      // The second slice returns, or its own lookups wait too (rows taken twice: a failure below).
      await waitFor(() => secondEnded() || service.held > firstHeld, 10_000);
    } finally {
      release();
    }
    const second = await continued;
    expect((second.value as ProgressView).state).toBe('running');
    expect((await first).ok).toBe(true);
    const done = await drive(world, 400, QUOTA_WINDOW_MS);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D4'))).toEqual([]);
  });

  it('runs when a header and a first row hold 10,000 characters (the job state stays small)', async () => {
    const long = 'x'.repeat(10_000);
    world = await startWorld({ env: LOCK_QUOTA, data: [[`Profiles ${long}`], [long], [url('ray-uhl')]] });
    world.env.select(world.ss.id, 'A1:A3');
    const started = await world.env.execute('enrichSelection', [], world.as());
    expect(started.error?.message).toBeUndefined();
    expect(started.ok).toBe(true);
    const done = await drive(world, 400, QUOTA_WINDOW_MS);
    expect(done.state).toBe('done');
    const rows = world.env.values(world.ss.id, 'A2:E3');
    expect(rows[0][2]).toBe('INVALID_URL');
    expect(mismatches(rows.slice(1))).toEqual([]);
  });

  it('leaves a formula in an output cell of a row without URL between two processed rows', async () => {
    world = await startWorld({ env: LOCK_QUOTA, data: [TITLES, [url('sue-vale')], [''], [url('tom-west')]] });
    world.env.enter(world.ss.id, 'E3', [['=1+1']]);
    await start(world, 'A1:A4');
    const done = await drive(world, 400, QUOTA_WINDOW_MS);
    expect(done.state).toBe('done');
    expect(world.env.formulas(world.ss.id, 'E3')[0][0]).toBe('=1+1');
    expect(mismatches(world.env.values(world.ss.id, 'A2:D4'))).toEqual([]);
  });

  it('a re-check spends no credit on a row whose Note the person wrote over, and says the row has no result', async () => {
    world = await startWorld({ env: LOCK_QUOTA, data: [['Profile'], [url('uma-wolf')], [url('val-xu')]] });
    await start(world, 'A1:A3');
    expect((await drive(world, 400, QUOTA_WINDOW_MS)).state).toBe('done');
    const before = world.env.values(world.ss.id, 'B2:D2');
    world.env.enter(world.ss.id, 'E2', [['call her first']]);
    world.sandbox.service.resetLedger();
    await start(world, 'A1:A3', { recheck: true });
    const done = await drive(world, 400, QUOTA_WINDOW_MS);
    expect(done.state).toBe('done');
    expect(Object.keys(world.charges()).filter((key) => key.includes('uma-wolf'))).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(1);
    expect(world.env.values(world.ss.id, 'E2')[0][0]).toBe('call her first');
    expect(world.env.values(world.ss.id, 'B2:D2')).toEqual(before);
    expect(done.message).toMatch(/no result/);
  });

  it('does not take over a user column of YES/NO next to the URLs', async () => {
    world = await startWorld({
      env: LOCK_QUOTA,
      data: [['Profile'], [url('wes-york'), '', 'YES'], [url('xia-zorn'), '', '']],
    });
    await start(world, 'A1:A3', { placement: 'insert' });
    const done = await drive(world, 400, QUOTA_WINDOW_MS);
    expect(done.state).toBe('done');
    // Four result columns were inserted: the user's column moved from C to G, untouched.
    expect(world.env.values(world.ss.id, 'G2:G3')).toEqual([['YES'], ['']]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D3'))).toEqual([]);
  });

  it("cancelling a run in one spreadsheet leaves another spreadsheet's run alone; neither needs a trigger", async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(20, 'ada-bay')],
      scriptProperties: { ENRICH_STEP_BUDGET_MS: '1', ENRICH_BATCH_SIZE: '2' },
      env: { ...LOCK_QUOTA, deployment: 'test' },
    });
    const other = world.env.createSpreadsheet({ owner: OWNER, data: [['Profile'], ...urls(20, 'bea-cox')] });
    world.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: OWNER_KEY });
    const inOther = { user: OWNER, spreadsheetId: other.id };
    expect((await start(world, 'A1:A21')).state).toBe('running');
    world.env.select(other.id, 'A1:A21');
    expect(((await world.env.run('enrichSelection', [], inOther)) as ProgressView).state).toBe('running');
    const cancelled = (await world.env.run('cancelEnrichment', [], inOther)) as ProgressView;
    expect(cancelled.state).toBe('cancelled');
    expect(((await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView).state).toBe(
      'running',
    );
    expect((await drive(world, 400, QUOTA_WINDOW_MS)).state).toBe('done');
    expect(mismatches(world.env.values(world.ss.id, 'A2:D21'))).toEqual([]);
    expect(world.env.triggers).toHaveLength(0);
  });
});
