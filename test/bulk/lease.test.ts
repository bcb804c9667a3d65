/** Window leases (src/bulk/lease.ts) over document properties in memory: how many rows each window takes. */
import { emptyCounts, type Job } from '../../src/bulk/job';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import { takeLease } from '../../src/bulk/lease';
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

describe('window leases: two batches each, the last rows of a pass split across the slices', () => {
  it('far from the end each window takes the rows asked for', () => {
    const platform = platformWithJob(2, 1001);
    for (let slice = 0; slice < 3; slice++)
      takeLease(platform, 'run-1', platform.clock.now() + slice, OWNER, 200, 3);
    expect(windowSizes(platform)).toEqual([200, 200, 200]);
  });

  it('near the end the rows left (unleased, and in the other windows) are split across the slices working: they end together', () => {
    const platform = platformWithJob(2, 301);
    // Two slices whose windows are done (they lease their next one next), one leasing now: 300 rows for three.
    const job = loadJob(platform) as Job;
    const until = platform.clock.now() + 60_000;
    job.windows = [
      { from: 2, to: 1, token: 'b', until },
      { from: 2, to: 1, token: 'c', until },
    ];
    saveJob(platform, job);
    const a = takeLease(platform, 'run-1', platform.clock.now(), OWNER, 200, 3).lease;
    expect(a?.windowEnd).toBe(101);
    // Alone, the same slice would have taken the 200 rows it asked for; the run's figure of one slice keeps them whole.
    expect(windowSizes(leasedAlone(3))).toEqual([200]);
  });

  it('one slice at a time (a fixed window, or one slice) takes the rows asked for', () => {
    const platform = platformWithJob(2, 301);
    takeLease(platform, 'run-1', platform.clock.now(), OWNER, 200);
    expect(windowSizes(platform)).toEqual([200]);
  });
});
