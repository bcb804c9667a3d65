import { countCopy, countOutcome, countSelection, finalCounts } from '../../src/bulk/counting';
import { emptyCounts } from '../../src/bulk/job';
import { canReuseOutputColumns } from '../../src/bulk/placement';
import { isOwnStatus, withFormulaCells } from '../../src/bulk/rowCells';
import { adjacentRuns, firstWithoutStatus, planRows, writtenResults } from '../../src/bulk/rowPlan';
import { RunScope } from '../../src/bulk/runScope';
import { OUT, outputHeaders } from '../../src/core/cells';
import { parseNetworkHosts } from '../../src/core/url';

const A = 'https://network.com/in/a';
const B = 'https://network.com/in/b';
/** The sandbox's network domain (script property NETWORK_HOSTS in the test worlds). */
const HOSTS = parseNetworkHosts('network.com');
/** A run over every row, and a re-check, their output columns read. */
const ALL = new RunScope({ redo: null, recheck: false, readsOutput: true });
const RECHECK = new RunScope({ redo: null, recheck: true, readsOutput: true });

describe('isOwnStatus', () => {
  it("knows the add-on's markers, with or without an address", () => {
    for (const status of ['NOT_FOUND', 'UNPROCESSABLE', 'INVALID_URL', 'ERROR']) {
      expect(isOwnStatus(status, '')).toBe(true);
    }
  });

  it('takes an upper-case service status only next to an address', () => {
    expect(isOwnStatus('VALID', 'jane@acme.test')).toBe(true);
    expect(isOwnStatus('CATCH_ALL', 'jane@acme.test')).toBe(true);
    expect(isOwnStatus('VALID', '')).toBe(false);
    expect(isOwnStatus('VALID', 'not an address')).toBe(false);
  });

  it("refuses a user's own column", () => {
    expect(isOwnStatus('YES', 'Acme')).toBe(false);
    expect(isOwnStatus('valid', 'jane@acme.test')).toBe(false);
    expect(isOwnStatus(true, 'jane@acme.test')).toBe(false);
    expect(isOwnStatus('', 'jane@acme.test')).toBe(false);
  });
});

describe('canReuseOutputColumns', () => {
  const titles = outputHeaders(false);

  it('reuses columns titled as ours, whatever they hold', () => {
    expect(canReuseOutputColumns([titles, ['x', 'y', 'z', 'w']], 0, false)).toBe(true);
  });

  it('needs every title: with extra fields, the base titles alone are not enough', () => {
    expect(
      canReuseOutputColumns(
        [
          [...titles, '', ''],
          ['', '', '', '', '', ''],
        ],
        0,
        true,
      ),
    ).toBe(false);
    expect(canReuseOutputColumns([outputHeaders(true), ['', '', '', '', '', '']], 0, true)).toBe(true);
  });

  it("reuses untitled columns holding only the add-on's output (statuses, booleans in Catch-all)", () => {
    const block = [
      ['a@b.test', 'VALID', true, ''],
      ['', '', '', ''],
      ['', 'NOT_FOUND', '', 'No address found for this profile.'],
    ];
    expect(canReuseOutputColumns(block, null, false)).toBe(true);
  });

  it("refuses a user's data in any row, or a text in Catch-all, or a non-empty untitled header", () => {
    expect(canReuseOutputColumns([['a@b.test', 'VALID', 'maybe', '']], null, false)).toBe(false);
    expect(
      canReuseOutputColumns(
        [
          ['a@b.test', 'VALID', true, ''],
          ['Acme', 'YES', '', ''],
        ],
        null,
        false,
      ),
    ).toBe(false);
    expect(
      canReuseOutputColumns(
        [
          ['Company', '', '', ''],
          ['a@b.test', 'VALID', true, ''],
        ],
        0,
        false,
      ),
    ).toBe(false);
  });

  it('reuses an untitled empty header over own output', () => {
    expect(
      canReuseOutputColumns(
        [
          ['', '', '', ''],
          ['a@b.test', 'VALID', false, ''],
        ],
        0,
        false,
      ),
    ).toBe(true);
  });
});

describe('planRows', () => {
  const rows = [
    [A, '', 'ERROR', 'boom'],
    [B, '', 'INVALID_URL', ''],
    [A, 'a@x.test', 'VALID', ''],
  ];

  it('retries ERROR and INVALID_URL on the first pass only', () => {
    expect(planRows(rows, ALL, 1, HOSTS).map((plan) => plan.action)).toEqual(['lookup', 'lookup', 'keep']);
    expect(planRows(rows, ALL, 2, HOSTS).map((plan) => plan.action)).toEqual(['keep', 'keep', 'keep']);
  });

  it('a re-check looks every URL up again; the plan carries the canonical URL to send and its key', () => {
    const [plan] = planRows([['  HTTP://network.com/IN/A  ', 'a@x.test', 'VALID', '']], RECHECK, 1, HOSTS);
    expect(plan).toEqual({
      action: 'lookup',
      sent: 'https://www.network.com/in/a/',
      key: 'https://network.com/in/a',
    });
  });
});

