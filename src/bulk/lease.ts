/**
 * A slice's hold on a window of the job's rows: the window leased (only by the starter's executions; several
 * slices of one run at once, each on its own window, windows never overlapping), the job as this slice changes it
 * (only through the operations below), merged into the stored job under the document lock (counts added, a pause
 * or cancel from the sidebar winning, another job or slice left alone), and the window released.
 */

import { LEASE_MS } from '../core/limits';
import type { SheetPort } from '../core/sheet';
import { timeId } from '../core/timeId';
import type { RowOutcome } from '../lookup/cellValues';
import { DocumentBusyError } from '../platform/errors';
import type { Platform } from '../platform/platform';
import { countCopy, countOutcome } from './counting';
import { type Counts, countsShown, type Job, mayDrive, type WindowLease } from './job';
import { cancelledMessage, type JobEvent, transition } from './jobMachine';
import { loadJob, updateJob } from './jobStore';
import { COLUMNS_MOVED, noteEnds, relocate } from './relocate';
import { cellHash } from './rowCells';

/** Windows some slice holds at `now`. */
function liveWindows(job: Job, now: number): WindowLease[] {
  return (job.windows ?? []).filter((window) => window.until > now);
}

/**
 * A slice starting now would find a window: rows never leased in this pass, a window a slice left, or (no window
 * held) the pass over the range. False: every row of the pass is in a live slice's window.
 */
export function windowToLease(job: Job, now: number): boolean {
  const windows = job.windows ?? [];
  return job.cursor <= job.lastRow || windows.length === 0 || windows.some((window) => window.until <= now);
}

/** Slices holding a window now. */
export function slicesWorking(job: Job, now: number): number {
  return liveWindows(job, now).length;
}

/** The latest end of a live window lease (0: no slice works on the run). */
function leaseEnd(job: Job, now: number): number {
  return Math.max(0, ...liveWindows(job, now).map((window) => window.until));
}

/**
 * Rows a new window takes: `rows` (two batches), or near the end of a pass, when the rows never leased no longer
 * hold such a window for each of the slices working now (at most the run's `slices`), one batch's: the slices' last
 * batches then go out together, rather than one slice sending a window's second batch alone after the others ended.
 */
function newWindowRows(job: Job, rows: number, token: string, now: number, slices: number): number {
  const others = liveWindows(job, now).filter(
    (window) => window.token !== token && window.from <= job.lastRow,
  );
  // The slices working now, at most the run's figure: a lone slice (a slower service) keeps whole windows.
  const working = Math.min(slices, others.length + 1);
  const left = job.lastRow - job.cursor + 1;
  if (working <= 1 || left >= rows * working) return rows;
  return Math.ceil(rows / 2);
}

/**
 * Leases a window to `token` in the stored job (changed in place, under the lock): a window a slice left (its lease
 * ended), else the next rows never leased in this pass (`rows`, fewer at the end: newWindowRows), else, when no
 * slice holds a window, the pass over the whole range. Null: every row of the pass is leased to live slices.
 */
function leaseWindow(job: Job, rows: number, token: string, now: number, slices = 1): WindowLease | null {
  const windows = job.windows ?? [];
  const until = now + LEASE_MS;
  const left = windows.filter((window) => window.until <= now).sort((a, b) => a.from - b.from)[0];
  let window: WindowLease | null = null;
  if (left) {
    left.token = token;
    left.until = until;
    window = left;
  } else if (job.cursor <= job.lastRow) {
    window = {
      from: job.cursor,
      to: Math.min(job.lastRow, job.cursor + Math.max(1, newWindowRows(job, rows, token, now, slices)) - 1),
      token,
      until,
    };
    job.cursor = window.to + 1;
    windows.push(window);
  } else if (windows.length === 0) {
    window = { from: job.lastRow + 1, to: job.lastRow, token, until };
    windows.push(window);
  }
  job.windows = windows;
  job.leaseUntil = leaseEnd(job, now);
  return window;
}

/**
 * Takes a window of the job when it is running, this execution's user started it, and a window is free; the job,
 * and the lease or null. Nobody else's execution ever works on the run: it would spend their key's credits.
 */
