/** How a bulk run's figures read, the same on the server and in the sidebar. Pure. */
import type { KindCounts, ResultKind, RunCounts, RunReason, RunSummary } from '../api';
import { countText, hitRateText } from './text';

export function emptyKinds(): KindCounts {
  return { found: 0, noAddress: 0, unprocessable: 0, notProfile: 0, error: 0 };
}

export const RESULT_KINDS = Object.keys(emptyKinds()) as readonly ResultKind[];

export function emptyRunCounts(): RunCounts {
  return {
    total: 0,
    processed: 0,
    ...emptyKinds(),
    alreadyDone: 0,
    creditsUsed: 0,
    creditsMaybeLost: 0,
    lookupsFound: 0,
  };
}

/** A paused run whose every row has its result (the batch on its way at Pause finished it): Resume only ends it. */
export function pausedWithEveryRow(run: { state: string; total: number; processed: number }): boolean {
  return run.state === 'paused' && run.total > 0 && run.processed >= run.total;
}

export const EVERY_ROW_PAUSED_MESSAGE =
  'Every row has its result: the answers on their way when you pressed Pause finished the run. Resume ends it (one free read checks that no row moved; nothing is sent unless one did).';
export const EVERY_ROW_PAUSED_OTHERS =
  'Every row has its result: the answers on their way when its starter pressed Pause finished the run. Their Resume ends it.';

export const FAILED_KINDS: readonly ResultKind[] = ['error', 'unprocessable', 'notProfile'];
/** Retry failed rows redoes these (unprocessable when asked); a not-a-profile cell needs the user. */
export const RETRIED_KINDS: readonly ResultKind[] = ['error', 'unprocessable'];

export const sumOf = (counts: KindCounts, kinds: readonly ResultKind[]): number =>
  kinds.reduce((sum, kind) => sum + counts[kind], 0);

/** Every figure names its unit, rows or lookups and credits: "found" alone would mean both. */
const ROWS_WORDS: Record<ResultKind | 'alreadyDone', string> = {
  found: 'with an address',
  noAddress: 'with no address',
  unprocessable: 'unprocessable',
  notProfile: 'not a profile',
  error: 'with an error',
  alreadyDone: 'already done',
};

/** "4 rows with an address, 1 row not a profile, 18 rows already done": the first always, the others when not 0. */
export function kindsText(counts: KindCounts & Pick<RunCounts, 'alreadyDone'>): string {
  const kinds = [...RESULT_KINDS, 'alreadyDone'] as const;
  return kinds
    .filter((kind) => kind === 'found' || counts[kind] > 0)
    .map((kind) => `${countText(counts[kind], 'row')} ${ROWS_WORDS[kind]}`)
    .join(', ');
}

/** "7 credits used: 5 of 7 lookups found an address (71 %)", and the answers lost to connection failures apart. */
export function creditsText(
  counts: Pick<RunCounts, 'creditsUsed' | 'creditsMaybeLost' | 'lookupsFound'>,
): string {
  const lost = counts.creditsMaybeLost ?? 0;
  const rate =
    counts.lookupsFound !== undefined && counts.creditsUsed > 0
      ? `: ${hitRateText(counts.creditsUsed, counts.lookupsFound)}`
      : '';
  const used = `${countText(counts.creditsUsed, 'credit')} used${rate}`;
  return lost > 0
    ? `${used}, up to ${lost} more may have been charged for answers lost to connection failures`
    : used;
}

/** Rows with an address beyond the lookups that found one: "3 rows reused an address already found" ('' if none). */
export function reusedText(counts: Pick<RunCounts, 'found' | 'lookupsFound'>): string {
  if (counts.lookupsFound === undefined) return '';
  const reused = counts.found - counts.lookupsFound;
  return reused > 0
    ? `${countText(reused, 'row')} reused an address already found (a repeated or known profile)`
    : '';
}

export function runText(counts: RunCounts): string {
  const reused = reusedText(counts);
  return `${kindsText(counts)}. ${creditsText(counts)}${reused ? `; ${reused}` : ''}`;
}

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
  sidebar_closed: 'for the sidebar',
};

/** "12 s", or the working time with the waits apart: "3 s of work, waited 26 s for a key". */
export function timeTakenText(summary: Pick<RunSummary, 'durationMs' | 'waited'>): string {
  const waits = Object.entries(summary.waited ?? {})
    .filter(([, ms]) => Math.round((ms ?? 0) / 1000) > 0)
    .map(([why, ms]) => `waited ${durationText(ms ?? 0)} ${WAITED_FOR[why as RunReason] ?? 'while halted'}`);
  const work = durationText(summary.durationMs);
  return waits.length > 0 ? `${work} of work, ${waits.join(', ')}` : work;
}

export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