describe('RunScope.mayWrite', () => {
  it('a row is written only while its output cells are empty or pending', () => {
    expect(ALL.mayWrite([A, '', '', ''], 1)).toBe(true);
    expect(ALL.mayWrite([A, 'x', '', ''], 1)).toBe(false); // something of the user's
    expect(ALL.mayWrite([A, '', 'ERROR', 'boom'], 1)).toBe(true);
    expect(ALL.mayWrite([A, '', 'ERROR', 'boom'], 2)).toBe(false);
    expect(ALL.mayWrite([A, 'a@b.test', 'VALID', ''], 1)).toBe(false);
    expect(ALL.mayWrite(undefined, 1)).toBe(false);
  });

  it("a re-check overwrites the add-on's own results only", () => {
    expect(RECHECK.mayWrite([A, 'a@b.test', 'VALID', ''], 1)).toBe(true);
    expect(RECHECK.mayWrite([A, 'Acme', 'YES', ''], 1)).toBe(false);
  });
});

describe('reading results back from the sheet', () => {
  it('writtenResults: the first own final result per normalised URL', () => {
    const results = writtenResults(
      [
        [A, '', 'ERROR', 'boom'],
        [`${A}/`, 'a@x.test', 'VALID', true, ''],
        [A, 'other@x.test', 'VALID', false, ''],
        [B, 'Acme', 'YES', '', ''],
      ],
      HOSTS,
    );
    expect([...results.keys()]).toEqual([A]);
    expect(results.get(A)?.[OUT.email]).toBe('a@x.test');
  });

  it('firstWithoutStatus skips empty URLs and rows with a status', () => {
    expect(
      firstWithoutStatus([
        ['', '', ''],
        [A, '', 'VALID'],
        [B, '', ''],
      ]),
    ).toBe(2);
    expect(firstWithoutStatus([[A, '', 'ERROR']])).toBe(-1);
  });

  it('adjacentRuns groups ascending indices', () => {
    expect(adjacentRuns([0, 1, 2, 5, 7, 8])).toEqual([
      { from: 0, count: 3 },
      { from: 5, count: 1 },
      { from: 7, count: 2 },
    ]);
    expect(adjacentRuns([])).toEqual([]);
  });
});

describe('counting', () => {
  const selection = [
    [A, 'a@x.test', 'VALID', true, ''],
    ['', '', '', '', ''],
    [B, '', 'NOT_FOUND', '', ''],
    [`${B}?x=1`, '', 'ERROR', '', 'boom'],
    ['oops', '', '', '', ''],
  ];

  it('countSelection skips final results, counts them by kind, and notices duplicate URLs', () => {
    const { counts, hasDuplicates } = countSelection(selection, ALL, HOSTS);
    expect(counts).toEqual({ ...emptyCounts(), total: 4, processed: 2, alreadyDone: 2 });
    expect(hasDuplicates).toBe(true);
  });

  it('countSelection skips nothing on a re-check, or when the columns are new', () => {
    expect(countSelection(selection, RECHECK, HOSTS).counts).toEqual({ ...emptyCounts(), total: 4 });
    expect(
      countSelection(selection, new RunScope({ redo: null, recheck: false, readsOutput: false }), HOSTS)
        .counts,
    ).toEqual({ ...emptyCounts(), total: 4 });
  });

  it('finalCounts keeps the counts made as rows were written, and the rows at the end as the total', () => {
    const before = {
      ...emptyCounts(),
      total: 3,
      processed: 3,
      found: 2,
      error: 1,
      alreadyDone: 2,
      creditsUsed: 5,
    };
    // The total is at least the rows processed (rows inserted during the run and filled count).
    expect(finalCounts(before, selection)).toEqual({ ...before, total: 5, processed: 5 });
    expect(finalCounts(before, selection.slice(0, 2))).toEqual({ ...before, total: 5, processed: 5 });
  });

  it('countOutcome and countCopy', () => {
    const counts = emptyCounts();
    countOutcome(counts, { kind: 'not_found', profile: {} });
    countOutcome(counts, { kind: 'invalid', reason: 'r' });
    countCopy(counts, ['a@x.test', 'VALID', true, '']);
    expect(counts).toEqual({ ...emptyCounts(), processed: 3, found: 1, noAddress: 1, notProfile: 1 });
  });
});

describe('withFormulaCells', () => {
  it('reads an output cell holding a formula as its formula, whatever it shows; the URL cell keeps its value', () => {
    const values = [
      ['https://www.network.com/in/a', '', '', '', ''],
      ['https://www.network.com/in/b', '', '', '', ''],
    ];
    const formulas = [
      ['=HYPERLINK("x")', '', '', '', ''],
      ['', '=IF(Z3="","",Z3)', '', '', ''],
    ];
    const read = withFormulaCells(values, formulas);
    expect(read[0]).toBe(values[0]);
    expect(read[1]).toEqual(['https://www.network.com/in/b', '=IF(Z3="","",Z3)', '', '', '']);
    expect(ALL.mayWrite(values[1], 1)).toBe(true);
    expect(ALL.mayWrite(read[1], 1)).toBe(false);
    expect(canReuseOutputColumns([read[1].slice(1)], null, false)).toBe(false);
  });
});
