/**
 * One hold of the lock by a slice (src/bulk/step.ts) over the bulk run's unit world (./world.ts): what is final
 * folded (the run's credits counted in its job by its id), the last window written only while it is still the
 * slice's, its batch observed in the run's pace, then the next window leased with its batch, only while the run is
 * running. The job is read in every hold: a Pause stored before it leases nothing.
 */
import { pauseEnrichment } from '../../src/bulk/controls';
import type { Job } from '../../src/bulk/job';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import { runCharges } from '../../src/bulk/runCharges';
import { paceNow } from '../../src/bulk/runPace';
import {
  applyFolded,
  holdOnce,
  type Leased,
  lookForRoom,
  type Sent,
  type SliceSetup,
} from '../../src/bulk/step';
import { EXECUTION_LIMIT_MS } from '../../src/core/limits';
import { ANSWERS_PREFIX, SENDING_PREFIX } from '../../src/core/propertyNames';
import { DEFAULT_NETWORK_HOSTS } from '../../src/core/url';
import { PACE_START, UNSEEN_FAULT_GROWTH } from '../../src/lookup/pace';
import { emptyReport } from '../../src/lookup/session';
import { DocumentBusyError } from '../../src/platform/errors';
import { encodeResult } from '../../src/store/codec';
import { contextTuple } from '../../src/store/credits';
import type { Folded } from '../../src/store/ports';
import { found } from '../support/results';
import { addressOf, type BulkWorld, bulkWorld, profile, start } from './world';

const ROWS = 300;
/** The most requests one fetchAll of a slice sends (FETCH_MAX_CONCURRENCY). */
const BATCH_CAP = 100;

/** A run of ROWS profiles in column A (no header), started; the setup of a slice of it holding `token`. */
function slice(token = 'slice-A') {
  const rows = Array.from({ length: ROWS }, (_, index) => [profile(`p${index}`)]);
  const world = bulkWorld(rows, { row: 1, column: 1, rows: ROWS, columns: 1 });
  expect(start(world.platform).progress.state).toBe('running');
  return { world, setup: setupOf(world, token) };
}

function setupOf(world: BulkWorld, token: string): SliceSetup {
  const { platform } = world;
  const job = loadJob(platform) as Job;
  const store = platform.resultStore(runCharges(job));
  const now = platform.clock.now();
  return {
    platform,
    jobId: job.id,
    runnerId: 'runner-1',
    token,
    until: now + EXECUTION_LIMIT_MS,
    deadline: now + 60_000,
    store,
    ports: platform.lookupPorts(true, runCharges(job), store),
    sheet: world.sheet,
    width: 5,
    hosts: DEFAULT_NETWORK_HOSTS,
    apiKey: 'sk_test_key_000000000000',
    endpoint: 'https://api.example.test/v1',
    batchCap: BATCH_CAP,
    slices: 3,
    cap: 300,
  };
}

/** The leased window's batch as if sent: every profile found, one clean fetchAll of `durationMs`. */
function answered(leased: Leased, durationMs = 400): Sent {
  const report = emptyReport();
  for (const [key, url] of leased.window.wanted) report.outcomes.set(key, found(addressOf(url)));
  const size = leased.window.wanted.size;
  return {
    ...leased,
    report,
    samples: [{ size, durationMs, failures: 0, endedAt: leased.sentAt + durationMs }],
    notBefore: 0,
  };
}

/** The job as stored now. */
const jobOf = (world: BulkWorld) => loadJob(world.platform) as Job;
const filled = (world: BulkWorld) =>
  world.sheet.rows.filter((row) => String(row[1] ?? '').includes('@')).length;
const records = (world: BulkWorld) =>
  [...world.store.props.keys()].filter((name) => name.startsWith(SENDING_PREFIX));

