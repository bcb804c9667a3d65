/**
 * The bulk run's state machine: `transition` is the only place a job's state changes. Pure: returns a new job
 * (or the same object when the event does not apply in the job's state).
 *
 *   idle ──start──▶ running ──finish──▶ done
 *                   │  ▲  ──pause──▶ paused ──resume──▶ running
 *                   │  └──resume── stopped
 *                   ├──halt(reason)──▶ paused | stopped | cancelled (by the reason)
 *   running, paused, stopped ──cancel──▶ cancelled
 *   any ──replaced──▶ cancelled (a slice's copy of a job that is gone from the store)
 *   running ──sync(stored)──▶ the stored state, when a pause or cancel arrived during a slice
 */
import { type Counts, creditsText, type Job, type JobState, type RunReason } from './job';
import { countText } from './text';

/** Why a running job halts, and the state that leaves it in. */
export const HALT_STATE = {
  out_of_credits: 'paused',
  quota: 'paused',
  error: 'paused',
  key_rejected: 'stopped',
  no_key: 'stopped',
  configuration: 'stopped',
  no_spreadsheet: 'stopped',
  sheet_missing: 'stopped',
  sheet_changed: 'cancelled',
} as const satisfies Record<Exclude<RunReason, 'user'>, JobState>;

export type HaltReason = keyof typeof HALT_STATE;

export type JobEvent =
  | { type: 'start' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'cancel' }
  | { type: 'halt'; reason: HaltReason; message: string }
  | { type: 'finish'; counts: Counts; leftPending: boolean }
  | { type: 'replaced' }
  | { type: 'sync'; stored: Pick<Job, 'state' | 'message' | 'reason'> };

export const ACTIVE_STATES: readonly JobState[] = ['running', 'paused', 'stopped'];

export const isActive = (state: JobState): boolean => ACTIVE_STATES.includes(state);

function enter(job: Job, state: JobState, message: string, reason?: RunReason): Job {
  const next: Job = { ...job, state, message };
  if (reason) next.reason = reason;
  else delete next.reason;
  return next;
}

export function transition(job: Job, event: JobEvent): Job {
  switch (event.type) {
    case 'start':
      return job.state === 'idle' ? enter(job, 'running', job.message) : job;
    case 'pause':
      return job.state === 'running'
        ? enter(job, 'paused', 'Paused. Resume to continue where it stopped.', 'user')
        : job;
    case 'resume':
      return job.state === 'paused' || job.state === 'stopped' ? enter(job, 'running', 'Resuming…') : job;
    case 'cancel':
      return isActive(job.state) ? enter(job, 'cancelled', cancelledMessage(job.counts), 'user') : job;
    case 'halt':
      return job.state === 'running'
        ? enter(job, HALT_STATE[event.reason], event.message, event.reason)
        : job;
    case 'finish':
      return job.state === 'running'
        ? { ...enter(job, 'done', doneMessage(event.counts, event.leftPending)), counts: event.counts }
        : job;
    case 'replaced':
      return job.state === 'cancelled' ? job : enter(job, 'cancelled', job.message, job.reason);
    case 'sync':
      return sync(job, event.stored);
  }
}

/**
 * A cancel stored meanwhile always wins; a stored pause or halt wins over this slice's "running". A user's cancel
 * made while the slice worked reports the slice's counts: what was written and spent up to its end.
 */
function sync(job: Job, stored: Pick<Job, 'state' | 'message' | 'reason'>): Job {
  if (stored.state === 'cancelled') {
    const message = stored.reason === 'user' ? cancelledMessage(job.counts) : stored.message;
    return enter(job, 'cancelled', message, stored.reason);
  }
  if (job.state === 'running' && stored.state !== 'running') {
    return enter(job, stored.state, stored.message, stored.reason);
  }
  return job;
}

export function cancelledMessage(counts: Counts): string {
  return `Cancelled. Results written so far are kept (${countText(counts.processed, 'row')}; ${creditsText(counts)}).`;
}

function doneMessage(counts: Counts, leftPending: boolean): string {
  const done = `Done: ${counts.found} found, ${counts.notFound} without an address, ${counts.failed} failed, ${counts.skipped} already had a result. ${creditsText(counts)}.`;
  return leftPending
    ? `${done} Some rows have no result (they moved during the run, or their result cells hold other data): run it again for them.`
    : done;
}
