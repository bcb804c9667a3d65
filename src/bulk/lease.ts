/**
 * A slice's hold on the job: the lease taken (only by the starter's executions, one slice at a time), the job as
 * this slice changes it (only through the operations below), saved so that a pause or cancel from the sidebar wins
 * and another job or slice is left alone, and released.
 */

import { LEASE_MS } from '../core/limits';
import type { SheetPort } from '../core/sheet';
import { timeId } from '../core/timeId';
import type { RowOutcome } from '../lookup/cellValues';
import { DocumentBusyError } from '../platform/errors';
import type { Platform } from '../platform/platform';
import { countCopy, countOutcome } from './counting';
import { countsShown, type Job, mayDrive } from './job';
import { type JobEvent, transition } from './jobMachine';
import { loadJob, updateJob } from './jobStore';
import { noteEnds, relocate } from './relocate';
import { cellHash } from './rowCells';

/**
 * Takes the job's lease when it is running, this execution's user started it, and no other slice holds it; the
 * leased job, or null. Nobody else's execution ever works on the run: it would spend their key's credits.
 */
export function takeLease(
  platform: Platform,
  jobId: string,
  started: number,
  runnerId: string | null,
): { job: Job | null; lease: JobLease | null } {
  let leased = false;
  const leaseToken = timeId(started);
  try {
    const job = updateJob(platform, (stored) => {
      if (!stored || stored.id !== jobId || stored.state !== 'running' || stored.leaseUntil > started)
        return stored;
      if (!mayDrive(stored, runnerId)) return stored;
      leased = true;
      return { ...stored, leaseUntil: started + LEASE_MS, leaseToken };
    });
    return { job, lease: leased && job ? new JobLease(platform, job) : null };
  } catch (error) {
    // The lock is busy (or LockService refused it): no lease, the next slice tries again.
    if (error instanceof DocumentBusyError) return { job: loadJob(platform), lease: null };
    throw error;
  }
}

export class JobLease {
  private readonly platform: Platform;
  private current: Job;
  private lost = false;

  constructor(platform: Platform, job: Job) {
    this.platform = platform;
    this.current = job;
  }

  /** The job as this slice has it (read only: it changes through the operations below). */
  get job(): Readonly<Job> {
    return this.current;
  }

  /** This slice may go on: the job is running and its lease still this slice's. */
  get working(): boolean {
    return this.current.state === 'running' && !this.lost;
  }

  /** A state change (src/bulk/jobMachine.ts): halt, finish. */
  apply(event: JobEvent): void {
    this.current = transition(this.current, event, this.platform.clock.now());
  }

  /** Moves the job with rows or columns inserted or deleted since the last slice; false: it can no longer tell. */
  followSheet(sheet: SheetPort, width: number): boolean {
    return relocate(this.current, sheet, width);
  }

  /** Notes the URL cells at the job's ends as this slice leaves them. */
  noteEnds(sheet: SheetPort): void {
    noteEnds(this.current, sheet);
  }

  /** The rows before the cursor's new place are done in this pass. */
  advance(rows: number): void {
    this.current.cursor += rows;
  }

  /** A new pass over the range, from the first row still without a result. */
  startPass(cursor: number): void {
    this.current.pass++;
    delete this.current.rowsWrittenAhead;
    this.current.cursor = cursor;
  }

  /** Why this slice's batches were held small, if they were (src/lookup/pace.ts paceReason). */
  notePace(reason: Job['paceReason']): void {
    this.current.paceReason = reason;
  }

  /** The progress line while the run works. */
  sayRowsProcessed(): void {
    if (this.current.state !== 'running') return;
    const counts = countsShown(this.current);
    this.current.message = `Working: ${counts.processed} of ${counts.total} rows.`;
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
   * again in the next window: it is counted once, when first written (`rowsWrittenAhead` holds its key's hash).
   */
  countRechecked(key: string, outcome: RowOutcome, ahead: boolean): void {
    const job = this.current;
    const mark = cellHash(key);
    const marks = job.rowsWrittenAhead ?? [];
    const earlier = marks.indexOf(mark);
    if (ahead) job.rowsWrittenAhead = [...marks, mark];
    else if (earlier >= 0) {
      job.rowsWrittenAhead = marks.filter((_, index) => index !== earlier);
      return;
    }
    countOutcome(job.counts, outcome);
  }

  /** Writes the job's progress; a pause or cancel meanwhile wins, another job or slice is left alone. */
  save(): void {
    updateJob(this.platform, (stored) => this.merge(stored));
  }

  /** Before writing to the sheet: the lease is still this slice's (otherwise it stops). */
  owns(): boolean {
    const stored = loadJob(this.platform);
    if (stored?.id === this.current.id && stored.leaseToken !== this.current.leaseToken) this.lost = true;
    return !this.lost;
  }

  /**
   * Saves the job and frees its lease, trying the lock again when busy or refused: a lease left behind would keep
   * the next slices waiting for LEASE_MS.
   */
  release(): Job | null {
    this.current.leaseUntil = 0;
    return updateJob(this.platform, (stored) => this.merge(stored), true);
  }

  /**
   * Merges this slice's job into the stored one: a different job is never overwritten, a cancel always wins, and
   * a pause from the sidebar wins over "running". Returns what to store.
   */
  private merge(stored: Job | null): Job | null {
    if (!stored || stored.id !== this.current.id) {
      // Cancelled and replaced by another run meanwhile: this slice stops and leaves the new job alone.
      this.apply({ type: 'replaced' });
      return stored;
    }
    if (stored.leaseToken !== this.current.leaseToken) {
      // Another slice holds the job now: this one stops and writes nothing (its results are in the result store).
      this.lost = true;
      return stored;
    }
    const now = this.platform.clock.now();
    this.current = { ...transition(this.current, { type: 'sync', stored }, now), updatedAt: now };
    return this.current;
  }
}
