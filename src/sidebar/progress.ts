/** How a run's progress reads in the sidebar. Pure. */
import type { Progress } from './types';

interface StateWords {
  /** Short state for the heading, e.g. "Paused: out of credits". */
  label: string;
  /** CSS class: the state itself. */
  tone: Progress['state'];
}

/**
 * The state in words. Progress carries no reason code, so the reason of a pause or stop is read from the
 * server's message (the message itself is shown in full below the counts).
 */
export function describeState(progress: Progress): StateWords {
  const message = progress.message ?? '';
  switch (progress.state) {
    case 'idle':
      return { label: 'No run yet', tone: 'idle' };
    case 'running':
      return { label: 'Running', tone: 'running' };
    case 'paused':
      if (/credit/i.test(message)) return { label: 'Paused: out of credits', tone: 'paused' };
      if (/daily limit/i.test(message))
        return { label: 'Paused: daily limit of service calls reached', tone: 'paused' };
      if (/unexpected error/i.test(message)) return { label: 'Paused after an error', tone: 'paused' };
      return { label: 'Paused', tone: 'paused' };
    case 'stopped':
      if (/api key|no key/i.test(message))
        return { label: 'Stopped: the API key is missing or invalid', tone: 'stopped' };
      if (/address|API_BASE_URL|configured/i.test(message)) {
        return { label: 'Stopped: the add-on is misconfigured', tone: 'stopped' };
      }
      return { label: 'Stopped', tone: 'stopped' };
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

export const canPause = (p: Progress): boolean => p.state === 'running';
export const canResume = (p: Progress): boolean => p.state === 'paused' || p.state === 'stopped';
export const canCancel = (p: Progress): boolean =>
  p.state === 'running' || p.state === 'paused' || p.state === 'stopped';
