/** The run's sidebar controls: only its starter drives it; everyone else sees its progress read-only. */
import type { Progress } from '../api';
import type { Platform } from '../core/ports';
import { requestsAtService } from '../store/records';
import { idleProgress, type Job, mayDrive, notYourRun, progressOf, SIDEBAR_CLOSED_MESSAGE } from './job';
import type { JobEvent } from './jobMachine';
import { hasDocument, loadJob, transitionStored } from './jobStore';
import { openingSlice, processSlice, quotaPaused, withSlices } from './slice';

export { enrichSelection, retryFailedRows, startRun } from './start';

/** Under the lock; the slice at work picks the change up when it saves. */
function applyToStored(platform: Platform, event: JobEvent, runnerId: string | null): Job | null {
  return transitionStored(platform, event, (stored) => {
    if (!mayDrive(stored, runnerId)) throw new Error(notYourRun(stored));
    return true;
  });
}

function currentViewer(platform: Platform): { runnerId: string | null; now: number } {
  return { runnerId: platform.runner.id(), now: platform.clock.now() };
}

export function continueEnrichment(platform: Platform): Progress {
  // A time-driven trigger may run without the spreadsheet (reported).
  if (!hasDocument(platform))
    return idleProgress('No spreadsheet in this run: a run goes on while its sidebar is open.');
  return quotaPaused(() => {
    const viewer = currentViewer(platform);
    const job = loadJob(platform);
    if (job?.state !== 'running' || !mayDrive(job, viewer.runnerId)) return progressOf(job, viewer);
    return processSlice(platform, job.id, viewer.runnerId);
  });
}

export function resumeEnrichment(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  // The lease stays: a slice paused while it waits on the service may still hold it, and then carries on.
  const job = applyToStored(platform, { type: 'resume' }, viewer.runnerId);
  if (job?.state !== 'running') return progressOf(job, viewer);
  if (job.leaseUntil > platform.clock.now()) return withSlices(platform, progressOf(job, viewer), job);
  return openingSlice(platform, job, viewer.runnerId, job.counts.total - job.counts.processed);
}

export function pauseEnrichment(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  const job = applyToStored(platform, { type: 'pause' }, viewer.runnerId);
  return withInFlight(platform, job, progressOf(job, viewer));
}

/** The starter's sidebar pagehide (it may never arrive): their run pauses as Pause does; a watch's run stays. */
export function sidebarClosed(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  const job = transitionStored(
    platform,
    { type: 'halt', reason: 'sidebar_closed', message: SIDEBAR_CLOSED_MESSAGE },
    (stored) => stored.state === 'running' && stored.origin !== 'watch' && mayDrive(stored, viewer.runnerId),
  );
  return progressOf(job, viewer);
}

export function cancelEnrichment(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  const job = applyToStored(platform, { type: 'cancel' }, viewer.runnerId);
  return withInFlight(platform, job, progressOf(job, viewer));
}

export function getEnrichmentProgress(platform: Platform): Progress {
  const job = loadJob(platform);
  return job
    ? withSlices(platform, withInFlight(platform, job, progressOf(job, currentViewer(platform))), job)
    : idleProgress();
}

/** Paused or cancelled with a lease held: the lookups still at the service, which may yet be charged. */
function withInFlight(platform: Platform, job: Job | null, progress: Progress): Progress {
  const now = platform.clock.now();
  if (!job || (job.state !== 'paused' && job.state !== 'cancelled') || job.leaseUntil <= now) return progress;
  const sent = requestsAtService(platform.documentProperties().getProperties(), job.id, now);
  return { ...progress, inFlight: sent };
}
