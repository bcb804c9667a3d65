/**
 * Windows of a run's rows (`Job.windows`), one per slice at work: the rows of one batch, leased in the slice's hold
 * of the document lock together with that batch's claims and records, all until the same time (the slice's
 * execution cannot outlive it). Windows never overlap. Rows a slice could not write go back as free windows of
 * exactly those rows (`until` 0); a window whose slice ended (its time over, or its records saying it ended without
 * writing) is free again too. Pure: the job is changed in place, under the lock, by ./step.ts.
 */
import type { Job, WindowLease } from './job';

/** What a window leases from: its windows, the cursor and the last row. */
type LeaseRows = Pick<Job, 'windows' | 'cursor' | 'lastRow'>;

/** Rows a slice could not write, adjacent; `waits`: another execution is looking up their profiles. */
export type RowsLeft = { from: number; to: number; waits: boolean };

/** Windows some slice holds at `now`. */
export function liveWindows(job: Pick<Job, 'windows'>, now: number): WindowLease[] {
  return (job.windows ?? []).filter((window) => window.until > now);
}

/** Slices holding a window now. */
export function slicesWorking(job: Pick<Job, 'windows'>, now: number): number {
  return liveWindows(job, now).length;
}

/** The latest end of a live window (0: no slice works on the run). */
export function leaseEnd(job: Pick<Job, 'windows'>, now: number): number {
  return Math.max(0, ...liveWindows(job, now).map((window) => window.until));
}

/**
 * The slices at work now other than `token`'s (holding a window, or waiting for room in the run's pace), and the
 * requests their windows have at the service.
 */
export function others(
  job: Pick<Job, 'windows' | 'waiting'>,
  token: string,
  now: number,
): { working: number; atService: number } {
  const windows = liveWindows(job, now).filter((window) => window.token !== token);
  const waiting = Object.entries(job.waiting ?? {}).filter(
    ([other, until]) => other !== token && until > now,
  );
  return {
    working: windows.length + waiting.length,
    atService: windows.reduce((sum, window) => sum + (window.n ?? 0), 0),
  };
}

/** `token`'s slice waits for room in the run's pace until `until`: the others' shares make room for it. */
export function waitForRoom(job: Job, token: string, until: number, now: number): void {
  const waiting = Object.fromEntries(Object.entries(job.waiting ?? {}).filter(([, end]) => end > now));
  waiting[token] = until;
  job.waiting = waiting;
}

/** Free windows (given back, or their slice's time over), those waiting on other executions last. */
function freeWindows(job: Pick<Job, 'windows'>, now: number): WindowLease[] {
  return (job.windows ?? [])
    .filter((window) => window.until <= now)
    .sort((a, b) => (a.waits ?? 0) - (b.waits ?? 0) || a.from - b.from);
}

/**
 * What a slice starting now would lease: a free window (one waiting on another execution only once no row of the
 * pass is left), else the rows from the cursor, else (no window at all) the pass over the range.
 */
export function nextLease(
  job: LeaseRows,
  now: number,
): { window: WindowLease } | { cursor: true } | { pass: true } | undefined {
  const free = freeWindows(job, now)[0];
  if (free && (!free.waits || job.cursor > job.lastRow)) return { window: free };
  if (job.cursor <= job.lastRow) return { cursor: true };
  if ((job.windows ?? []).length === 0) return { pass: true };
  return undefined;
}

/** Another slice starting now would find something to lease. */
export function windowToLease(job: LeaseRows, now: number): boolean {
  return nextLease(job, now) !== undefined;
}

/** Windows a slice may find: free ones, and the rows never leased (counted as one, or more at `rowsPerWindow`). */
export function windowsLeft(job: LeaseRows, now: number, rowsPerWindow: number): number {
  const unleased = Math.max(0, job.lastRow - job.cursor + 1);
  return freeWindows(job, now).length + Math.ceil(unleased / Math.max(1, rowsPerWindow));
}

/** `token`'s slice no longer waits for room: it leased a window, or it leaves the run (in place). */
export function stopWaiting(job: Job, token: string): void {
  if (job.waiting?.[token] === undefined) return;
  const { [token]: _, ...rest } = job.waiting;
  job.waiting = rest;
}

/** Leases rows `from`..`to` to `token` until `until`, with `n` requests at the service (in place). */
export function lease(job: Job, window: Omit<WindowLease, 'waits'>, now: number): void {
  stopWaiting(job, window.token);
  const others = (job.windows ?? []).filter((held) => held.to < window.from || held.from > window.to);
  job.windows = [...others, { ...window }].sort((a, b) => a.from - b.from);
  if (window.to >= job.cursor) job.cursor = Math.max(job.cursor, window.to + 1);
  job.leaseUntil = leaseEnd(job, now);
}

/** `token`'s window ends: the rows it could not write go back as free windows (`waits` kept); the rest is done. */
export function giveBack(job: Job, token: string, left: RowsLeft[], now: number): void {
  const windows = (job.windows ?? []).filter((window) => window.token !== token);
  for (const rows of left) {
    const free: WindowLease = { from: rows.from, to: rows.to, token: '', until: 0 };
    if (rows.waits) free.waits = 1;
    windows.push(free);
  }
  job.windows = windows.sort((a, b) => a.from - b.from);
  job.leaseUntil = leaseEnd(job, now);
}

/** The windows of slices that ended without writing them: free again, whole (nothing of them was written). */
export function freeEnded(job: Job, tokens: readonly string[], now: number): void {
  if (tokens.length === 0) return;
  const ended = new Set(tokens);
  job.windows = (job.windows ?? []).map((window) =>
    ended.has(window.token) ? { from: window.from, to: window.to, token: '', until: 0 } : window,
  );
  job.leaseUntil = leaseEnd(job, now);
}

/** The window `token` holds in `job`, if it still does. */
export function windowOf(job: Pick<Job, 'windows'>, token: string): WindowLease | undefined {
  return (job.windows ?? []).find((window) => window.token === token);
}
