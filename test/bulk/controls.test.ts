import {
  cancelEnrichment,
  continueEnrichment,
  getEnrichmentProgress,
  pauseEnrichment,
  sidebarClosed,
} from '../../src/bulk/controls';
import type { Job } from '../../src/bulk/job';
import { loadJob, saveJob } from '../../src/bulk/jobStore';
import type { Platform } from '../../src/core/ports';
import { JOB_PROPERTY } from '../../src/core/propertyNames';
import { testJob } from '../support/job';
import { freeLock, MemoryProperties, testClock, testPlatform } from '../support/platform';

/**
 * A platform for the runner `runnerId` over one document's properties. Driving a slice would reach members it
 * lacks (the spreadsheet, the service) and throw: a test that passes drove none.
 */
function as(runnerId: string | null, properties = new MemoryProperties()) {
  const clock = testClock();
  const platform: Platform = testPlatform({
    documentProperties: () => properties,
    documentPropertiesOrNull: () => properties,
    clock: clock as Platform['clock'],
    lock: freeLock,
    runner: { id: () => runnerId, ensureId: () => runnerId ?? 'new', email: () => '' },
  });
  return { platform, properties, clock };
}

function stored(job: Job): MemoryProperties {
  const properties = new MemoryProperties();
  saveJob(as('starter', properties).platform, job);
  return properties;
}

describe('the run belongs to its starter', () => {
  it('pauses and cancels for the starter', () => {
    const properties = stored(testJob('running', { leaseUntil: 0 }));
    const { platform } = as('starter', properties);
    expect(pauseEnrichment(platform).state).toBe('paused');
    expect(loadJob(platform)?.state).toBe('paused');
    expect(cancelEnrichment(platform).state).toBe('cancelled');
    expect(loadJob(platform)?.state).toBe('cancelled');
  });

  it("refuses anyone else's pause or cancel, naming the starter, and changes nothing", () => {
    const properties = stored(testJob('running', { ownerName: 'ann@acme.test' }));
    const { platform } = as('someone else', properties);
    expect(() => pauseEnrichment(platform)).toThrow(/ann@acme\.test/);
    expect(() => cancelEnrichment(platform)).toThrow(/ann@acme\.test/);
    expect(loadJob(platform)?.state).toBe('running');
  });

  it("shows someone else's running run read-only, without driving it (it spends nothing of theirs)", () => {
    const properties = stored(testJob('running'));
    const before = properties.values.get(JOB_PROPERTY);
    const progress = continueEnrichment(as('someone else', properties).platform);
    expect(progress.state).toBe('running');
    expect(progress.readOnly).toBe(true);
    expect(properties.values.get(JOB_PROPERTY)).toBe(before);
  });

  it('drives nothing for a run that is not running', () => {
    const properties = stored(testJob('paused'));
    expect(continueEnrichment(as('starter', properties).platform).state).toBe('paused');
  });
});

describe('sidebarClosed', () => {
  it("pauses the starter's running run", () => {
    const properties = stored(testJob('running'));
    const { platform } = as('starter', properties);
    sidebarClosed(platform);
    const job = loadJob(platform);
    expect(job?.state).not.toBe('running');
    expect(job?.reason).toBe('sidebar_closed');
  });

  it("leaves a watch's run and someone else's run running", () => {
    const watch = stored(testJob('running', { origin: 'watch' }));
    sidebarClosed(as('starter', watch).platform);
    expect(loadJob(as('starter', watch).platform)?.state).toBe('running');
    const theirs = stored(testJob('running'));
    sidebarClosed(as('someone else', theirs).platform);
    expect(loadJob(as('starter', theirs).platform)?.state).toBe('running');
  });
});

describe('continueEnrichment and getEnrichmentProgress', () => {
  it('do nothing in an execution without a spreadsheet', () => {
    const platform = testPlatform({ documentPropertiesOrNull: () => null });
    expect(continueEnrichment(platform).state).toBe('idle');
  });

  it('show no run when there is none', () => {
    expect(getEnrichmentProgress(as('starter').platform).state).toBe('idle');
  });
});
