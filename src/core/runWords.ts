/** How a bulk run's figures read, the same on the server and in the sidebar. Pure. */
import type { KindCounts, ResultKind, RunCounts, RunReason, RunSummary } from '../api';
import { countText } from './text';

export function emptyKinds(): KindCounts {
  return { found: 0, noAddress: 0, unprocessable: 0, notProfile: 0, error: 0 };
}

export function emptyRunCounts(): RunCounts {
  return { total: 0, processed: 0, ...emptyKinds(), alreadyDone: 0, creditsUsed: 0, creditsMaybeLost: 0 };
}

/** Rows the summary offers to select: the failed kinds (errors, unprocessable, not a profile). */
export const FAILED_KINDS: readonly ResultKind[] = ['error', 'unprocessable', 'notProfile'];
/** Rows Retry failed rows redoes: errors, and unprocessable ones when asked (a not-a-profile cell needs the user). */
export const RETRIED_KINDS: readonly ResultKind[] = ['error', 'unprocessable'];

export const sumOf = (counts: KindCounts, kinds: readonly ResultKind[]): number =>
  kinds.reduce((sum, kind) => sum + counts[kind], 0);

/** "4 found, 2 no address, 1 not a profile, 18 already done": found always, the other figures when not 0. */
export function kindsText(counts: KindCounts & Pick<RunCounts, 'alreadyDone'>): string {
  const parts = [`${counts.found} found`];
  if (counts.noAddress > 0) parts.push(`${counts.noAddress} no address`);
  if (counts.unprocessable > 0) parts.push(`${counts.unprocessable} unprocessable`);
  if (counts.notProfile > 0) parts.push(`${counts.notProfile} not a profile`);
  if (counts.error > 0) parts.push(countText(counts.error, 'error'));
  if (counts.alreadyDone > 0) parts.push(`${counts.alreadyDone} already done`);
  return parts.join(', ');
}

/** "7 credits used", and the answers lost to connection failures apart: "…, up to 2 more may have been charged …". */
export function creditsText(counts: Pick<RunCounts, 'creditsUsed' | 'creditsMaybeLost'>): string {
  const lost = counts.creditsMaybeLost ?? 0;
  const used = `${countText(counts.creditsUsed, 'credit')} used`;
  return lost > 0
    ? `${used}, up to ${lost} more may have been charged for answers lost to connection failures`
    : used;
}

/** What a paused or stopped run waited for, by the reason of the halt. */
const WAITED_FOR: Record<RunReason, string> = {
  user: 'while paused',
  out_of_credits: 'for credits',
  key_rejected: 'for a key',
  no_key: 'for a key',
  quota: "for Apps Script's daily limit",
  configuration: 'for the configuration',
  error: 'after an error',
  no_spreadsheet: 'for the spreadsheet',
  sheet_missing: 'for the sheet',
  sheet_changed: 'for the sheet',
};

/** "12 s", or the working time with the waits apart: "3 s of work, waited 26 s for a key". */
export function timeTakenText(summary: Pick<RunSummary, 'durationMs' | 'waited'>): string {
  const waits = Object.entries(summary.waited ?? {})
    .filter(([, ms]) => Math.round((ms ?? 0) / 1000) > 0)
    .map(([why, ms]) => `waited ${durationText(ms ?? 0)} ${WAITED_FOR[why as RunReason] ?? 'while halted'}`);
  const work = durationText(summary.durationMs);
  return waits.length > 0 ? `${work} of work, ${waits.join(', ')}` : work;
}

/** "2 h 5 min", "3 min 4 s", "12 s". */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
