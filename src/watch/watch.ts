/**
 * A watch: one column of one sheet whose new profile URLs are looked up on their own, by installable triggers
 * running as the person who started it (their key, their credits), within a daily limit of credits they set.
 * Pure: the stored record, the day's count, and every sentence a person reads about it.
 */
import type { PlacementKind, WatchView } from '../api';
import { columnLetters } from '../core/a1';
import { dayText } from '../core/day';
import { stableHash } from '../core/hash';
import { isoTime } from '../store/credits';

/** The record in document properties (WATCH_PROPERTY): one watch per spreadsheet at a time. */
export interface Watch {
  sheetId: number;
  sheetName: string;
  urlColumn: number;
  /** The first row the watch reads (a header there or right above it is found as a run finds it). */
  topRow: number;
  /** The header cell's text when the watch started, to notice the column moved or deleted. */
  headerText: string;
  /** Where results go: the kind chosen at the start; after the first run, the columns it wrote. */
  placement?: PlacementKind;
  outputColumn?: number;
  /** Credits a day, at most (the day in the spreadsheet's time zone). */
  limit: number;
  /** The creator's runner id (the platform's `runner.id()`): only their trigger runs work. */
  creatorId: string;
  creatorName: string;
  startedAt: number;
  state: 'watching' | 'stopped';
  /** The day (yyyy-MM-dd, the spreadsheet's time zone) `usedToday` counts. */
  day: string;
  usedToday: number;
  /** The watch's run under way (a bulk-run job), and its credits already counted in `usedToday`. */
  jobId?: string;
  jobCredits: number;
  lastCheckedAt?: number;
  /** The rows of the watch's last run, in A1 ("C2", "C2:C5"): what the last check looked up. */
  lastRows?: string;
  /** The day the credits log last got the note that the limit was reached. */
  limitNotedDay?: string;
  message: string;
  /** The creator's trigger ids (only the creator can see or delete them). */
  triggerIds: string[];
}

/** A watch's daily limit when the person sets none in the sidebar. */
export const DEFAULT_WATCH_LIMIT = 100;
export const MAX_WATCH_LIMIT = 100_000;

/** The limit as typed: a whole number from 1 to MAX_WATCH_LIMIT, or an error a person can act on. */
export function parseLimit(raw: unknown): number | { error: string } {
  const value = typeof raw === 'string' ? Number(raw.trim()) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_WATCH_LIMIT) {
    return {
      error: `Type a daily limit of credits for the watch: a whole number from 1 to ${MAX_WATCH_LIMIT.toLocaleString('en-US')}.`,
    };
  }
  return value;
}

/** The watch on `day`: the count starts again on a new day. */
export function onDay(watch: Watch, day: string): Watch {
  return watch.day === day ? watch : { ...watch, day, usedToday: 0 };
}

/** Credits the watch may still spend today. */
export function remainingToday(watch: Watch): number {
  return Math.max(0, watch.limit - watch.usedToday);
}

/** The watch after its run `jobId` has spent `credits` in all: only what is new is added to today's count. */
export function countJobCredits(watch: Watch, jobId: string, credits: number): Watch {
  const before = watch.jobId === jobId ? watch.jobCredits : 0;
  return {
    ...watch,
    jobId,
    jobCredits: credits,
    usedToday: watch.usedToday + Math.max(0, credits - before),
  };
}

export function watchedColumn(watch: Pick<Watch, 'sheetName' | 'urlColumn'>): string {
  const column = columnLetters(watch.urlColumn);
  return `${watch.sheetName}!${column}:${column}`;
}

const credits = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'credit' : 'credits'}`;

/** The day's limit reached; `waiting`: the rows that wait, named by the first one's address ("B12 and 3 more rows"). */
export function limitReachedMessage(watch: Watch, waiting?: { first: string; rows: number }): string {
  const rows = !waiting
    ? 'new rows wait'
    : waiting.rows === 1
      ? `row ${waiting.first} waits`
      : `${waiting.first} and ${waiting.rows - 1} more ${waiting.rows === 2 ? 'row' : 'rows'} below it wait`;
  return `Today's limit of ${credits(watch.limit)} is reached: ${rows} until tomorrow (the spreadsheet's time zone), then the watch goes on by itself. To look them up now, select them and choose Find e-mails.`;
}

/** What each editor's sidebar shows of the watch; `viewerId`: the viewer's runner id. */
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
  const payer = watch.creatorName || 'the editor who started it';
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
  view.status = `Watching ${column} for new rows — paid by ${payer}${mine ? ' (you)' : ''}, up to ${credits(watch.limit)} a day, ${watch.usedToday.toLocaleString('en-US')} used today (${dayText(watch.day)})${checked}.`;
  if (watch.usedToday >= watch.limit) view.limitReached = true;
  return view;
}

/** A run's halt message said of the watch: what to do is to start it again, not to Resume a run. */
export function forTheWatch(message: string): string {
  return message.replace(/\bthen Resume\b[^.]*\./g, 'then start the watch again in the Watch tab.');
}

/** The credits-log note of the day's limit reached (once a day). */
export function limitNote(watch: Watch): string {
  return `watch paused until tomorrow: today's limit of ${credits(watch.limit)} reached`;
}

/** The credits-log note of a watch that stopped (or was stopped), and why. */
export function stopNote(reason: string): string {
  return `watch stopped: ${reason}`;
}

/** A note row of the credits log (src/store/credits.ts: Source "watch", no profile): not a charge. */
export function watchNoteRow(watch: Watch, text: string, now: number): string[] {
  const payerId = watch.creatorId ? stableHash(watch.creatorId).slice(0, 8) : '';
  const column = columnLetters(watch.urlColumn);
  const where = `watch · '${watch.sheetName}'!${column}:${column}`;
  return [isoTime(now), 'watch', watch.creatorName, payerId, '', text, where];
}
