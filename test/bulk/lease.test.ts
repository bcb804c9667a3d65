/**
 * Window leases (src/bulk/lease.ts): pure functions over a job's windows, changed in place under the lock by
 * src/bulk/step.ts. Which window a slice leases next, and what leasing, giving back and a slice's end do to them.
 */
import type { Job, WindowLease } from '../../src/bulk/job';
import {
  freeEnded,
  giveBack,
  lease,
  leaseEnd,
  nextLease,
  others,
  slicesWorking,
  windowOf,
  windowsLeft,
  windowToLease,
} from '../../src/bulk/lease';
import { testJob } from '../support/job';

const NOW = 1_000_000;
const LATER = NOW + 60_000;

/** A running job of rows 2..301, its cursor at `cursor`, holding `windows`. */
function jobWith(windows: WindowLease[], cursor = 2): Job {
  return testJob('running', { firstRow: 2, lastRow: 301, cursor, windows });
}

const free = (from: number, to: number, extra: Partial<WindowLease> = {}): WindowLease => ({
  from,
  to,
  token: '',
  until: 0,
  ...extra,
});
const held = (from: number, to: number, token: string, n = 0, until = LATER): WindowLease => ({
  from,
  to,
  token,
  until,
  n,
});

describe('nextLease', () => {
  it('with no window yet, the rows from the cursor', () => {
    expect(nextLease(jobWith([]), NOW)).toEqual({ cursor: true });
  });

  it('a free window before the rows never leased, the lowest first', () => {
    const job = jobWith([free(40, 49), held(2, 20, 'a'), free(21, 30)], 50);
    expect(nextLease(job, NOW)).toEqual({ window: free(21, 30) });
  });

  it("a window whose slice's time is over is free again, token and all", () => {
    const job = jobWith([held(2, 20, 'killed', 25, NOW)], 21);
    expect(nextLease(job, NOW)).toEqual({ window: held(2, 20, 'killed', 25, NOW) });
    // A moment before its end it is still the slice's.
    expect(nextLease(job, NOW - 1)).toEqual({ cursor: true });
  });

  it('a window waiting on another execution only once no row is left unleased', () => {
    const waiting = free(2, 5, { waits: 1 });
    expect(nextLease(jobWith([waiting], 100), NOW)).toEqual({ cursor: true });
    expect(nextLease(jobWith([waiting], 302), NOW)).toEqual({ window: waiting });
  });

  it('a free window that does not wait goes before a waiting one, wherever it is', () => {
    const job = jobWith([free(2, 5, { waits: 1 }), free(200, 210)], 302);
    expect(nextLease(job, NOW)).toEqual({ window: free(200, 210) });
  });

  it('past the last row with no window at all, the pass over the range', () => {
    expect(nextLease(jobWith([], 302), NOW)).toEqual({ pass: true });
  });

  it('past the last row with every window held, nothing: the slices at work end the pass', () => {
    const job = jobWith([held(2, 150, 'a'), held(151, 301, 'b')], 302);
    expect(nextLease(job, NOW)).toBeUndefined();
    expect(windowToLease(job, NOW)).toBe(false);
    // Once their time is over there is a window to lease again.
    expect(windowToLease(job, LATER)).toBe(true);
  });
});

