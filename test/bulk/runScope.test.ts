import { countSelection } from '../../src/bulk/outcomes';
import { planRows } from '../../src/bulk/rowPlan';
import { type PlanOptions, planRun } from '../../src/bulk/runPlan';
import { RunScope } from '../../src/bulk/runScope';
import { parseNetworkHosts } from '../../src/core/url';
import { type LookupResult, lostAnswer, unusableAnswer } from '../../src/lookup/result';
import { columnRead, owning } from '../support/columnRead';

const HOSTS = parseNetworkHosts('network.com');
const u = (slug: string) => `https://www.network.com/in/${slug}`;

/**
 * One row of each kind, in the add-on's own columns beside the URLs (the URL cell, then the output cells): a block
 * of the add-on's recorded there (`read` owns its rows).
 */
const ROWS = [
  [u('found'), 'a@x.test', 'VALID', false, ''],
  [u('error'), '', 'ERROR', '', 'boom'],
  [u('private'), '', 'UNPROCESSABLE', '', 'private profile'],
  [u('none'), '', 'NOT_FOUND', '', ''],
  ['oops', '', 'INVALID_URL', '', 'not a profile URL'],
  [u('new'), '', '', '', ''],
  ['', '', '', '', ''],
];

const read = (rows: unknown[][]) => owning(columnRead(rows, null));

const ALL: PlanOptions = {
  mode: 'all',
  includeUnprocessable: false,
  recheck: false,
  extraFields: false,
  startAtOnceUnder: null,
  hosts: HOSTS,
};
const RUNS: Array<[string, PlanOptions, number]> = [
  ['a run over every row keeps the final results', ALL, 3],
  ['a re-check keeps nothing', { ...ALL, recheck: true }, 0],
  ['Retry failed rows keeps all but ERROR', { ...ALL, mode: 'retry' }, 5],
  [
    'Retry failed rows with UNPROCESSABLE keeps all but those two',
    { ...ALL, mode: 'retry', includeUnprocessable: true },
    4,
  ],
];

describe('RunScope: one answer to "does this run touch this row"', () => {
  it.each(RUNS)('%s: the plan, the start counts and the first window agree', (_, options, kept) => {
    const plan = planRun(read(ROWS), options, () => new Map());
    expect(plan.placement.kind).toBe('reuse');
    const scope = RunScope.forRun(options, plan.placement.kind);
    const windowKept = planRows(ROWS, scope, 1, HOSTS).filter((row) => row.action === 'keep').length;
    expect(plan.alreadyDone).toBe(kept);
    expect(windowKept).toBe(kept);
    expect(countSelection(ROWS, scope, HOSTS).counts.alreadyDone).toBe(kept);
  });

  it('new columns hold nothing yet: every row is the run’s, whatever the cells beside the URLs hold', () => {
    const scope = RunScope.forRun({ ...ALL, mode: 'all' }, 'insert');
    expect(countSelection(ROWS, scope, HOSTS).counts.alreadyDone).toBe(0);
    const retry = RunScope.forRun({ ...ALL, mode: 'retry' }, 'insert');
    expect(ROWS.filter((row) => retry.touchesRow(row, 1))).toEqual([]);
  });

  it('a re-check leaves a status that is not the add-on’s alone, in the counts as in the window', () => {
    const scope = new RunScope({ redo: null, recheck: true, readsOutput: true });
    const rows = [[u('a'), '', 'VALID', '', '']]; // a status with its address deleted: not the add-on's result
    expect(planRows(rows, scope, 1, HOSTS)[0].action).toBe('keep');
    expect(countSelection(rows, scope, HOSTS).counts.alreadyDone).toBe(1);
    expect(scope.mayWrite(rows[0], 1, true)).toBe(false);
  });

  it('later passes only pick up rows without a status', () => {
    for (const [, options] of RUNS.slice(0, 2)) {
      const scope = RunScope.forRun(options, 'reuse');
      expect(ROWS.filter((row) => row[0] !== '' && scope.touchesRow(row, 2))).toEqual([ROWS[5]]);
    }
  });

  it('which stored and written results a run takes as they are', () => {
    const unprocessable: LookupResult = { kind: 'unprocessable', message: 'private profile', profile: {} };
    const all = RunScope.forRun(ALL, 'reuse');
    const recheck = RunScope.forRun({ ...ALL, recheck: true }, 'reuse');
    const retry = RunScope.forRun({ ...ALL, mode: 'retry', includeUnprocessable: true }, 'reuse');
    expect([all, recheck, retry].map((scope) => scope.keepsStored(unprocessable, false))).toEqual([
      true,
      false,
      false,
    ]);
    expect([all, recheck, retry].map((scope) => scope.keepsStored(unprocessable, true))).toEqual([
      true,
      true,
      true,
    ]);
    expect([all, recheck, retry].map((scope) => scope.copiesWritten(1))).toEqual([true, false, false]);
    expect([all, recheck, retry].map((scope) => scope.copiesWritten(2))).toEqual([true, true, false]);
  });

  it('an unusable answer stored before the run is bought again only by a re-check or a retry of ERROR rows', () => {
    const all = RunScope.forRun(ALL, 'reuse');
    const recheck = RunScope.forRun({ ...ALL, recheck: true }, 'reuse');
    const retry = RunScope.forRun({ ...ALL, mode: 'retry' }, 'reuse');
    const watch = RunScope.forRun({ ...ALL, mode: 'new' }, 'reuse');
    const unprocessable: LookupResult = { kind: 'unprocessable', message: 'private profile', profile: {} };
    for (const unusable of [unusableAnswer('no "status"'), lostAnswer('Address unavailable')]) {
      expect([all, recheck, retry, watch].map((scope) => scope.keepsStored(unusable, false))).toEqual([
        true,
        false,
        false,
        true,
      ]);
      // Stored since the run started: the run's own answer, kept.
      expect([all, recheck, retry, watch].map((scope) => scope.keepsStored(unusable, true))).toEqual([
        true,
        true,
        true,
        true,
      ]);
    }
    // A retry of ERROR rows alone keeps an UNPROCESSABLE answer.
    expect(retry.keepsStored(unprocessable, false)).toBe(true);
  });

  it("a watch's run (new rows only) touches only rows without any status, in every pass", () => {
    const planned = RunScope.forRun({ ...ALL, mode: 'new' }, 'reuse');
    const underWay = RunScope.ofJob({ recheck: false, origin: 'watch' });
    for (const scope of [planned, underWay]) {
      expect(scope.newRowsOnly).toBe(true);
      for (const pass of [1, 2])
        expect(ROWS.filter((row) => row[0] !== '' && scope.touchesRow(row, pass))).toEqual([ROWS[5]]);
    }
    expect(RunScope.ofJob({ recheck: false }).newRowsOnly).toBe(false);
    const plan = planRun(read(ROWS), { ...ALL, mode: 'new' }, () => new Map());
    expect(plan).toMatchObject({ alreadyDone: 5, lookupRows: 1, newProfiles: 1 });
  });
});
