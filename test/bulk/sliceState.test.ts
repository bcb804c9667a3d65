import type { Job } from '../../src/bulk/job';
import { JobLease } from '../../src/bulk/lease';
import { type SliceSetup, SliceState } from '../../src/bulk/sliceState';
import { parseNetworkHosts } from '../../src/core/url';
import type { CachedResult, LookupPorts } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';
import { testJob } from '../support/job';
import { MemorySheet, testClock, testPlatform } from '../support/platform';

const HOSTS = parseNetworkHosts('network.com');
const STARTED = Date.UTC(2026, 10, 27, 9);
const url = (slug: string) => `https://network.com/in/${slug}`;
const found = (email: string): LookupResult => ({
  kind: 'found',
  email,
  emailStatus: 'VALID',
  catchAll: false,
  accountType: 'professional',
  profile: {},
});

/**
 * A slice over rows 2..5 of column A (header in row 1), its store holding `stored`; `snapshots` counts the store's
 * reads.
 */
function slice(jobExtra: Partial<Job>, stored = new Map<string, CachedResult>(), rows?: unknown[][]) {
  const clock = testClock(STARTED + 60_000);
  const sheet = new MemorySheet(
    rows ?? [
      ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'],
      [url('a'), 'a@acme.test', 'VALID', false, ''],
      [url('b'), '', '', '', ''],
      [url('a'), '', '', '', ''],
      [url('c'), '', 'ERROR', '', ''],
    ],
  );
  let snapshots = 0;
  const ports = {
    clock,
    store: {
      snapshot: () => {
        snapshots++;
        const view = new Map(stored);
        return (key: string) => view.get(key);
      },
    },
  } as unknown as LookupPorts;
  const job = testJob('running', {
    firstRow: 2,
    lastRow: 5,
    startedAt: STARTED,
    hasDuplicates: true,
    ...jobExtra,
  });
  const lease = new JobLease(testPlatform({ clock }), job, {
    from: 2,
    to: 5,
    token: 't',
    until: clock.now() + 1e6,
  });
  const setup = {
    deadline: clock.now() + 30_000,
    batchSize: 10,
    slices: 1,
    sheet,
    width: 5,
    ports,
    session: {},
    apiKey: 'k',
    endpoint: 'http://127.0.0.1:1',
    hosts: HOSTS,
  } as unknown as SliceSetup;
  return { state: new SliceState(lease, setup), sheet, clock, snapshots: () => snapshots, stored };
}

describe('SliceState.resultOf', () => {
  it('takes a result stored before the run, free, but not in a re-check', () => {
    const stored = new Map([[url('b'), { result: found('b@acme.test'), savedAt: STARTED - 1 }]]);
    expect(slice({}, stored).state.resultOf(url('b'))).toEqual(found('b@acme.test'));
    expect(slice({ recheck: true }, stored).state.resultOf(url('b'))).toBeUndefined();
  });

  it("takes a result saved since the run started, even in a re-check (another row's paid answer)", () => {
    const stored = new Map([[url('b'), { result: found('b@acme.test'), savedAt: STARTED + 1 }]]);
    expect(slice({ recheck: true }, stored).state.resultOf(url('b'))).toEqual(found('b@acme.test'));
  });

  it('prefers what this slice fetched, and sees what formulas stored only after the store is read again', () => {
    const { state, stored, snapshots } = slice({});
    state.recordFetched(url('a'), found('fresh@acme.test'));
    expect(state.resultOf(url('a'))).toEqual(found('fresh@acme.test'));
    stored.set(url('c'), { result: found('c@acme.test'), savedAt: STARTED + 5 });
    expect(state.resultOf(url('c'))).toBeUndefined();
    state.rereadStore();
    expect(state.resultOf(url('c'))).toEqual(found('c@acme.test'));
    expect(snapshots()).toBe(2);
  });
});

describe('SliceState.copyOf', () => {
  it("copies the add-on's final result from another row of the run, reading the rows once", () => {
    const { state, sheet } = slice({});
    expect(state.copyOf(url('a'))).toEqual(['a@acme.test', 'VALID', false, '']);
    expect(state.copyOf(url('c'))).toBeUndefined();
    const reads = sheet.reads;
    state.recordWritten(url('b'), ['', 'NOT_FOUND', '', '']);
    expect(state.copyOf(url('b'))).toEqual(['', 'NOT_FOUND', '', '']);
    expect(sheet.reads).toBe(reads);
  });

  it('copies nothing in the first pass of a run without duplicates, a re-check, or Retry failed rows', () => {
    expect(slice({ hasDuplicates: false }).state.copyOf(url('a'))).toBeUndefined();
    expect(slice({ recheck: true }).state.copyOf(url('a'))).toBeUndefined();
    expect(slice({ redo: ['ERROR'] }).state.copyOf(url('a'))).toBeUndefined();
    expect(slice({ hasDuplicates: false, pass: 2 }).state.copyOf(url('a'))).toEqual([
      'a@acme.test',
      'VALID',
      false,
      '',
    ]);
  });
});

describe('SliceState reads', () => {
  it("reads a user's formula in an output cell as its formula", () => {
    const { state } = slice({}, new Map(), [['Profile'], [url('a'), '=A2', '', '', '']]);
    expect(state.read(2, 1)[0][1]).toBe('=A2');
  });

  it('serves the rows read ahead when they cover the window, else reads again', () => {
    const { state, sheet } = slice({});
    const ahead = state.read(2, 3);
    state.keepReadAhead(ahead, 2);
    const reads = sheet.reads;
    expect(state.rowsFrom(2, 3)).toBe(ahead);
    expect(sheet.reads).toBe(reads);
    expect(state.rowsFrom(2, 4)).toHaveLength(4);
    expect(state.rowsFrom(3, 2)[0][0]).toBe(url('b'));
    state.dropAhead();
    const before = sheet.reads;
    state.rowsFrom(3, 2);
    expect(sheet.reads).toBeGreaterThan(before);
  });
});

describe('SliceState.hasTime', () => {
  it('ends at the deadline, by the clock the slice is given', () => {
    const { state, clock } = slice({});
    expect(state.hasTime).toBe(true);
    clock.at += 30_000;
    expect(state.hasTime).toBe(false);
  });

  it('ends when the job is paused', () => {
    const { state } = slice({});
    state.lease.apply({ type: 'pause' });
    expect(state.job.state).toBe('paused');
    expect(state.hasTime).toBe(false);
  });
});
