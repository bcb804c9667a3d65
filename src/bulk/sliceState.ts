/**
 * A slice's working state and what it knows: the rows it reads, the results stored or fetched, and the results a
 * duplicate row may copy from another row of the job.
 */
import { STATUS } from '../core/cells';
import type { NetworkHosts } from '../core/url';
import type { LookupResult } from '../lookup/contract';
import type { Pacer } from '../lookup/pace';
import type { LookupPorts } from '../lookup/ports';
import type { CachedResult } from '../store/codec';
import { readJobCells } from './columns';
import type { Job } from './job';
import { writtenResults } from './rowPlan';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export interface Slice {
  job: Job;
  leaseLost: boolean;
  deadline: number;
  /** Fixed rows per window and requests per fetchAll (ENRICH_BATCH_SIZE); undefined: they adapt (`pacer`). */
  batchSize: number | undefined;
  /** The adaptive batch size, kept in the document cache between slices (src/lookup/pace.ts). */
  pacer?: Pacer;
  sheet: Sheet;
  /** The URL column and the output columns. */
  width: number;
  ports: LookupPorts;
  apiKey: string;
  endpoint: string;
  /** The network's domains (script property NETWORK_HOSTS): what counts as a profile URL. */
  hosts: NetworkHosts;
  /** Results this slice got from the service. */
  known: Map<string, LookupResult>;
  /** The result store as last read (again under the lock before each claim). */
  storeView: (urlKey: string) => CachedResult | undefined;
  /** Results written in the job's rows by normalised URL, read at most once per slice (duplicates copy them). */
  written?: Map<string, unknown[]>;
  /** The rows read ahead for the next window, from `blockStart`. */
  block: unknown[][] | null;
  blockStart: number;
}

/** The URL and output cells of `count` rows; an output cell holding a formula reads as its formula (user data). */
export function read(slice: Slice, from: number, count: number): unknown[][] {
  return readJobCells(slice.sheet, slice.job, from, count, slice.width, true);
}

export function buysAgain(job: Job): boolean {
  return job.recheck || job.redo?.includes(STATUS.unprocessable) === true;
}

/** A stored or fresh result; a re-check ignores results stored before its run started. */
export function resultOf(slice: Slice, key: string): LookupResult | undefined {
  const hit = slice.known.get(key);
  if (hit) return hit;
  const stored = slice.storeView(key);
  if (stored && (!slice.job.recheck || stored.savedAt >= slice.job.startedAt)) {
    // Retry failed rows with UNPROCESSABLE: the stored answer is the one retried (a new one counts from the start).
    const retried = slice.job.redo?.includes(STATUS.unprocessable) && stored.result.kind === 'unprocessable';
    if (!retried || stored.savedAt >= slice.job.startedAt) return stored.result;
  }
  return undefined;
}

/** The output a duplicate row copies from another row of the job, when a result was written there. */
export function copyOf(slice: Slice, key: string): unknown[] | undefined {
  const { job } = slice;
  if (job.redo || (job.pass === 1 && (!job.hasDuplicates || job.recheck))) return undefined;
  if (!slice.written) {
    const rows = job.lastRow - job.firstRow + 1;
    slice.written = writtenResults(rows > 0 ? read(slice, job.firstRow, rows) : [], slice.hosts);
  }
  return slice.written.get(key);
}
