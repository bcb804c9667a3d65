import { countCopy, countOutcome, countSelection, finalCounts } from '../../src/bulk/outcomes';
import { canReuse } from '../../src/bulk/placement';
import { isOwnStatus, withFormulaCells } from '../../src/bulk/rowCells';
import { adjacentRuns, firstWithoutStatus, planRows, writtenResults } from '../../src/bulk/rowPlan';
import { RunScope } from '../../src/bulk/runScope';
import { OUT, outputHeaders } from '../../src/core/cells';
import { RETRY_PATH } from '../../src/core/product';
import { emptyRunCounts } from '../../src/core/runWords';
import { parseNetworkHosts } from '../../src/core/url';
import { columnRead, owning } from '../support/columnRead';

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

describe('canReuse', () => {
  const titles = outputHeaders(false);
  /** A read of the URL column with `outputs` beside it (header first when `header` is given). */
  const block = (outputs: unknown[][], header: unknown[] | null = null) =>
    columnRead(
      outputs.map((cells) => [A, ...cells]),
      header ? ['Profile', ...header] : null,
    );

  it("reuses columns titled as ours over the add-on's own rows, whatever they hold", () => {
    expect(canReuse(owning(block([['x', 'y', 'z', 'w']], titles)), 1, 4)).toBe(true);
    // The titles alone do not make the person's rows the add-on's.
    expect(canReuse(block([['x', 'y', 'z', 'w']], titles), 1, 4)).toBe(false);
  });

  it("with extra fields, every header cell is the add-on's title or empty: a title of the person's is not", () => {
    expect(canReuse(block([['', '', '', '', '', '']], [...titles, '', '']), 1, 6)).toBe(true);
    expect(canReuse(block([['', '', '', '', '', '']], [...titles, '', 'Phone']), 1, 6)).toBe(false);
    expect(canReuse(block([['', '', '', '', '', '']], outputHeaders(true)), 1, 6)).toBe(true);
  });

  it("reuses untitled columns holding the add-on's output (statuses, booleans in Catch-all) inside its blocks", () => {
    const outputs = [
      ['a@b.test', 'VALID', true, ''],
      ['', '', '', ''],
      ['', 'NOT_FOUND', '', 'No address found for this profile.'],
    ];
    expect(canReuse(owning(block(outputs)), 1, 4)).toBe(true);
    expect(canReuse(block(outputs), 1, 4)).toBe(false);
  });

  it("refuses a user's data in any row outside the add-on's blocks, or a non-empty untitled header", () => {
    expect(canReuse(block([['a@b.test', 'VALID', 'maybe', '']]), 1, 4)).toBe(false);
    const mixed = block([
      ['a@b.test', 'VALID', true, ''],
      ['Acme', 'YES', '', ''],
    ]);
    expect(canReuse({ ...mixed, owned: new Map([[2, [[1, 1]]]]) }, 1, 4)).toBe(false);
    expect(canReuse(owning(block([['a@b.test', 'VALID', true, '']], ['Company', '', '', ''])), 1, 4)).toBe(
      false,
    );
  });

  it('reuses an untitled empty header over own output', () => {
    expect(canReuse(owning(block([['a@b.test', 'VALID', false, '']], ['', '', '', ''])), 1, 4)).toBe(true);
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
  /** An ERROR row as the add-on writes it (its own Note), and one whose Note the person typed. */
  const error = [A, '', 'ERROR', '', `The service failed (HTTP 500). To try again: ${RETRY_PATH}.`];
  const typed = [A, '', 'ERROR', '', 'boom'];

  it('a row is written only while its output cells are empty, or pending and the add-on owns them', () => {
    expect(ALL.mayWrite([A, '', '', ''], 1, false)).toBe(true);
    expect(ALL.mayWrite([A, 'x', '', ''], 1, true)).toBe(false); // something of the user's
    expect(ALL.mayWrite(error, 1, true)).toBe(true);
    expect(ALL.mayWrite(error, 2, true)).toBe(false);
    expect(ALL.mayWrite([A, 'a@b.test', 'VALID', ''], 1, true)).toBe(false);
    expect(ALL.mayWrite(undefined, 1, true)).toBe(false);
  });

  it("outside the add-on's blocks, or with a Note the person typed, a row with anything in it is theirs", () => {
    expect(ALL.mayWrite(error, 1, false)).toBe(false);
    expect(ALL.mayWrite(typed, 1, true)).toBe(false);
    // A text in Catch-all: the add-on writes a real boolean there.
    expect(RECHECK.mayWrite([A, 'a@b.test', 'VALID', 'maybe', ''], 1, true)).toBe(false);
    expect(RECHECK.mayWrite([A, 'a@b.test', 'VALID', true, ''], 1, true)).toBe(true);
  });

  it("a re-check overwrites the add-on's own results only", () => {
    expect(RECHECK.mayWrite([A, 'a@b.test', 'VALID', ''], 1, true)).toBe(true);
    expect(RECHECK.mayWrite([A, 'Acme', 'YES', ''], 1, true)).toBe(false);
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
    expect(counts).toEqual({ ...emptyRunCounts(), total: 4, processed: 2, alreadyDone: 2 });
    expect(hasDuplicates).toBe(true);
  });

  it('countSelection skips nothing on a re-check, or when the columns are new', () => {
    expect(countSelection(selection, RECHECK, HOSTS).counts).toEqual({ ...emptyRunCounts(), total: 4 });
    expect(
      countSelection(selection, new RunScope({ redo: null, recheck: false, readsOutput: false }), HOSTS)
        .counts,
    ).toEqual({ ...emptyRunCounts(), total: 4 });
  });

  it('finalCounts keeps the counts made as rows were written, and the rows at the end as the total', () => {
    const before = {
      ...emptyRunCounts(),
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
    const counts = emptyRunCounts();
    countOutcome(counts, { kind: 'not_found', profile: {} });
    countOutcome(counts, { kind: 'invalid', reason: 'r' });
    countCopy(counts, ['a@x.test', 'VALID', true, '']);
    expect(counts).toEqual({ ...emptyRunCounts(), processed: 3, found: 1, noAddress: 1, notProfile: 1 });
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
    expect(ALL.mayWrite(values[1], 1, true)).toBe(true);
    expect(ALL.mayWrite(read[1], 1, true)).toBe(false);
    expect(canReuse(columnRead([read[1]], null), 1, 4)).toBe(false);
  });
});
