/** How a run's progress reads in the sidebar. Pure. */
import type { Progress, RunReason } from './types';

interface StateWords {
  /** Short state for the heading, e.g. "Paused: out of credits". */
  label: string;
  /** CSS class: the state itself. */
  tone: Progress['state'];
}

/** The heading of a paused or stopped run, by the machine-readable reason the server gives. */
const HALTED: Partial<Record<RunReason, string>> = {
  out_of_credits: 'Paused: out of credits',
  quota: 'Paused: daily limit of service calls reached',
  error: 'Paused after an error',
  key_rejected: 'Stopped: the API key is missing or invalid',
  no_key: 'Stopped: the API key is missing or invalid',
  configuration: 'Stopped: the add-on is misconfigured',
};

/** The state in words (the server's message itself is shown in full below the counts). */
export function describeState(progress: Progress): StateWords {
  switch (progress.state) {
    case 'idle':
      return { label: 'No run yet', tone: 'idle' };
    case 'running':
      return { label: 'Running', tone: 'running' };
    case 'paused':
    case 'stopped': {
      const label =
        (progress.reason && HALTED[progress.reason]) || (progress.state === 'paused' ? 'Paused' : 'Stopped');
      return { label, tone: progress.state };
    }
    case 'cancelled':
      return { label: 'Cancelled', tone: 'cancelled' };
    case 'done':
      return { label: 'Done', tone: 'done' };
    default:
      return { label: String(progress.state), tone: 'idle' };
  }
}

/** Whole percent of rows processed, 0..100. */
export function percentDone(progress: Progress): number {
  if (progress.state === 'done') return 100;
  if (!(progress.total > 0)) return 0;
  return Math.max(0, Math.min(100, Math.floor((progress.processed / progress.total) * 100)));
}

export function fractionText(progress: Progress): string {
  if (progress.state === 'idle') return '';
  const rows = progress.total === 1 ? 'row' : 'rows';
  return `${progress.processed} of ${progress.total} ${rows} processed (${percentDone(progress)}%)`;
}

/** The credits count: what was charged, and apart what may have been charged for answers lost on the way. */
export function creditsShown(progress: Progress): string {
  const lost = progress.creditsMaybeLost ?? 0;
  return lost > 0
    ? `${progress.creditsUsed} (up to ${lost} more may have been charged for answers lost to connection failures)`
    : String(progress.creditsUsed);
}

export const canPause = (p: Progress): boolean => p.state === 'running';
export const canResume = (p: Progress): boolean => p.state === 'paused' || p.state === 'stopped';
export const canCancel = (p: Progress): boolean =>
  p.state === 'running' || p.state === 'paused' || p.state === 'stopped';
