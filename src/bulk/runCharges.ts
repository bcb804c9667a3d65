/** Who pays for a bulk run's lookups, and where they are written: its line in the credits log (src/store/credits.ts). */
import { stableHash } from '../core/hash';
import type { ChargeContext } from '../store/credits';
import type { Job } from './job';
import { columnName } from './placement';

export function runCharges(
  job: Pick<Job, 'id' | 'ownerId' | 'ownerName' | 'sheetName' | 'urlColumn' | 'firstRow' | 'lastRow'>,
): ChargeContext {
  const column = columnName(job.urlColumn);
  return {
    source: 'run',
    payer: job.ownerName || "the run's starter",
    // A hash: the runner id itself would let whoever reads the log drive the run (src/adapters/runner.ts).
    payerId: job.ownerId ? stableHash(job.ownerId).slice(0, 8) : '',
    where: `run ${job.id} · '${job.sheetName}'!${column}${job.firstRow}:${column}${job.lastRow}`,
  };
}
