/** The bulk run's state machine: `transition` is the only place a job's state changes. Pure. */
import type { JobState, RunReason } from '../api';
import { runText } from '../core/runWords';
import type { Counts, Job } from './job';

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
  sidebar_closed: 'paused',
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
  | { type: 'sync'; stored: StoredState };

export const ACTIVE_STATES: readonly JobState[] = ['running', 'paused', 'stopped'];

export const isActive = (state: JobState): boolean => ACTIVE_STATES.includes(state);

const isHalted = (state: JobState): boolean => state === 'paused' || state === 'stopped';

/** A halted stretch waits from the halt or the save after it (a slice at work on Pause saves later). */
function enterAt(
  job: Job,
  state: JobState,
  message: string,
  reason: RunReason | undefined,
  now: number,
): Job {
  const next: Job = { ...job, state, message };
  if (reason) next.reason = reason;
  else delete next.reason;
  if (isHalted(job.state) && !isHalted(state) && job.haltedSince !== undefined) {
    const why = job.reason ?? 'user';
    const from = Math.max(job.haltedSince, job.updatedAt ?? 0);
    next.waited = { ...job.waited, [why]: (job.waited?.[why] ?? 0) + Math.max(0, now - from) };
    delete next.haltedSince;
  } else if (!isHalted(job.state) && isHalted(state)) next.haltedSince = now;
  return next;
}

export function transition(job: Job, event: JobEvent, now: number): Job {
  const enter = (to: Job, state: JobState, message: string, reason?: RunReason) =>
    enterAt(to, state, message, reason, now);
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
      return sync(job, event.stored, now);
  }
}

/** A stored cancel always wins (a user's reports the slice's counts); a stored pause or halt wins over "running". */
function sync(job: Job, stored: StoredState, now: number): Job {
  // Only the sidebar's controls end a paused stretch: the stored job's stretches count.
  const timed: Job = { ...job, waited: stored.waited };
  if (stored.state === 'cancelled') {
    const message = stored.reason === 'user' ? cancelledMessage(job.counts) : stored.message;
    return { ...enterAt(timed, 'cancelled', message, stored.reason, now), ...times(stored) };
  }
  if (job.state === 'running' && stored.state !== 'running') {
    return { ...enterAt(timed, stored.state, stored.message, stored.reason, now), ...times(stored) };
  }
  return JSON.stringify(job.waited) === JSON.stringify(stored.waited) ? job : timed;
}

type StoredState = Pick<Job, 'state' | 'message' | 'reason' | 'waited' | 'haltedSince'>;

function times(stored: StoredState): Pick<Job, 'waited' | 'haltedSince'> {
  return { waited: stored.waited, haltedSince: stored.haltedSince };
}

export function cancelledMessage(counts: Counts): string {
  return `Cancelled: ${runText(counts)}. Results written so far are kept.`;
}

function doneMessage(counts: Counts, leftPending: boolean): string {
  const done = `Done: ${runText(counts)}.`;
  const left = counts.total - counts.processed;
  return leftPending || left > 0
    ? `${done} Some rows have no result (they moved during the run, or their result cells hold other data): run it again for them.`
    : done;
}
