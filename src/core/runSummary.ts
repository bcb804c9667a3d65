/**
 * What a run did, in counters that do not overlap: every row of the run's range is in exactly one of found, no
 * address, unprocessable, not a profile, errors, already done, not processed, blank. Pure.
 */
import { STATUS } from './cells';
import type { JobState } from './job';
import { cellText, isOwnStatus } from './rowPlan';

export type ResultKind = 'found' | 'noAddress' | 'unprocessable' | 'notProfile' | 'error';

export type KindCounts = Record<ResultKind, number>;

export const RESULT_KINDS: readonly ResultKind[] = [
  'found',
  'noAddress',
  'unprocessable',
  'notProfile',
  'error',
];

export function emptyKinds(): KindCounts {
  return { found: 0, noAddress: 0, unprocessable: 0, notProfile: 0, error: 0 };
}

/** The kind of a status the add-on wrote, or null (no status, or not the add-on's). */
export function kindOfStatus(status: string, email: unknown = ''): ResultKind | null {
  switch (status) {
    case '':
      return null;
    case STATUS.notFound:
      return 'noAddress';
    case STATUS.unprocessable:
      return 'unprocessable';
    case STATUS.invalidUrl:
      return 'notProfile';
    case STATUS.error:
      return 'error';
    default:
      return isOwnStatus(status, email) ? 'found' : null;
  }
}

/** Counts output rows (Email, Email status, …) by kind. */
export function tallyKinds(outputs: unknown[][]): KindCounts {
  const kinds = emptyKinds();
  for (const output of outputs) {
    const kind = kindOfStatus(cellText(output[1]), output[0]);
    if (kind) kinds[kind]++;
  }
  return kinds;
}

/** The kinds of `after` the run added to `before` (rows it did not touch are in both). */
export function subtractKinds(after: KindCounts, before: KindCounts | undefined): KindCounts {
  const kinds = emptyKinds();
  for (const kind of RESULT_KINDS) kinds[kind] = Math.max(0, after[kind] - (before?.[kind] ?? 0));
  return kinds;
}

export interface RunSummary extends KindCounts {
  id: string;
  state: JobState;
  /** Retry failed rows, or a run over every row. */
  retry: boolean;
  sheetName: string;
  /** The URL rows, e.g. "A2:A41". */
  range: string;
  /** Rows that kept the result they had. */
  alreadyDone: number;
  creditsSpent: number;
  startedAt: number;
  endedAt: number;
  durationMs: number;
}

export interface RunHistory {
  /** The summary of the spreadsheet's last run once it has ended, else null. */
  last: RunSummary | null;
  /** The last few ended runs, newest first. */
  history: RunSummary[];
}

/** How many runs a spreadsheet remembers. */
export const HISTORY_LENGTH = 5;

/** The history with `summary` first (replacing an older entry of the same run), at most HISTORY_LENGTH long. */
export function addToHistory(history: RunSummary[], summary: RunSummary): RunSummary[] {
  return [summary, ...history.filter((entry) => entry.id !== summary.id)].slice(0, HISTORY_LENGTH);
}

/** "2 h 5 min", "3 min 4 s", "12 s". */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
