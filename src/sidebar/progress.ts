/** How a run's progress reads in the sidebar. Pure. */
import { pausedWithEveryRow } from '../core/runWords';
import type { Progress, RunReason } from './types';

interface StateWords {
  label: string;
  /** CSS class: the state itself. */
  tone: Progress['state'];
}

const HALTED: Partial<Record<RunReason, string>> = {
  out_of_credits: 'Paused: out of credits',
  quota: 'Paused: daily limit of service calls reached',
  error: 'Paused after an error',
  key_rejected: 'Stopped: the API key is missing or invalid',
  no_key: 'Stopped: the API key is missing or invalid',
  configuration: 'Stopped: the add-on is misconfigured',
};

/** Nobody's sidebar drives it: nothing moves until the starter's sidebar is open again. */
const closedSidebar = (p: Progress): StateWords => ({
  label: p.readOnly
    ? "Paused: its starter's sidebar is closed"
    : 'Paused: the sidebar was closed — open it to go on',
  tone: 'paused',
});

/** The heading's state in words (the server's message is shown in full below the counts). */
export function describeState(progress: Progress): StateWords {
  const { state, reason } = progress;
  if (state === 'running')
    return progress.waiting ? closedSidebar(progress) : { label: 'Running', tone: state };
  if (state === 'paused' || state === 'stopped') {
    // The answers on their way at Pause finished every row: only the run's end is left (Resume makes it).
    if (pausedWithEveryRow(progress)) return { label: 'Every row has its result', tone: 'paused' };
    if (reason === 'sidebar_closed') return closedSidebar(progress);
    return { label: (reason && HALTED[reason]) || (state === 'paused' ? 'Paused' : 'Stopped'), tone: state };
  }
  return { label: { idle: 'No run yet', cancelled: 'Cancelled', done: 'Done' }[state], tone: state };
}

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

export function creditsShown(progress: Pick<Progress, 'creditsUsed' | 'creditsMaybeLost'>): string {
  const lost = progress.creditsMaybeLost ?? 0;
  return lost > 0
    ? `${progress.creditsUsed} (up to ${lost} more may have been charged for answers lost to connection failures)`
    : String(progress.creditsUsed);
}

export const pausedByClosedSidebar = (p: Progress): boolean =>
  !p.readOnly && p.state === 'paused' && p.reason === 'sidebar_closed';
export const isUnderWay = (p: Progress): boolean =>
  p.state === 'running' || p.state === 'paused' || p.state === 'stopped';
// Only the person who started a run can pause, resume or cancel it.
export const canPause = (p: Progress): boolean => !p.readOnly && p.state === 'running';
export const canResume = (p: Progress): boolean =>
  !p.readOnly && (p.state === 'paused' || p.state === 'stopped');
export const canCancel = (p: Progress): boolean => !p.readOnly && isUnderWay(p);

export function ownerNotice(p: Progress): string {
  if (!p.readOnly || !isUnderWay(p)) return '';
  const waiting = p.waiting ? ' It goes on while their sidebar is open.' : '';
  return `Started by ${p.startedBy ?? 'another editor'}; only they can run, pause or resume it. It spends nothing of yours.${waiting}`;
}

/** Why a running run goes slower than it could (paceReason in src/lookup/pace.ts). */
export function paceNotice(p: Progress): string {
  if (p.state !== 'running') return '';
  if (p.paceReason === 'connection_failures')
    return 'Small batches after failed lookups (lost connections or service errors): the run goes on more slowly until they stop. Nothing to do.';
  if (p.paceReason === 'rate_limited')
    return 'Smaller batches: the service asked to slow down (HTTP 429). The run goes on at the pace it allows. Nothing to do.';
  return '';
}

export function driverNotice(p: Progress): string {
  return !p.readOnly && p.state === 'running'
    ? 'Keep this sidebar open: it drives the run. Closing it pauses the run; opening the sidebar again resumes it.'
    : '';
}

/** Paused or cancelled with a batch on its way: the lookups already sent, which may still be charged. */
export function inFlightText(p: Progress): string {
  if (p.inFlight === undefined || (p.state !== 'paused' && p.state !== 'cancelled')) return '';
  const sent = p.inFlight;
  const what = p.state === 'paused' ? 'Paused' : 'Cancelled';
  if (sent === 0) return `${what}: the rows already answered are being written. The final count follows.`;
  const lookups = sent === 1 ? '1 lookup was' : `${sent} lookups were`;
  return `${what}: ${lookups} already sent before you pressed it; their answers may still be charged. The final count follows when they are back.`;
}