export function takeLease(
  platform: Platform,
  jobId: string,
  started: number,
  runnerId: string | null,
  rows: number,
  slices = 1,
): { job: Job | null; lease: JobLease | null } {
  let taken: { job: Job; window: WindowLease } | null = null;
  const token = timeId(started);
  try {
    const job = updateJob(platform, (stored) => {
      if (!stored || stored.id !== jobId || stored.state !== 'running' || !mayDrive(stored, runnerId))
        return stored;
      const next: Job = structuredCopy(stored);
      const window = leaseWindow(next, rows, token, started, slices);
      if (!window) return stored;
      taken = { job: next, window: { ...window } };
      return next;
    });
    const leased = taken as { job: Job; window: WindowLease } | null;
    return { job, lease: leased ? new JobLease(platform, leased.job, leased.window) : null };
  } catch (error) {
    // The lock is busy (or LockService refused it): no lease, the next slice tries again.
    if (error instanceof DocumentBusyError) return { job: loadJob(platform), lease: null };
    throw error;
  }
}

function structuredCopy(job: Job): Job {
  return JSON.parse(JSON.stringify(job)) as Job;
}

type CountName = keyof Counts;

export class JobLease {
  private readonly platform: Platform;
  /** The stored job as last merged, with `cursor` this slice's next row in its window. */
  private current: Job;
  private window: WindowLease;
  /** The counts as last merged: what this slice added since is added to the stored job's. */
  private base: Counts;
  /** Events this slice applied since the last merge (halt, finish), applied to the stored job when merged. */
  private events: JobEvent[] = [];
  private newPass: { pass: number; cursor: number } | null = null;
  private aheadAdded: string[] = [];
  private aheadRemoved: string[] = [];
  private endsNoted = false;
  private lost = false;
  constructor(platform: Platform, job: Job, window: WindowLease) {
    this.platform = platform;
    this.window = window;
    this.current = { ...job, cursor: window.from };
    this.base = { ...job.counts };
  }

  /** This slice's token: its windows', and its place among the run's slices sharing the pace. */
  get token(): string {
    return this.window.token;
  }

  /** The job as this slice has it (read only: it changes through the operations below). */
  get job(): Readonly<Job> {
    return this.current;
  }

  /** The last row of this slice's window. */
  get windowEnd(): number {
    return this.window.to;
  }

  /** The window is the pass over the whole range (after the last row), not rows of its own. */
  get onPass(): boolean {
    return this.window.from > this.current.lastRow;
  }

  /** This slice may go on: the job is running and its window still this slice's. */
  get working(): boolean {
    return this.current.state === 'running' && !this.lost;
  }

  /** A state change (src/bulk/jobMachine.ts): halt, finish. */
  apply(event: JobEvent): void {
    this.current = transition(this.current, event, this.platform.clock.now());
    this.events.push(event);
  }

  /**
   * Moves the job with rows or columns inserted or deleted since its frame was noted, under the lock: only when no
   * other slice holds a window (their rows would move under them), every window given up and this slice's taken
   * again in the new frame. 'wait': others work in the old frame, this slice ends; false: the job can no longer
   * tell where its cells are (it is halted).
   */
  followSheet(sheet: SheetPort, width: number): boolean | 'wait' {
    if (sheet.maxRows() === this.current.maxRows && sheet.maxColumns() === this.current.maxColumns)
      return true;
    let outcome: boolean | 'wait' = 'wait';
    const now = this.platform.clock.now();
    const rows = this.window.to - this.window.from + 1;
    const stored = updateJob(
      this.platform,
      (job) => {
        if (!job || job.id !== this.current.id || !this.holds(job)) return job;
        const next = structuredCopy(job);
        const others = liveWindows(next, now).filter((window) => window.token !== this.window.token);
        if (others.length > 0) {
          this.freeWindow(next, now);
          return next;
        }
        const starts = (next.windows ?? [])
          .map((window) => window.from)
          .filter((from) => from <= next.lastRow);
        next.cursor = Math.min(next.cursor, ...starts);
        next.windows = [];
        next.leaseUntil = 0;
        if (!relocate(next, sheet, width)) {
          outcome = false;
          return transition(next, { type: 'halt', reason: 'sheet_changed', message: COLUMNS_MOVED }, now);
        }
        const window = leaseWindow(next, rows, this.window.token, now);
        if (window) {
          this.window = { ...window };
          outcome = true;
        }
        return next;
      },
      true,
    );
    const followed = outcome as boolean | 'wait';
    if (followed !== true || !stored) {
      this.lost = true;
      if (stored && stored.id === this.current.id) this.current = { ...stored, cursor: this.current.cursor };
      return followed;
    }
    this.current = { ...stored, cursor: this.window.from };
    this.base = { ...stored.counts };
    return true;
  }

