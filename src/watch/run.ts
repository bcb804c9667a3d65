/** One trigger run of a watch, as its creator: a bulk run over the planned rows, driven slice by slice while time lasts. */
import type { Progress, RunReason } from '../api';
import {
  cancelRun,
  createWatchRun,
  driveSlice,
  hasDocument,
  isActive,
  type Job,
  loadJob,
} from '../bulk/forWatch';
import { a1Of } from '../core/a1';
import { DEFAULT_STEP_BUDGET_MS, WATCH_MAX_ROUNDS, WATCH_RUN_BUDGET_MS } from '../core/limits';
import type { Platform } from '../core/ports';
import { numberText, withoutStop } from '../core/text';
import { planWatchedRows } from './plan';
import { loadWatch, saveWatch, updateWatch } from './store';
import {
  countJobCredits,
  forTheWatch,
  limitReachedMessage,
  onDay,
  remainingToday,
  type Watch,
  watchNoteRow,
} from './watch';

/** For the execution log. */
export type WatchRunEnd =
  | 'no spreadsheet'
  | 'not watching'
  | 'not the creator'
  | 'up to date'
  | 'limit'
  | 'waiting for a run'
  | 'leased elsewhere'
  | 'another run first'
  | 'cancelled'
  | 'tries again later'
  | 'stopped'
  | 'time';

/** Nothing can pay, or the sheet is gone: a new reason does not compile until decided. */
const STOPS_WATCH: Record<Exclude<RunReason, 'user'>, boolean> = {
  key_rejected: true,
  no_key: true,
  out_of_credits: true,
  configuration: true,
  sheet_missing: true,
  sheet_changed: true,
  no_spreadsheet: false,
  quota: false,
  error: false,
  sidebar_closed: false,
};

export function runWatch(platform: Platform): WatchRunEnd {
  // A time-driven trigger would get here with no spreadsheet (reported): nothing to read, nothing sent.
  if (!hasDocument(platform)) return 'no spreadsheet';
  const me = platform.runner.id();
  const watch = loadWatch(platform);
  if (watch?.state !== 'watching' || !me || me !== watch.creatorId) {
    // The creator's triggers of a watch stopped by someone else (or replaced by another editor's) go away here.
    if (me) platform.triggers.deleteMine();
    return watch?.state === 'watching' ? 'not the creator' : 'not watching';
  }
  const started = platform.clock.now();
  const stepMs = platform.config().stepBudgetMs ?? DEFAULT_STEP_BUDGET_MS;
  const hasTime = () => platform.clock.now() - started + stepMs <= WATCH_RUN_BUDGET_MS;
  for (let round = 0; round < WATCH_MAX_ROUNDS && hasTime(); round++) {
    const end = watchStep(platform, me, hasTime);
    if (end !== 'again') return end;
  }
  return 'time';
}

