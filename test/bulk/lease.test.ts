/** Window leases (src/bulk/lease.ts) over document properties in memory: how many rows each window takes. */
import { emptyCounts, type Job } from '../../src/bulk/job';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import { slicesWorking, takeLease, windowToLease } from '../../src/bulk/lease';
import type { Platform } from '../../src/platform/platform';
import { freeLock, MemoryProperties, testClock, testPlatform } from '../support/platform';

const OWNER = 'runner-1';

function platformWithJob(firstRow: number, lastRow: number): Platform {
  const documentProperties = new MemoryProperties();
  const platform = testPlatform({
    documentProperties: () => documentProperties,
    lock: freeLock,
    clock: testClock(),
  });
  const job = {
    id: 'run-1',
    sheetId: 1,
    sheetName: 'Sheet1',
    urlColumn: 1,
    firstRow,
    lastRow,
    headerRow: 1,
    outputColumn: 2,
    extraFields: false,
    recheck: false,
    cursor: firstRow,
    pass: 1,
    maxRows: 1000,
    maxColumns: 26,
    topValue: '',
    bottomValue: '',
    headerTexts: null,
    hasDuplicates: false,
    state: 'running',
    message: '',
    counts: emptyCounts(),
    startedAt: 0,
    updatedAt: 0,
    ownerId: OWNER,
    leaseUntil: 0,
  } as Job;
  saveJob(platform, job);
  return platform;
}

/** A job of 300 rows and one slice leasing 200 of them, no other slice working; `slices`: the run's figure. */
function leasedAlone(slices: number): Platform {
  const platform = platformWithJob(2, 301);
  takeLease(platform, 'run-1', platform.clock.now(), OWNER, 200, slices);
  return platform;
}

/** The rows of each live window of the stored job, in order. */
function windowSizes(platform: Platform): number[] {
  return (loadJob(platform)?.windows ?? []).map((window) => window.to - window.from + 1);
}

describe('window leases: two batches each, one near the end of a pass', () => {
  it('far from the end each window takes the rows asked for', () => {
    const platform = platformWithJob(2, 1001);
    for (let slice = 0; slice < 3; slice++)
      takeLease(platform, 'run-1', platform.clock.now() + slice, OWNER, 200, 3);
    expect(windowSizes(platform)).toEqual([200, 200, 200]);
  });

  it("near the end, when the rows never leased hold no whole window for each slice working, a window is one batch's rows", () => {
    const platform = platformWithJob(2, 501);
    // Two other slices at work, one leasing now: 500 rows left, less than three windows of 200.
    const job = loadJob(platform) as Job;
    const until = platform.clock.now() + 60_000;
    job.windows = [
      { from: 2, to: 1, token: 'b', until },
      { from: 2, to: 1, token: 'c', until },
    ];
    saveJob(platform, job);
    const a = takeLease(platform, 'run-1', platform.clock.now(), OWNER, 200, 3).lease;
    expect(a?.windowEnd).toBe(101);
    // The last rows: what is left, at most one batch's.
    const b = takeLease(platform, 'run-1', platform.clock.now() + 1, OWNER, 200, 3).lease;
    expect(b?.windowEnd).toBe(201);
    // Alone, the same slice would have taken the 200 rows it asked for; the run's figure of one slice keeps them whole.
    expect(windowSizes(leasedAlone(3))).toEqual([200]);
  });

  it('one slice at a time (a fixed window, or one slice) takes the rows asked for', () => {
    const platform = platformWithJob(2, 301);
    takeLease(platform, 'run-1', platform.clock.now(), OWNER, 200);
    expect(windowSizes(platform)).toEqual([200]);
  });
});

describe('a window to lease, for the figure of slices the sidebar may add', () => {
  it('is there while rows were never leased or a window was left, and not once live slices hold every row', () => {
    const platform = platformWithJob(2, 301);
    const now = platform.clock.now();
    // No window yet: the first slice leases one.
    expect(windowToLease(loadJob(platform) as Job, now)).toBe(true);
    takeLease(platform, 'run-1', now, OWNER, 150);
    takeLease(platform, 'run-1', now + 1, OWNER, 200);
    expect(windowSizes(platform)).toEqual([150, 150]);
    const job = loadJob(platform) as Job;
    // Every row is in the two live windows: a third slice would find nothing.
    expect(windowToLease(job, now + 2)).toBe(false);
    expect(slicesWorking(job, now + 2)).toBe(2);
    // A slice's lease ends (the slice was killed): its window may be leased again.
    const ended = (job.windows ?? [])[0].until;
    expect(windowToLease(job, ended)).toBe(true);
    expect(slicesWorking(job, ended)).toBe(1);
  });
});
