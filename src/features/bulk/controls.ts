/** The run's controls from the sidebar and the trigger: continue, resume, pause, cancel, progress. */
import { hasDocument, loadJob, updateJob } from '../../adapters/jobStore';
import { ensureContinuationTrigger, removeContinuationTrigger } from '../../adapters/ui';
import { idleProgress, type Job, type Progress, progressOf } from '../../core/job';
import { type JobEvent, transition } from '../../core/jobMachine';
import { isPropertiesQuotaError } from '../../core/quota';
import { processSlice, quotaPaused } from './slice';

/** Applies a user's event to the stored job under the lock (the slice working on it picks it up when it saves). */
function applyToStored(event: JobEvent): Job | null {
  return updateJob((stored) => {
    if (!stored) return stored;
    const next = transition(stored, event);
    return next === stored ? stored : { ...next, updatedAt: Date.now() };
  });
}

export function continueEnrichment(): Progress {
  // The hourly trigger may run without the spreadsheet: nothing to continue from here, and nothing to break.
  if (!hasDocument())
    return idleProgress('No spreadsheet in this run: the run continues when its sidebar is open.');
  let job: Job | null;
  try {
    job = loadJob();
  } catch (error) {
    if (isPropertiesQuotaError(error)) return quotaPaused();
    throw error;
  }
  if (job?.state !== 'running') return progressOf(job);
  return processSlice(job.id);
}

export function resumeEnrichment(): Progress {
  // The lease stays: a slice paused while it waits on the service may still hold it, and then carries on.
  const job = applyToStored({ type: 'resume' });
  if (job?.state !== 'running') return progressOf(job);
  ensureContinuationTrigger();
  return processSlice(job.id);
}

export function pauseEnrichment(): Progress {
  return progressOf(applyToStored({ type: 'pause' }));
}

export function cancelEnrichment(): Progress {
  const job = applyToStored({ type: 'cancel' });
  removeContinuationTrigger();
  return progressOf(job);
}

export function getEnrichmentProgress(): Progress {
  const job = loadJob();
  return job ? progressOf(job) : idleProgress();
}
