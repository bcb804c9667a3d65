/**
 * The run's controls from the sidebar: continue, resume, pause, cancel, progress. A run belongs to the person who
 * started it: only their executions work on it or change its state; everyone else sees its progress, read-only.
 */
import type { Progress } from '../api';
import { isPropertiesQuotaError } from '../core/quota';
import type { Platform } from '../platform/platform';
import { requestsAtService } from '../store/sendingRecords';
import { idleProgress, type Job, mayDrive, notYourRun, progressOf, SIDEBAR_CLOSED_MESSAGE } from './job';
import { type JobEvent, transition } from './jobMachine';
import { hasDocument, loadJob, updateJob } from './jobStore';
import { openingSlice, processSlice, quotaPaused, withSlices } from './slice';

/**
 * Applies the starter's event to the stored job under the lock (the slice working on it picks it up when it
 * saves). Anyone else is refused, with who started the run.
 */
function applyToStored(platform: Platform, event: JobEvent, runnerId: string | null): Job | null {
  return updateJob(platform, (stored) => {
    if (!stored) return stored;
    if (!mayDrive(stored, runnerId)) throw new Error(notYourRun(stored));
    const now = platform.clock.now();
    const next = transition(stored, event, now);
    return next === stored ? stored : { ...next, updatedAt: now };
  });
}

/** Called by the sidebar again and again while it is open: the run goes on only while its starter's is. */
/** The viewer of a run's progress: this user, now. */
function currentViewer(platform: Platform): { runnerId: string | null; now: number } {
  return { runnerId: platform.runner.id(), now: platform.clock.now() };
}

export function continueEnrichment(platform: Platform): Progress {
  // An execution without the spreadsheet (as a time-driven trigger runs, reported) has nothing to do and breaks nothing.
  if (!hasDocument(platform))
    return idleProgress('No spreadsheet in this run: a run goes on while its sidebar is open.');
  let viewer: ReturnType<typeof currentViewer>;
  let job: Job | null;
  try {
    viewer = currentViewer(platform);
    job = loadJob(platform);
  } catch (error) {
    if (isPropertiesQuotaError(error)) return quotaPaused(error);
    throw error;
  }
  // Someone else's run: they see it, and it spends nothing of theirs (processSlice leases only to the starter).
  if (job?.state !== 'running' || !mayDrive(job, viewer.runnerId)) return progressOf(job, viewer);
  return withSlices(platform, processSlice(platform, job.id, viewer.runnerId));
}

export function resumeEnrichment(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  // The lease stays: a slice paused while it waits on the service may still hold it, and then carries on.
  const job = applyToStored(platform, { type: 'resume' }, viewer.runnerId);
  if (job?.state !== 'running') return progressOf(job, viewer);
  // A slice still at work carries on: Resume answers at once, and the sidebar's drive adds slices beside it.
  if (job.leaseUntil > platform.clock.now()) return withSlices(platform, progressOf(job, viewer), job);
  // Otherwise as Start: the rest in Resume's own short slice when one batch holds it, else the sidebar's slices.
  return openingSlice(platform, job, viewer.runnerId, job.counts.total - job.counts.processed);
}

export function pauseEnrichment(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  const job = applyToStored(platform, { type: 'pause' }, viewer.runnerId);
  return withInFlight(platform, job, progressOf(job, viewer));
}

/**
 * The starter's sidebar is being closed (its page's pagehide; the call may never arrive): their running run pauses
 * as Pause does, each slice under way writing the batch it sent, and goes on when their sidebar is open again. A
 * watch's run (driven by its triggers) and someone else's run are left as they are.
 */
export function sidebarClosed(platform: Platform): Progress {
  const viewer = currentViewer(platform);
  const job = updateJob(platform, (stored) => {
    if (stored?.state !== 'running' || stored.origin === 'watch' || !mayDrive(stored, viewer.runnerId))
      return stored;
    const now = platform.clock.now();
    const halted = transition(
      stored,
      { type: 'halt', reason: 'sidebar_closed', message: SIDEBAR_CLOSED_MESSAGE },
      now,
    );
    return { ...halted, updatedAt: now };
  });
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

/**
 * A run paused or cancelled while a slice still works on it (its lease held): the lookups of the batch that slice
 * sent, whose answers may still be charged (the sending records of src/store/sendingRecords.ts).
 */
function withInFlight(platform: Platform, job: Job | null, progress: Progress): Progress {
  const now = platform.clock.now();
  if (!job || (job.state !== 'paused' && job.state !== 'cancelled') || job.leaseUntil <= now) return progress;
  const sent = requestsAtService(platform.documentProperties().getProperties(), job.id, now);
  return { ...progress, inFlight: sent };
}
