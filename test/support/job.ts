/** A bulk run's job as the store keeps it, every field set: tests change what they need. */
import type { JobState } from '../../src/api';
import type { Job } from '../../src/bulk/job';
import { emptyRunCounts } from '../../src/core/runWords';

export function testJob(state: JobState = 'running', extra: Partial<Job> = {}): Job {
  return {
    id: 'j1',
    sheetId: 1,
    sheetName: 'Sheet1',
    urlColumn: 1,
    firstRow: 2,
    lastRow: 9,
    headerRow: 1,
    outputColumn: 2,
    extraFields: false,
    recheck: false,
    cursor: 2,
    pass: 1,
    maxRows: 100,
    maxColumns: 26,
    topValue: 't',
    bottomValue: 'b',
    headerTexts: null,
    hasDuplicates: false,
    state,
    message: `was ${state}`,
    counts: {
      ...emptyRunCounts(),
      total: 8,
      processed: 3,
      found: 2,
      noAddress: 1,
      creditsUsed: 3,
      lookupsFound: 2,
    },
    startedAt: 1,
    updatedAt: 1,
    leaseUntil: 0,
    ownerId: 'starter',
    ...extra,
  };
}