function watchStep(platform: Platform, me: string, hasTime: () => boolean): WatchRunEnd | 'again' {
  const day = platform.clock.day(platform.clock.now());
  const watch = updateWatch(platform, (stored) => onDay(stored, day));
  // Stopped, or not this user's.
  if (watch?.state !== 'watching' || watch.creatorId !== me) return 'stopped';
  const job = loadJob(platform);
  if (job && isActive(job.state)) {
    if (job.origin !== 'watch' || job.ownerId !== me) {
      note(
        platform,
        'A run is under way in this spreadsheet: new rows wait until it ends (the next change or opening).',
      );
      return 'waiting for a run';
    }
    if (job.state !== 'running') return settle(platform, job);
    // That trigger run plans again when it ends, and finds these rows.
    if (job.leaseUntil > platform.clock.now()) return 'leased elsewhere';
    return drive(platform, job.id, me, hasTime);
  }
  const plan = planWatchedRows(platform, watch, remainingToday(watch));
  if (plan.kind === 'nothing') {
    const last = watch.lastRows ? ` The last check looked up ${watch.lastRows}.` : '';
    note(platform, `Up to date: no profile URL of the column waits for a lookup.${last}`);
    return 'up to date';
  }
  if (plan.kind === 'limit') {
    // Said in the sidebar, and once a day as a note in the credits log.
    const now = platform.clock.now();
    platform.lock.with(() => {
      const stored = loadWatch(platform);
      if (!stored) return;
      const first = stored.limitNotedDay !== stored.day;
      saveWatch(platform, {
        ...stored,
        message: limitReachedMessage(stored, plan.waiting),
        lastCheckedAt: now,
        limitNotedDay: stored.day,
      });
      const text = `watch paused until tomorrow: today's limit of ${numberText(stored.limit, 'credit')} reached`;
      if (first) platform.creditsLog.append([watchNoteRow(stored, text, now)]);
    });
    return 'limit';
  }
  if (plan.kind === 'stop') {
    stopWatch(platform, `${plan.reason}. Start it again in the Watch tab`);
    return 'stopped';
  }
  const created = createWatchRun(platform, plan.planned, me, watch.creatorName);
  if (!created) return 'another run first';
  updateWatch(platform, (stored) => ({
    ...stored,
    jobId: created.id,
    jobCredits: 0,
    lastRows: a1Of({
      row: created.firstRow,
      column: created.urlColumn,
      rows: created.lastRow - created.firstRow + 1,
      columns: 1,
    }),
    outputColumn: created.outputColumn,
    // The columns exist now: later runs find them as the add-on's own.
    placement: plan.planned.plan.placement.kind === 'right' ? 'right' : 'reuse',
  }));
  return drive(platform, created.id, me, hasTime);
}

/** The day's total counts the credits after each slice. */
function drive(platform: Platform, jobId: string, me: string, hasTime: () => boolean): WatchRunEnd | 'again' {
  let progress: Progress | undefined;
  do {
    if ((loadJob(platform)?.leaseUntil ?? 0) > platform.clock.now()) return 'leased elsewhere';
    progress = driveSlice(platform, jobId, me);
    const spent = progress.creditsUsed + progress.creditsMaybeLost;
    updateWatch(platform, (stored) => ({
      ...countJobCredits(stored, jobId, spent),
      lastCheckedAt: platform.clock.now(),
    }));
    if (progress.state !== 'running') break;
  } while (hasTime());
  if (progress.state === 'running') return 'time';
  const job = loadJob(platform);
  return job && job.id === jobId ? settle(platform, job) : 'again';
}

function settle(platform: Platform, job: Job): WatchRunEnd | 'again' {
  if (job.state === 'done') return 'again';
  if (job.state === 'cancelled' && job.reason === 'user') return 'cancelled';
  const reason = job.reason ?? 'error';
  // The watch's own run never stays paused: another person's run could not start beside it.
  if (isActive(job.state)) cancelRun(platform, job.id);
  if (reason !== 'user' && STOPS_WATCH[reason]) {
    stopWatch(platform, withoutStop(forTheWatch(job.message)));
    return 'stopped';
  }
  note(
    platform,
    `The last check met a problem (${withoutStop(job.message)}); the next change or opening tries again.`,
  );
  return 'tries again later';
}

function note(platform: Platform, message: string): void {
  updateWatch(platform, (stored) => ({ ...stored, message, lastCheckedAt: platform.clock.now() }));
}

/** `by`: who, else itself. The creator's triggers go now or at their next run. */
export function stopWatch(platform: Platform, reason: string, by?: string): Watch | null {
  const now = platform.clock.now();
  const stopped = platform.lock.with(() => {
    const stored = loadWatch(platform);
    if (stored?.state !== 'watching') return null;
    const message = by
      ? `Stopped by ${by} at ${platform.clock.timeText(now)}.`
      : `Stopped by itself: ${reason}.`;
    const next: Watch = { ...stored, state: 'stopped', message, lastCheckedAt: now };
    saveWatch(platform, next);
    const note = `watch stopped: ${by ? `stopped by ${by}` : reason}`;
    platform.creditsLog.append([watchNoteRow(next, note, now)]);
    return next;
  });
  if (stopped && stopped.creatorId === platform.runner.id()) platform.triggers.deleteMine();
  return stopped;
}