  /** Notes the URL cells at the job's ends as this slice leaves them (kept when the sheet's frame is unchanged). */
  noteEnds(sheet: SheetPort): void {
    if (sheet.maxRows() !== this.current.maxRows || sheet.maxColumns() !== this.current.maxColumns) return;
    noteEnds(this.current, sheet);
    this.endsNoted = true;
  }

  /** The rows before the cursor's new place are done in this pass. */
  advance(rows: number): void {
    this.current.cursor += rows;
  }

  /** A new pass over the range, from the first row still without a result (only on the pass's window). */
  startPass(cursor: number): void {
    this.current.pass++;
    delete this.current.rowsWrittenAhead;
    this.current.cursor = cursor;
    this.newPass = { pass: this.current.pass, cursor };
  }

  /** Why this slice's batches were held small, if they were (src/lookup/pace.ts paceReason). */
  notePace(reason: Job['paceReason']): void {
    this.current.paceReason = reason;
  }

  /** The progress line while the run works (set again from the summed counts when merged). */
  sayRowsProcessed(): void {
    if (this.current.state !== 'running') return;
    this.current.message = workingMessage(this.current);
  }

  /**
   * Charged answers received (`found` of them found an address), and requests whose answers were lost (the service
   * may have charged each).
   */
  countCredits(used: number, maybeLost: number, found = 0): void {
    const { counts } = this.current;
    counts.creditsUsed += used;
    counts.creditsMaybeLost += maybeLost;
    counts.lookupsFound = (counts.lookupsFound ?? 0) + found;
  }

  /** A row written from an outcome. */
  countOutcome(outcome: RowOutcome): void {
    countOutcome(this.current.counts, outcome);
  }

  /** A row written as a copy of another row's output (a duplicate URL). */
  countCopy(output: unknown[]): void {
    countCopy(this.current.counts, output);
  }

  /**
   * A re-check's first pass looks every row up again, so a row written ahead of the cursor (past a halt) comes up
   * again in a later window: it is counted once, when first written (`rowsWrittenAhead` holds its key's hash).
   */
  countRechecked(key: string, outcome: RowOutcome, ahead: boolean): void {
    const job = this.current;
    const mark = cellHash(key);
    const marks = job.rowsWrittenAhead ?? [];
    const earlier = marks.indexOf(mark);
    if (ahead) {
      job.rowsWrittenAhead = [...marks, mark];
      this.aheadAdded.push(mark);
    } else if (earlier >= 0) {
      job.rowsWrittenAhead = marks.filter((_, index) => index !== earlier);
      this.aheadRemoved.push(mark);
      return;
    }
    countOutcome(job.counts, outcome);
  }

  /** Merges the slice's progress into the stored job; a pause or cancel meanwhile wins. */
  save(): void {
    updateJob(this.platform, (stored) => this.merge(stored, false));
  }

  /**
   * The window done: merges, then leases the next window of `rows` rows (split across `slices` at the end) in the
   * same lock. False: no window is free (or the run stopped), the slice ends.
   */
  next(rows: number, slices = 1): boolean {
    let leased: WindowLease | null = null;
    updateJob(this.platform, (stored) => {
      const merged = this.merge(stored, false);
      if (!merged || merged === stored || !this.working) return merged;
      this.freeWindow(merged, this.platform.clock.now());
      leased = leaseWindow(merged, rows, this.window.token, this.platform.clock.now(), slices);
      return merged;
    });
    const window = leased as WindowLease | null;
    if (!window) return false;
    this.window = { ...window };
    this.current.cursor = window.from;
    return true;
  }

  /** Before writing to the sheet: the window is still this slice's (otherwise it stops). */
  owns(): boolean {
    const stored = loadJob(this.platform);
    if (stored?.id === this.current.id && !this.holds(stored)) this.lost = true;
    return !this.lost;
  }

  /**
   * Merges the slice's progress and frees its window (rows left in it are leased again at once), trying the lock
   * again when busy or refused: a window left behind would wait LEASE_MS for another slice.
   */
  release(): Job | null {
    return updateJob(this.platform, (stored) => this.merge(stored, true), true);
  }

  /** The stored job still has this slice's window. */
  private holds(stored: Job): boolean {
    return (stored.windows ?? []).some((window) => window.token === this.window.token);
  }

