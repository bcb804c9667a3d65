/**
 * A slice's state, one object changed only through its operations: the job it holds (./lease.ts), what it works
 * with (the sheet, the key, the ports, its time budget), the rows read ahead for the next window, and what it knows
 * (the results stored or fetched, and the results a duplicate row may copy from another row of the run).
 */

import type { SheetPort } from '../core/sheet';
import type { NetworkHosts } from '../core/url';
import type { Pacer } from '../lookup/pace';
import type { CachedResult, LookupPorts } from '../lookup/ports';
import type { LookupResult } from '../lookup/result';
import type { LookupSession } from '../lookup/session';
import type { SharedPace } from '../lookup/sharedPace';
import { readJobCells } from './columns';
import type { Job } from './job';
import type { JobLease } from './lease';
import { writtenResults } from './rowPlan';
import { RunScope } from './runScope';

/** What a slice works with, fixed for the slice. */
export interface SliceSetup {
  /** The end of the slice's time budget (epoch ms). */
  deadline: number;
  /** Fixed rows per window and requests per fetchAll (ENRICH_BATCH_SIZE); undefined: they adapt (`pacer`). */
  batchSize: number | undefined;
  /** The adaptive batch size, kept in the document cache between slices (src/lookup/pace.ts). */
  pacer?: Pacer;
  /** The run's pace shared with its other slices at once (src/lookup/sharedPace.ts), with `pacer`. */
  shared?: SharedPace;
  /** The run's slices at once, at most (BULK_SLICES): its last windows are split across them. */
  slices: number;
  sheet: SheetPort;
  /** The URL column and the output columns. */
  width: number;
  ports: LookupPorts;
  /** The slice's lookup session (src/lookup/session.ts), closed when the slice ends. */
  session: LookupSession;
  apiKey: string;
  endpoint: string;
  /** The network's domains (script property NETWORK_HOSTS): what counts as a profile URL. */
  hosts: NetworkHosts;
}

export class SliceState {
  readonly lease: JobLease;
  readonly setup: Readonly<SliceSetup>;
  /** Which rows the run touches (built once from the job: re-check, Retry failed rows). */
  readonly scope: RunScope;
  /** Results this slice got from the service. */
  private readonly known = new Map<string, LookupResult>();
  /** The result store as last read (again under the lock before each claim). */
  private storeView: (urlKey: string) => CachedResult | undefined;
  /** Results written in the job's rows by normalised URL, read at most once per slice (duplicates copy them). */
  private written?: Map<string, unknown[]>;
  /** The rows read ahead for the next window, from `aheadFrom`. */
  private ahead: unknown[][] | null = null;
  private aheadFrom = 0;

  constructor(lease: JobLease, setup: SliceSetup) {
    this.lease = lease;
    this.setup = setup;
    this.scope = RunScope.ofJob(lease.job);
    this.storeView = setup.ports.store.snapshot();
  }

  get job(): Readonly<Job> {
    return this.lease.job;
  }

  /** This slice may go on (the job running, the lease its own) and has time left. */
  get hasTime(): boolean {
    return this.lease.working && this.setup.ports.clock.now() < this.setup.deadline;
  }

  /** The URL and output cells of `count` rows; an output cell holding a formula reads as its formula (user data). */
  read(from: number, count: number): unknown[][] {
    return readJobCells(this.setup.sheet, this.job, from, count, this.setup.width, true);
  }

  /** At least `count` rows from `from`: the ones read ahead when they cover them, else one read. */
  rowsFrom(from: number, count: number): unknown[][] {
    if (!this.ahead || this.aheadFrom !== from || this.ahead.length < count)
      this.keepReadAhead(this.read(from, count), from);
    return this.ahead as unknown[][];
  }

  /** Rows read for the next window (with the check before writing): the next window starts from them. */
  keepReadAhead(rows: unknown[][], from: number): void {
    this.ahead = rows;
    this.aheadFrom = from;
  }

  /** The rows read ahead are stale (a new pass starts elsewhere). */
  dropAhead(): void {
    this.ahead = null;
  }

  /** Formulas may have paid for some URLs since the slice began: the result store is read again. */
  rereadStore(): void {
    this.storeView = this.setup.ports.store.snapshot();
  }

  /** A result this slice got from the service (or another execution paid for meanwhile). */
  recordFetched(key: string, result: LookupResult): void {
    this.known.set(key, result);
  }

  /** A result written in a row of the run: a duplicate row copies it. */
  recordWritten(key: string, output: unknown[]): void {
    this.written?.set(key, output);
  }

  /** A stored or fresh result the run takes as it is (a re-check ignores results stored before it started). */
  resultOf(key: string): LookupResult | undefined {
    const hit = this.known.get(key);
    if (hit) return hit;
    const stored = this.storeView(key);
    if (stored && this.scope.keepsStored(stored.result, stored.savedAt >= this.job.startedAt))
      return stored.result;
    return undefined;
  }

  /** The output a duplicate row copies from another row of the run, when a result was written there. */
  copyOf(key: string): unknown[] | undefined {
    const { job } = this;
    if (!this.scope.copiesWritten(job.pass) || (job.pass === 1 && !job.hasDuplicates)) return undefined;
    if (!this.written) {
      const rows = job.lastRow - job.firstRow + 1;
      this.written = writtenResults(rows > 0 ? this.read(job.firstRow, rows) : [], this.setup.hosts);
    }
    return this.written.get(key);
  }
}
