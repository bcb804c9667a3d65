import { runCharges } from '../../src/bulk/slice';
import { stableHash } from '../../src/core/hash';
import { testJob } from '../support/job';

describe('runCharges', () => {
  it("names a run's payer, a short hash of its owner and its range", () => {
    const job = testJob('running', {
      id: 'r7',
      ownerName: 'ann@acme.test',
      ownerId: 'runner-ann',
      sheetName: 'Leads',
      urlColumn: 3,
      firstRow: 2,
      lastRow: 40,
    });
    expect(runCharges(job)).toEqual({
      source: 'run',
      payer: 'ann@acme.test',
      payerId: stableHash('runner-ann').slice(0, 8),
      where: "run r7 · 'Leads'!C2:C40",
      run: 'r7',
    });
  });

  it('never writes the runner id itself (whoever holds it could drive the run)', () => {
    const context = runCharges(testJob('running', { ownerId: 'runner-secret-id' }));
    expect(JSON.stringify(context)).not.toContain('runner-secret-id');
    expect(context.payerId).toHaveLength(8);
  });

  it('tells two owners apart', () => {
    const a = runCharges(testJob('running', { ownerId: 'runner-a' })).payerId;
    const b = runCharges(testJob('running', { ownerId: 'runner-b' })).payerId;
    expect(a).not.toBe(b);
  });

  it("charges a watch's run to the watch, by its rows", () => {
    const job = testJob('running', {
      id: 'w1',
      origin: 'watch',
      ownerName: '',
      sheetName: 'Leads',
      urlColumn: 1,
      firstRow: 12,
      lastRow: 12,
    });
    expect(runCharges(job)).toMatchObject({
      source: 'watch',
      payer: "the watch's creator",
      where: "watch w1 · 'Leads'!A row 12",
    });
    expect(runCharges({ ...job, lastRow: 14 }).where).toBe("watch w1 · 'Leads'!A rows 12–14");
  });

  it("says who pays when the starter's name is unknown, and no id without an owner", () => {
    const context = runCharges(testJob('running', { ownerName: undefined, ownerId: '' }));
    expect(context.payer).toBe("the run's starter");
    expect(context.payerId).toBe('');
  });
});