describe('holdOnce', () => {
  it("leases the next window to the slice with its batch's claims and records, the run's pace shared", () => {
    const { world, setup } = slice();
    const hold = holdOnce(setup, undefined, true, false);
    const next = hold?.next as Leased;
    expect(next.window.from).toBe(1);
    // Alone, the slice sends the whole pace.
    expect(next.window.wanted.size).toBe(PACE_START);
    expect(next.claimed.first?.first).toHaveLength(PACE_START);
    expect(next.atService).toBe(PACE_START);
    const job = jobOf(world);
    expect(job.windows).toEqual([
      { from: 1, to: PACE_START, token: 'slice-A', until: setup.until, n: PACE_START, at: next.sentAt },
    ]);
    expect(job.leaseUntil).toBe(setup.until);
    expect(records(world).map((name) => JSON.parse(world.store.props.get(name) as string).w)).toEqual([
      'slice-A',
    ]);
  });

  it('a Pause stored before the hold: no next window, nothing claimed, the job as paused', () => {
    const { world, setup } = slice();
    pauseEnrichment(world.platform);
    const hold = holdOnce(setup, undefined, true, false);
    expect(hold?.next).toBeUndefined();
    expect(hold?.waitMs).toBeUndefined();
    expect(hold?.job?.state).toBe('paused');
    expect(jobOf(world).windows ?? []).toEqual([]);
    expect(records(world)).toEqual([]);
  });

  it("writes the last window while it is still the slice's, observes its batch in the pace, then leases the next", () => {
    const { world, setup } = slice();
    const first = holdOnce(setup, undefined, true, false)?.next as Leased;
    const hold = holdOnce(setup, answered(first), true, false);
    expect(filled(world)).toBe(PACE_START);
    const job = jobOf(world);
    expect(job.counts).toMatchObject({ found: PACE_START, processed: PACE_START });
    // A clean batch of the whole pace, no fault seen: the run's pace grows eightfold, the next window as big as a batch.
    expect(job.pace?.size).toBe(Math.min(setup.cap, UNSEEN_FAULT_GROWTH * PACE_START));
    expect(hold?.next?.window.from).toBe(PACE_START + 1);
    expect(hold?.next?.window.wanted.size).toBe(Math.min(BATCH_CAP, UNSEEN_FAULT_GROWTH * PACE_START));
    expect(job.windows?.map((window) => [window.from, window.token])).toEqual([[PACE_START + 1, 'slice-A']]);
  });

  it("a window another slice holds now (this one's lease ended) is not written: nothing counted, the pace untouched", () => {
    const { world, setup } = slice();
    const first = holdOnce(setup, undefined, true, false)?.next as Leased;
    // The slice's time ran out and another slice leased its window again.
    const job = jobOf(world);
    job.windows = [{ from: 1, to: PACE_START, token: 'slice-B', until: setup.until + 1, n: PACE_START }];
    saveJob(world.platform, job);
    const writes = world.sheet.writes;
    const hold = holdOnce(setup, answered(first), false, false);
    expect(world.sheet.writes).toBe(writes);
    expect(filled(world)).toBe(0);
    expect(hold?.job?.counts.processed).toBe(0);
    expect(hold?.job?.pace).toEqual(job.pace);
    expect(hold?.job?.windows).toEqual(job.windows);
  });

  it("another run's slice (the run was replaced) writes nothing and leases nothing", () => {
    const { world, setup } = slice();
    const first = holdOnce(setup, undefined, true, false)?.next as Leased;
    saveJob(world.platform, { ...jobOf(world), id: 'next-run' });
    const hold = holdOnce(setup, answered(first), true, false);
    expect(hold?.job?.id).toBe('next-run');
    expect(hold?.next).toBeUndefined();
    expect(filled(world)).toBe(0);
  });

  it('at a limit the service showed, alone it sends its part of the split; alone still after that batch (a lone driver), the whole pace', () => {
    const { world, setup } = slice();
    const job = jobOf(world);
    const now = world.clock.now();
    job.pace = {
      ...paceNow(job.pace, setup.cap, now),
      size: 25,
      ceiling: 25,
      sinceThrottled: 0,
      requests: 100,
    };
    saveJob(world.platform, job);
    const first = holdOnce(setup, undefined, true, false)?.next as Leased;
    // 25 in three slices (BULK_SLICES 3 here): 8.
    expect(first.claimed.first?.first).toHaveLength(8);
    const second = holdOnce(setup, answered(first), true, false)?.next as Leased;
    expect(second.claimed.first?.first).toHaveLength(25);
    // Another slice came meanwhile: the split again.
    const other = setupOf(world, 'slice-B');
    expect(
      (holdOnce(other, undefined, true, false)?.next as Leased | undefined)?.claimed.first?.first,
    ).toBeUndefined();
    const third = holdOnce(setup, answered(second), true, false)?.next as Leased;
    expect(third.claimed.first?.first.length).toBeLessThanOrEqual(8);
  });

  /** A slice whose run's pace is full: slice-B has rows 1..40 and the whole PACE_START at the service. */
  function paceFull() {
    const { world, setup } = slice();
    const job = jobOf(world);
    job.windows = [{ from: 1, to: 40, token: 'slice-B', until: setup.until, n: PACE_START }];
    job.cursor = 41;
    saveJob(world.platform, job);
    return { world, setup };
  }

  it("the run's pace full with the other slices' batches: no window, a wait", () => {
    const { world, setup } = paceFull();
    const hold = holdOnce(setup, undefined, true, false);
    expect(hold?.next).toBeUndefined();
    expect(hold?.waitMs).toBeGreaterThanOrEqual(500);
    expect(records(world)).toEqual([]);
  });

  it("waits until the other slice's batch may be back: sent a batch's fastest time before, not half of it", () => {
    const { world, setup } = slice();
    const job = jobOf(world);
    const now = world.clock.now();
    job.pace = { ...paceNow(job.pace, setup.cap, now), fastestMs: 4000, requests: 100 };
    job.windows = [
      { from: 1, to: 40, token: 'slice-B', until: setup.until, n: job.pace.size, at: now - 1000 },
    ];
    job.cursor = 41;
    saveJob(world.platform, job);
    const hold = holdOnce(setup, undefined, true, false);
    expect(hold?.next).toBeUndefined();
    expect(hold?.waitMs).toBe(3000);
  });

  it('a waiting slice is counted among the slices until its budget ends, and looks again without the lock', () => {
    const { world, setup } = paceFull();
    expect(holdOnce(setup, undefined, true, false)?.waitMs).toBeGreaterThan(0);
    expect(jobOf(world).waiting).toEqual({ [setup.token]: setup.deadline });
    // Its looks never take the lock: a LockService that throws changes nothing.
    const refused = () => {
      throw new Error('There are too many LockService operations against the same script.');
    };
    const lock = { with: refused, withRetried: refused, tryWith: refused };
    const refusing = { ...setup, platform: { ...setup.platform, lock } };
    world.clock.sleep(600);
    expect(lookForRoom(refusing)).toBeGreaterThan(0);
    // The other slice wrote its batch: room now, the slice holds the lock for its window.
    saveJob(world.platform, { ...jobOf(world), windows: [] });
    expect(lookForRoom(refusing)).toBeUndefined();
  });

  it("a waiting slice that leaves (nothing left to lease) takes no more room in the others' shares", () => {
    const { world, setup } = paceFull();
    expect(holdOnce(setup, undefined, true, false)?.waitMs).toBeGreaterThan(0);
    // Every row leased meanwhile: slice-B's window the last one.
    saveJob(world.platform, { ...jobOf(world), cursor: ROWS + 1 });
    const hold = holdOnce(setup, undefined, true, false);
    expect([hold?.next, hold?.waitMs]).toEqual([undefined, undefined]);
    expect(jobOf(world).waiting).toEqual({});
  });

  it("folds what is final first: the run's credits counted in its job by its id, another run's not", () => {
    const { world, setup } = slice();
    const job = jobOf(world);
    const mine = contextTuple(runCharges(job));
    const theirs = contextTuple(runCharges({ ...job, id: 'other-run' }));
    const kept = (payer: string[], keys: string[], lost: string[] = []) =>
      JSON.stringify({
        t: setup.until - EXECUTION_LIMIT_MS,
        r: keys.map((key) => [key, encodeResult(found(`${key}@x`), 0)]),
        l: lost,
        c: payer,
      });
    world.store.props.set(`${ANSWERS_PREFIX}1`, kept(mine, ['p/a', 'p/b'], ['p/c']));
    world.store.props.set(`${ANSWERS_PREFIX}2`, kept(theirs, ['p/d']));
    const before = job.counts;
    const hold = holdOnce(setup, undefined, false, false);
    expect(hold?.job?.counts).toMatchObject({
      creditsUsed: before.creditsUsed + 2,
      lookupsFound: (before.lookupsFound ?? 0) + 2,
      creditsMaybeLost: before.creditsMaybeLost + 1,
    });
    expect(world.store.log).toHaveLength(4);
    expect([...world.store.props.keys()].filter((name) => name.startsWith(ANSWERS_PREFIX))).toEqual([]);
  });

  it('undefined when the lock stays busy, or LockService refuses it on every try', () => {
    const { world, setup } = slice();
    world.lock.tryWith = () => undefined;
    expect(holdOnce(setup, undefined, true, false)).toBeUndefined();
    world.lock.withRetried = () => {
      throw new DocumentBusyError();
    };
    expect(holdOnce(setup, undefined, true, true)).toBeUndefined();
    expect(records(world)).toEqual([]);
  });
});

describe('applyFolded', () => {
  const folded = (byRun: Folded['byRun'], endedWindows: string[] = []): Folded => ({
    results: new Map(),
    charges: [],
    byRun,
    endedWindows,
    names: [],
  });

  it("counts the run's own charges, frees the windows of its slices that ended without writing, says whether it changed", () => {
    const { world } = slice();
    const job = jobOf(world);
    job.windows = [{ from: 1, to: 9, token: 'gone', until: Number.MAX_SAFE_INTEGER, n: 9 }];
    const used = job.counts.creditsUsed;
    expect(applyFolded(job, folded(new Map([['other', { used: 5, found: 5, lost: 0 }]])), 0)).toBe(false);
    expect(job.counts.creditsUsed).toBe(used);
    expect(applyFolded(job, folded(new Map([[job.id, { used: 3, found: 1, lost: 2 }]]), ['gone']), 0)).toBe(
      true,
    );
    expect(job.counts).toMatchObject({ creditsUsed: used + 3, creditsMaybeLost: 2 });
    expect(job.windows).toEqual([{ from: 1, to: 9, token: '', until: 0 }]);
  });
});
