/** A column whose new profile URLs triggers look up as its starter, within a daily limit. Pure. */
import type { PlacementKind, WatchView } from '../api';
import { columnLetters } from '../core/a1';
import { dayText } from '../core/day';
import { payerIdOf } from '../core/hash';
import { MAX_WATCH_LIMIT } from '../core/limits';
import { numberText } from '../core/text';
import { isoTime } from '../store/credits';

/** One watch per spreadsheet at a time. */
export interface Watch {
  sheetId: number;
  sheetName: string;
  urlColumn: number;
  /** A header there or right above it is found as a run finds it. */
  topRow: number;
  /** To notice the column moved or deleted. */
  headerText: string;
  /** The kind chosen at the start; after the first run, the columns it wrote. */
  placement?: PlacementKind;
  outputColumn?: number;
  /** Credits a day (the spreadsheet's time zone). */
  limit: number;
  /** `runner.id()`: only their trigger runs work. */
  creatorId: string;
  creatorName: string;
  startedAt: number;
  state: 'watching' | 'stopped';
  /** yyyy-MM-dd, what `usedToday` counts. */
  day: string;
  usedToday: number;
  /** The run under way, and its credits already counted in `usedToday`. */
  jobId?: string;
  jobCredits: number;
  lastCheckedAt?: number;
  /** The last run's rows ("C2:C5"). */
  lastRows?: string;
  /** The day the credits log last noted the limit reached. */
  limitNotedDay?: string;
  message: string;
  /** Only the creator can see or delete them. */
  triggerIds: string[];
}

export function parseLimit(raw: unknown): number | { error: string } {
  const value = typeof raw === 'string' ? Number(raw.trim()) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_WATCH_LIMIT) {
    return {
      error: `Type a daily limit of credits for the watch: a whole number from 1 to ${MAX_WATCH_LIMIT.toLocaleString('en-US')}.`,
    };
  }
  return value;
}

export function onDay(watch: Watch, day: string): Watch {
  return watch.day === day ? watch : { ...watch, day, usedToday: 0 };
}

export function remainingToday(watch: Watch): number {
  return Math.max(0, watch.limit - watch.usedToday);
}

/** `credits`: the run's in all; only what is new is added to today's count. */
export function countJobCredits(watch: Watch, jobId: string, credits: number): Watch {
  const before = watch.jobId === jobId ? watch.jobCredits : 0;
  return {
    ...watch,
    jobId,
    jobCredits: credits,
    usedToday: watch.usedToday + Math.max(0, credits - before),
  };
}

export const payerOf = (watch: Pick<Watch, 'creatorName'>) =>
  watch.creatorName || 'the editor who started it';

export function watchedColumn(watch: Pick<Watch, 'sheetName' | 'urlColumn'>): string {
  const column = columnLetters(watch.urlColumn);
  return `${watch.sheetName}!${column}:${column}`;
}

/** Rows a watch's limit keeps waiting, named by the first one's address ("B12 and 3 more rows"). */
export interface WaitingRows {
  first: string;
  rows: number;
}

export function limitReachedMessage(watch: Watch, waiting?: WaitingRows): string {
  const rows = !waiting
    ? 'new rows wait'
    : waiting.rows === 1
      ? `row ${waiting.first} waits`
      : `${waiting.first} and ${waiting.rows - 1} more ${waiting.rows === 2 ? 'row' : 'rows'} below it wait`;
  return `Today's limit of ${numberText(watch.limit, 'credit')} is reached: ${rows} until tomorrow (the spreadsheet's time zone), then the watch goes on by itself. To look them up now, select them and choose Find e-mails.`;
}

export function watchView(
  watch: Watch | null,
  viewer: { runnerId: string | null; hasKey: boolean },
  times: { lastChecked?: string },
  triggersMissing = false,
): WatchView {
  if (!watch) {
    return {
      state: 'none',
      status: 'No column is watched in this spreadsheet.',
      message: '',
      canStart: viewer.hasKey,
    };
  }
  const mine = viewer.runnerId !== null && viewer.runnerId === watch.creatorId;
  const payer = payerOf(watch);
  const column = watchedColumn(watch);
  const view: WatchView = {
    state: watch.state,
    column,
    payer,
    mine,
    limit: watch.limit,
    usedToday: watch.usedToday,
    message: watch.message,
    status: '',
    canStart: viewer.hasKey && watch.state === 'stopped',
  };
  if (watch.state === 'stopped') {
    view.status = `The watch of ${column} is stopped (it was paid by ${payer}).`;
    return view;
  }
  if (triggersMissing) {
    view.state = 'stopped';
    view.triggersMissing = true;
    view.status = `The watch of ${column} is stopped: its triggers were removed outside the add-on. Stop it here, then start it again.`;
    return view;
  }
  const checked = times.lastChecked ? `, last checked ${times.lastChecked}` : ', not checked yet';
  view.status = `Watching ${column} for new rows — paid by ${payer}${mine ? ' (you)' : ''}, up to ${numberText(watch.limit, 'credit')} a day, ${watch.usedToday.toLocaleString('en-US')} used today (${dayText(watch.day)})${checked}.`;
  if (watch.usedToday >= watch.limit) view.limitReached = true;
  return view;
}

/** Start the watch again, not Resume a run. */
export function forTheWatch(message: string): string {
  return message.replace(/\bthen Resume\b[^.]*\./g, 'then start the watch again in the Watch tab.');
}

/** Source "watch", no profile: not a charge. */
export function watchNoteRow(watch: Watch, text: string, now: number): string[] {
  const column = columnLetters(watch.urlColumn);
  const where = `watch · '${watch.sheetName}'!${column}:${column}`;
  return [isoTime(now), 'watch', watch.creatorName, payerIdOf(watch.creatorId), '', text, where];
}
