import { type ColumnRead, placementOptions } from '../../src/bulk/placement';
import { planRows } from '../../src/bulk/rowPlan';
import { type PlanOptions, planRun } from '../../src/bulk/runPlan';
import { RunScope } from '../../src/bulk/runScope';
import { columnLetters } from '../../src/core/a1';
import { RETRY_PATH } from '../../src/core/product';
import { parseNetworkHosts } from '../../src/core/url';
import type { LookupResult } from '../../src/lookup/result';
import { columnRead, owning } from '../support/columnRead';

const HOSTS = parseNetworkHosts('network.com');
const u = (slug: string) => `https://www.network.com/in/${slug}`;
const key = (slug: string) => `https://network.com/in/${slug}`;
const TITLES = ['Email', 'Email status', 'Catch-all', 'Note'];
const found: LookupResult = {
  kind: 'found',
  email: 'x@acme.test',
  emailStatus: 'VALID',
  catchAll: false,
  accountType: 'professional',
  profile: {},
};
const unprocessable: LookupResult = { kind: 'unprocessable', message: 'private profile', profile: {} };

const read = columnRead;

const OPTIONS: PlanOptions = {
  mode: 'all',
  includeUnprocessable: false,
  recheck: false,
  extraFields: false,
  startAtOnceUnder: null,
  hosts: HOSTS,
};

/** A store that knows these keys, and records every read. */
function store(known: Record<string, LookupResult> = {}) {
  const reads: string[][] = [];
  const getMany = (keys: string[]) => {
    reads.push(keys);
    return new Map(keys.filter((k) => known[k]).map((k) => [k, known[k]] as [string, LookupResult]));
  };
  return { reads, getMany };
}

describe('planRun: the numbers before a run', () => {
  it('counts rows, distinct new profiles, known ones, cells that are not profiles and blanks; one store read', () => {
    const rows = [[u('ann')], [u('bob')], [u('Ann/')], [''], ['not a url'], [u('cy')], [u('cy')]];
    const s = store({ [key('bob')]: found });
    const plan = planRun(read(rows), OPTIONS, s.getMany);
    expect(plan).toMatchObject({
      rows: 7,
      blanks: 1,
      notProfiles: 1,
      lookupRows: 5,
      newProfiles: 2, // ann (twice spelled) and cy (twice)
      knownProfiles: 1, // bob, from the store
      alreadyDone: 0,
      credits: 2,
      range: 'A2:A8',
      needsChoice: false,
      needsConfirm: true,
    });
    expect(plan.placement).toMatchObject({ kind: 'reuse', columns: 'B:E', insertCount: 0 });
    expect(plan.placement.effect).toMatch(/Nothing moves/);
    expect(s.reads).toEqual([[key('ann'), key('bob'), key('cy')]]);
  });

  it("rows holding the add-on's results are already done; their profiles are free for duplicates", () => {
    const rows = [
      [u('ann'), 'ann@acme.test', 'VALID', false, ''],
      [u('ann')],
      [u('bob'), '', 'ERROR', '', 'timed out'],
      [u('cy'), '', 'NOT_FOUND', '', ''],
    ];
    const plan = planRun(owning(read(rows, ['Profile', ...TITLES])), OPTIONS, store().getMany);
    expect(plan).toMatchObject({
      alreadyDone: 2,
      lookupRows: 2,
      knownProfiles: 1,
      newProfiles: 1,
      errorRows: 1,
    });
  });

  it('re-check is a choice for this run: every profile is bought again, none is free', () => {
    const rows = [
      [u('ann'), 'ann@acme.test', 'VALID', false, ''],
      [u('bob'), '', 'NOT_FOUND', '', ''],
    ];
    const s = store({ [key('ann')]: found });
    const plan = planRun(
      owning(read(rows, ['Profile', ...TITLES])),
      { ...OPTIONS, recheck: true },
      s.getMany,
    );
    expect(plan).toMatchObject({
      recheck: true,
      alreadyDone: 0,
      newProfiles: 2,
      knownProfiles: 0,
      credits: 2,
    });
    expect(s.reads).toEqual([]);
  });

  it('waits for Start by default; with "start runs under N credits at once", only runs under N start at once', () => {
    const rows = Array.from({ length: 4 }, (_, i) => [u(`p-${i}`)]);
    expect(planRun(read(rows), OPTIONS, store().getMany).needsConfirm).toBe(true);
    const under = (n: number) => planRun(read(rows), { ...OPTIONS, startAtOnceUnder: n }, store().getMany);
    expect(under(5).needsConfirm).toBe(false);
    expect(under(4).needsConfirm).toBe(true);
  });

  it('refuses a column without any profile URL (the Email column selected by mistake)', () => {
    const rows = [['ann@acme.test'], ['bob@acme.test'], ['']];
    const plan = planRun(read(rows, ['Email']), OPTIONS, store().getMany);
    expect(plan.refusal).toMatch(/^Column A holds e-mail addresses, not profile URLs: nothing was changed\./);
    const text = planRun(read([['hello'], [12]]), OPTIONS, store().getMany);
    expect(text.refusal).toMatch(/^Column A holds no profile URL: nothing was changed\./);
    // One profile URL among other cells is a column to run: the rest is INVALID_URL, for free.
    expect(planRun(read([['hello'], [u('ann')]]), OPTIONS, store().getMany).refusal).toBeUndefined();
  });
});