describe('windowsLeft and the slices at work', () => {
  it('counts free windows and the rows never leased in windows of `rowsPerWindow`', () => {
    // 100 rows never leased (202..301) in windows of 30: 4; two free windows: 6.
    const job = jobWith([free(2, 5), held(6, 100, 'a'), free(101, 201, { waits: 1 })], 202);
    expect(windowsLeft(job, NOW, 30)).toBe(6);
    expect(windowsLeft(jobWith([], 302), NOW, 30)).toBe(0);
  });

  it('a window to lease is there while rows were never leased or a window was left, and not once live slices hold every row', () => {
    const job = jobWith([]);
    expect(windowToLease(job, NOW)).toBe(true);
    lease(job, { from: 2, to: 151, token: 'a', until: LATER }, NOW);
    lease(job, { from: 152, to: 301, token: 'b', until: LATER + 1 }, NOW);
    expect(windowToLease(job, NOW)).toBe(false);
    expect(slicesWorking(job, NOW)).toBe(2);
    // A slice's lease ends (the slice was killed): its window may be leased again.
    expect(windowToLease(job, LATER)).toBe(true);
    expect(slicesWorking(job, LATER)).toBe(1);
    expect(leaseEnd(job, LATER)).toBe(LATER + 1);
    expect(leaseEnd(job, LATER + 1)).toBe(0);
  });

  it("others: the live windows but the slice's own, and their requests at the service", () => {
    const job = jobWith([
      held(2, 20, 'me', 10),
      held(21, 40, 'b', 25),
      held(41, 60, 'c', 5, NOW),
      free(61, 70),
    ]);
    expect(others(job, 'me', NOW)).toEqual({ working: 1, atService: 25 });
    expect(others(job, 'b', NOW)).toEqual({ working: 1, atService: 10 });
    expect(others(job, 'new', NOW - 1)).toEqual({ working: 3, atService: 40 });
  });
});

describe('lease', () => {
  it('adds the window in row order, moves the cursor past it and the lease end to its end', () => {
    const job = jobWith([held(2, 20, 'a', 5, LATER + 5)], 21);
    lease(job, { from: 21, to: 60, token: 'b', until: LATER, n: 12 }, NOW);
    expect(job.windows).toEqual([held(2, 20, 'a', 5, LATER + 5), held(21, 60, 'b', 12)]);
    expect(job.cursor).toBe(61);
    expect(job.leaseUntil).toBe(LATER + 5);
  });

  it('leasing a free window replaces it and leaves the cursor where it is', () => {
    const job = jobWith([free(2, 20), held(21, 40, 'a')], 100);
    lease(job, { from: 2, to: 20, token: 'b', until: LATER, n: 3 }, NOW);
    expect(job.windows).toEqual([held(2, 20, 'b', 3), held(21, 40, 'a')]);
    expect(job.cursor).toBe(100);
    expect(windowOf(job, 'b')).toEqual(held(2, 20, 'b', 3));
  });
});

describe('giveBack', () => {
  it("ends the slice's window: rows it could not write go back as free windows, those waiting marked", () => {
    const job = jobWith([held(2, 40, 'me', 20), held(41, 60, 'b', 5, LATER + 9)], 61);
    giveBack(
      job,
      'me',
      [
        { from: 5, to: 7, waits: false },
        { from: 30, to: 30, waits: true },
      ],
      NOW,
    );
    expect(job.windows).toEqual([free(5, 7), free(30, 30, { waits: 1 }), held(41, 60, 'b', 5, LATER + 9)]);
    expect(windowOf(job, 'me')).toBeUndefined();
    expect(job.leaseUntil).toBe(LATER + 9);
  });

  it('every row written: nothing left of the window, and no lease once no slice holds one', () => {
    const job = jobWith([held(2, 40, 'me', 20)], 41);
    job.leaseUntil = LATER;
    giveBack(job, 'me', [], NOW);
    expect(job.windows).toEqual([]);
    expect(job.leaseUntil).toBe(0);
  });
});

describe('freeEnded', () => {
  it('the windows of slices that ended without writing them are free again, whole, their requests gone', () => {
    const job = jobWith(
      [held(2, 40, 'ended', 20), held(41, 60, 'b', 5), held(61, 80, 'c', 5, LATER + 3)],
      81,
    );
    job.leaseUntil = LATER + 3;
    freeEnded(job, ['ended', 'c'], NOW);
    expect(job.windows).toEqual([free(2, 40), held(41, 60, 'b', 5), free(61, 80)]);
    expect(job.leaseUntil).toBe(LATER);
    // The freed window is the next one leased, before rows never leased.
    expect(nextLease(job, NOW)).toEqual({ window: free(2, 40) });
  });

  it('no token: the job as it was', () => {
    const job = jobWith([held(2, 40, 'a', 20)], 41);
    const before = JSON.stringify(job);
    freeEnded(job, [], NOW);
    expect(JSON.stringify(job)).toBe(before);
  });
});
