/** The bulk run's state machine: `transition` is the only place a job's state changes. Pure. */
import type { JobState, RunCounts, RunReason } from '../api';
import { SETTINGS_PATH } from '../core/product';
import { runText } from '../core/runWords';
import { type ServiceError, withAdvice } from '../lookup/result';
import type { Job } from './job';

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

export type Halt = { reason: HaltReason; message: string };

export type JobEvent =
  | { type: 'start' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'cancel' }
  | { type: 'halt'; reason: HaltReason; message: string }
  | { type: 'finish'; counts: RunCounts; leftPending: boolean };

const isHalted = (state: JobState): boolean => state === 'paused' || state === 'stopped';

export const isActive = (state: JobState): boolean => state === 'running' || isHalted(state);

/** A halted stretch waits from the halt or the save after it (a slice at work on Pause saves later). */
function entered(job: Job, now: number, state: JobState, message: string, reason?: RunReason): Job {
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
  const enter = (state: JobState, message: string, reason?: RunReason) =>
    entered(job, now, state, message, reason);
  switch (event.type) {
    case 'start':
      return job.state === 'idle' ? enter('running', job.message) : job;
    case 'pause':
      return job.state === 'running'
        ? enter('paused', 'Paused. Resume to continue where it stopped.', 'user')
        : job;
    case 'resume':
      return job.state === 'paused' || job.state === 'stopped' ? enter('running', 'Resuming…') : job;
    case 'cancel':
      return isActive(job.state) ? enter('cancelled', cancelledMessage(job.counts), 'user') : job;
    case 'halt':
      return job.state === 'running' ? enter(HALT_STATE[event.reason], event.message, event.reason) : job;
    case 'finish':
      return job.state === 'running'
        ? { ...enter('done', doneMessage(event.counts, event.leftPending)), counts: event.counts }
        : job;
  }
}

export function cancelledMessage(counts: RunCounts): string {
  return `Cancelled: ${runText(counts)}. Results written so far are kept.`;
}

function doneMessage(counts: RunCounts, leftPending: boolean): string {
  const done = `Done: ${runText(counts)}.`;
  const left = counts.total - counts.processed;
  return leftPending || left > 0
    ? `${done} Some rows have no result (they moved during the run, or their result cells hold other data): run it again for them.`
    : done;
}

const KEY_ADVICE = `Save a valid key in ${SETTINGS_PATH}, then Resume.`;

/** The service errors that halt a run with advice: why, and what to do. */
const ADVISED: Partial<Record<ServiceError['error'], [HaltReason, string]>> = {
  payment_required: [
    'out_of_credits',
    'Rows not yet processed stay empty. Add credits to your account, then Resume.',
  ],
  unauthorized: ['key_rejected', KEY_ADVICE],
  missing_key: ['no_key', KEY_ADVICE],
  quota: [
    'quota',
    'Google allows about 20,000 web requests a day for a consumer account (100,000 for Google Workspace). Wait until it resets, then Resume in the Progress tab.',
  ],
};

/** The halt a service error makes of the run. */
export function haltOf(error: ServiceError): Halt {
  const advised = ADVISED[error.error];
  if (advised) return { reason: advised[0], message: withAdvice(error, advised[1]) };
  const stops = error.error === 'endpoint_not_found' || error.error === 'config' || error.effect === 'stop';
  return { reason: stops ? 'configuration' : 'error', message: error.message };
}
