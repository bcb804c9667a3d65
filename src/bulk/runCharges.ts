/** A bulk run's line in the credits log (src/store/credits.ts). */
import { columnLetters } from '../core/a1';
import { stableHash } from '../core/hash';
import type { ChargeContext } from '../store/credits';
import type { Job } from './job';

export function runCharges(
  job: Pick<
    Job,
    'id' | 'ownerId' | 'ownerName' | 'sheetName' | 'urlColumn' | 'firstRow' | 'lastRow' | 'origin'
  >,
): ChargeContext {
  const column = columnLetters(job.urlColumn);
  const watch = job.origin === 'watch';
  const rows = job.firstRow === job.lastRow ? `row ${job.firstRow}` : `rows ${job.firstRow}–${job.lastRow}`;
  return {
    source: watch ? 'watch' : 'run',
    payer: job.ownerName || (watch ? "the watch's creator" : "the run's starter"),
    // A hash: the runner id itself would let whoever reads the log drive the run.
    payerId: job.ownerId ? stableHash(job.ownerId).slice(0, 8) : '',
    where: watch
      ? `watch ${job.id} · '${job.sheetName}'!${column} ${rows}`
      : `run ${job.id} · '${job.sheetName}'!${column}${job.firstRow}:${column}${job.lastRow}`,
    run: job.id,
  };
}