  /** This slice's window in `job` (changed in place): rows left in it leased again at once, a done window gone. */
  private freeWindow(job: Job, now: number): void {
    const windows = (job.windows ?? []).filter((window) => window.token !== this.window.token);
    const from = this.current.cursor;
    if (!this.onPass && from <= this.window.to) windows.push({ ...this.window, from, until: 0 });
    job.windows = windows;
    job.leaseUntil = leaseEnd(job, now);
  }

  /**
   * Merges this slice's progress into the stored job: a different job is never overwritten, a cancel always wins,
   * a pause from the sidebar wins over "running"; counts are added to what other slices stored. `releasing`: the
   * window is given up. Returns what to store.
   */
  private merge(stored: Job | null, releasing: boolean): Job | null {
    if (!stored || stored.id !== this.current.id) {
      // Cancelled and replaced by another run meanwhile: this slice stops and leaves the new job alone.
      this.current = transition(this.current, { type: 'replaced' }, this.platform.clock.now());
      return stored;
    }
    const now = this.platform.clock.now();
    const next = structuredCopy(stored);
    const holds = this.holds(stored);
    // A slice whose window was leased again (it outlived its lease) adds only what it spent; its rows are another's.
    this.addCounts(next.counts, holds ? undefined : ['creditsUsed', 'creditsMaybeLost', 'lookupsFound']);
    if (!holds) {
      this.lost = true;
      this.afterMerge(next);
      return next;
    }
    if (this.aheadAdded.length > 0 || this.aheadRemoved.length > 0) {
      const marks = [...(next.rowsWrittenAhead ?? []), ...this.aheadAdded];
      for (const mark of this.aheadRemoved) {
        const at = marks.indexOf(mark);
        if (at >= 0) marks.splice(at, 1);
      }
      next.rowsWrittenAhead = marks;
    }
    if (this.newPass && next.pass === this.newPass.pass - 1) {
      next.pass = this.newPass.pass;
      next.cursor = this.newPass.cursor;
      delete next.rowsWrittenAhead;
      next.windows = (next.windows ?? []).filter((window) => window.token !== this.window.token);
      next.leaseUntil = leaseEnd(next, now);
    }
    if (
      this.endsNoted &&
      next.maxRows === this.current.maxRows &&
      next.maxColumns === this.current.maxColumns
    ) {
      next.topValue = this.current.topValue;
      next.bottomValue = this.current.bottomValue;
    }
    // A cancel from the sidebar while slices worked reports what they wrote and spent by their end.
    if (next.state === 'cancelled' && next.reason === 'user') next.message = cancelledMessage(next.counts);
    if (this.current.paceReason) next.paceReason = this.current.paceReason;
    else delete next.paceReason;
    let merged = next;
    for (const event of this.events) merged = transition(merged, event, now);
    if (merged.state === 'running') merged.message = workingMessage(merged);
    if (!this.newPass) {
      if (releasing || merged.state !== 'running') this.freeWindow(merged, now);
      else {
        const own = (merged.windows ?? []).find((window) => window.token === this.window.token);
        if (own) {
          own.from = Math.min(own.to + 1, this.current.cursor);
          this.window = { ...own };
        }
      }
    }
    merged.updatedAt = now;
    this.afterMerge(merged);
    return merged;
  }

  private afterMerge(merged: Job): void {
    const cursor = this.current.cursor;
    const local = { maxRows: this.current.maxRows, maxColumns: this.current.maxColumns };
    this.current = { ...merged, cursor };
    // This slice works in the frame it checked; the stored one moves only when no other slice holds a window.
    if (merged.maxRows !== local.maxRows || merged.maxColumns !== local.maxColumns) this.lost = true;
    this.base = { ...merged.counts };
    this.events = [];
    this.newPass = null;
    this.aheadAdded = [];
    this.aheadRemoved = [];
  }

  /** Adds what this slice counted since the last merge to `into` (only `only` when given). */
  private addCounts(into: Counts, only?: CountName[]): void {
    const names = (only ?? (Object.keys(this.current.counts) as CountName[])).filter(
      (name) => typeof this.current.counts[name] === 'number',
    );
    const record = into as unknown as Record<string, number>;
    for (const name of names) {
      const added = (this.current.counts[name] ?? 0) - (this.base[name] ?? 0);
      if (added !== 0) record[name] = (record[name] ?? 0) + added;
    }
  }
}

function workingMessage(job: Job): string {
  const counts = countsShown(job);
  return `Working: ${counts.processed} of ${counts.total} rows.`;
}