describe('placements: where the results go and what moves', () => {
  it('user data beside the URLs: a choice of inserting columns or the first empty ones further right', () => {
    const rows = [
      [u('ann'), 'Acme', '', '', '', '', 'x'],
      [u('bob'), 'Beta', '', '', '', '', ''],
    ];
    const options = placementOptions(read(rows, ['Profile', 'Company', '', '', '', '', 'Phone']), false);
    expect(options.map((o) => [o.kind, o.columns, o.insertAfter, o.insertCount])).toEqual([
      ['insert', 'B:E', 1, 4],
      ['right', 'C:F', null, 0],
    ]);
    expect(options[0].effect).toMatch(/B and every column right of it move 4 to the right/);
    expect(options[1].effect).toBe('Results go into the empty columns C:F. Nothing moves.');
    const plan = planRun(read(rows, ['Profile', 'Company']), OPTIONS, store().getMany);
    expect(plan.needsChoice).toBe(true);
  });

  it("finds the add-on's own columns further right (a second run after choosing them)", () => {
    const rows = [[u('ann'), 'Acme', 'ann@acme.test', 'VALID', false, '']];
    const header = ['Profile', 'Company', ...TITLES];
    const options = placementOptions(owning(read(rows, header), 3), false);
    expect(options[1]).toMatchObject({ kind: 'right', columns: 'C:F', outputColumn: 3 });
    const plan = planRun(owning(read(rows, header), 3), { ...OPTIONS, chosen: 'right' }, store().getMany);
    expect(plan).toMatchObject({ alreadyDone: 1, newProfiles: 0, credits: 0 });
  });

  it('appends columns at the end when the sheet has no room', () => {
    const rows = [[u('ann'), 'Acme', 'x']];
    const right = placementOptions(read(rows, ['Profile', 'Company', 'Phone'], 3), false)[1];
    expect(right).toMatchObject({ kind: 'right', columns: 'D:G', insertAfter: 3, insertCount: 4 });
  });

  it("URLs near the sheet's right edge: the empty columns up to the edge are used and the sheet grows at its end", () => {
    // URLs in W of a sheet that ends at Z: X:Z are empty, so the results go into X:AA, one column added after Z.
    const atW = (rows: unknown[][], header: unknown[] | null): ColumnRead => ({
      ...read(rows, header, 26),
      urlColumn: 23,
    });
    const rows = [[u('ann')], [u('bob'), '', '', '']];
    const options = placementOptions(atW(rows, ['Profile']), false);
    expect(options).toHaveLength(1);
    expect(options[0]).toMatchObject({
      kind: 'reuse',
      outputColumn: 24,
      columns: 'X:AA',
      insertAfter: 26,
      insertCount: 1,
    });
    expect(options[0].effect).toBe(
      "Results go into X:AA beside the URLs (1 column added at the sheet's end). Nothing moves.",
    );
    const plan = planRun(atW(rows, ['Profile']), OPTIONS, store().getMany);
    expect(plan.needsChoice).toBe(false);
    // The URLs in the last column: all four columns are added at the end.
    const last = placementOptions({ ...read(rows, ['Profile'], 26), urlColumn: 26 }, false);
    expect(last).toMatchObject([{ kind: 'reuse', columns: 'AA:AD', insertAfter: 26, insertCount: 4 }]);
    // Data in X: a choice, and "further right" starts at the first empty column (Y), growing the sheet by two.
    const busy = placementOptions(atW([[u('ann'), 'Acme']], ['Profile', 'Company']), false);
    expect(busy.map((o) => [o.kind, o.columns, o.insertAfter, o.insertCount])).toEqual([
      ['insert', 'X:AA', 23, 4],
      ['right', 'Y:AB', 26, 2],
    ]);
  });

  it("extra fields turned on: the add-on's four columns are reused and only two are added", () => {
    const header = ['Profile', ...TITLES];
    const rows = [[u('ann'), 'ann@acme.test', 'VALID', false, '']];
    expect(placementOptions(owning(read(rows, header)), true)).toMatchObject([
      { kind: 'reuse', columns: 'B:G', insertCount: 0 },
    ]);
    // Data right of the Note column: the two new columns are inserted after it, not six beside the URLs.
    const crowded = [[u('ann'), 'ann@acme.test', 'VALID', false, '', 'Phone']];
    const [extend] = placementOptions(owning(read(crowded, header)), true);
    expect(extend).toMatchObject({ kind: 'extend', columns: 'B:G', insertAfter: 5, insertCount: 2 });
    expect(extend.effect).toMatch(/stay in B:E/);
  });
});

