/** The bulk run's job as kept in document properties (src/bulk/jobStore.ts): read back only when it is a job. */
import { parseJob } from '../../src/bulk/jobStore';
import { testJob } from '../support/job';

describe('a stored job', () => {
  it('reads back what was written', () => {
    const job = testJob('paused', { reason: 'quota', windows: [{ from: 2, to: 5, token: 't', until: 9 }] });
    expect(parseJob(JSON.stringify(job))).toEqual(job);
  });

  it('is null when there is none, it is not JSON, or a field is missing or of another type', () => {
    expect(parseJob(null)).toBeNull();
    expect(parseJob('{"id":"j1","state":"runn')).toBeNull();
    expect(parseJob(JSON.stringify({ ...testJob(), counts: undefined }))).toBeNull();
    expect(parseJob(JSON.stringify({ ...testJob(), cursor: '2' }))).toBeNull();
    expect(parseJob(JSON.stringify({ ...testJob(), headerRow: undefined }))).toBeNull();
  });
});