describe('Retry failed rows', () => {
  const header = ['Profile', ...TITLES];
  const rows = [
    [u('ann'), 'ann@acme.test', 'VALID', false, ''],
    [u('bob'), '', 'ERROR', '', `The service did not answer in time. To try again: ${RETRY_PATH}.`],
    [u('cy'), '', 'UNPROCESSABLE', '', 'The service could not process this profile (private).'],
    [u('dee')],
    ['not a url', '', 'INVALID_URL', '', 'Not looked up'],
  ];

  it('plans only the ERROR rows; UNPROCESSABLE ones on request, bought again', () => {
    const s = store({ [key('cy')]: unprocessable });
    const errors = planRun(owning(read(rows, header)), { ...OPTIONS, mode: 'retry' }, s.getMany);
    expect(errors).toMatchObject({ redo: ['ERROR'], lookupRows: 1, alreadyDone: 4, credits: 1 });
    const both = planRun(
      owning(read(rows, header)),
      { ...OPTIONS, mode: 'retry', includeUnprocessable: true },
      s.getMany,
    );
    expect(both).toMatchObject({
      redo: ['ERROR', 'UNPROCESSABLE'],
      lookupRows: 2,
      newProfiles: 2,
      credits: 2,
    });
  });

  it('has nothing to retry without a failed row', () => {
    const plan = planRun(owning(read([rows[0]], header)), { ...OPTIONS, mode: 'retry' }, store().getMany);
    expect(plan.refusal).toMatch(/nothing to retry/);
  });

  it('planRows and RunScope.mayWrite leave every row but the redone ones alone', () => {
    const cells = rows.map((row) => [...row, '', '', '', ''].slice(0, 5));
    const retry = new RunScope({ redo: ['ERROR'], recheck: false, readsOutput: true });
    const plans = planRows(cells, retry, 1, HOSTS);
    expect(plans.map((p) => p.action)).toEqual(['keep', 'lookup', 'keep', 'keep', 'keep']);
    expect(cells.map((row) => retry.mayWrite(row, 1, true))).toEqual([false, true, false, false, false]);
  });
});

test('columnLetters', () => {
  expect([1, 2, 26, 27, 52, 53, 702, 703].map(columnLetters)).toEqual([
    'A',
    'B',
    'Z',
    'AA',
    'AZ',
    'BA',
    'ZZ',
    'AAA',
  ]);
});

test('a retry works in the columns the results are in, further right too: no choice, no new columns', () => {
  const rows = [[u('ann'), 'Acme', '', 'ERROR', '', 'timed out']];
  const header = ['Profile', 'Company', ...TITLES];
  const plan = planRun(owning(read(rows, header), 3), { ...OPTIONS, mode: 'retry' }, store().getMany);
  expect(plan).toMatchObject({ needsChoice: false, lookupRows: 1, credits: 1 });
  expect(plan.placement).toMatchObject({ kind: 'right', columns: 'C:F' });
});
