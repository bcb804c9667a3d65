import {
  countAlreadyDone,
  countCopy,
  countKind,
  countOutcome,
  countSelection,
  finalCounts,
  kindOfOutcome,
  kindOfStatus,
} from '../../src/bulk/outcomes';
import { RunScope } from '../../src/bulk/runScope';
import { emptyRunCounts, RESULT_KINDS } from '../../src/core/runWords';
import { parseNetworkHosts } from '../../src/core/url';
import type { RowOutcome } from '../../src/lookup/cellValues';

const serviceError = (error: 'bad_request' | 'server_error', message = 'x'): RowOutcome => ({
  kind: 'error',
  error,
  message,
  retryable: error === 'server_error',
  effect: 'continue',
});

describe('kindOfStatus', () => {
  it("gives each of the add-on's markers its kind", () => {
    expect(kindOfStatus('NOT_FOUND')).toBe('noAddress');
    expect(kindOfStatus('UNPROCESSABLE')).toBe('unprocessable');
    expect(kindOfStatus('INVALID_URL')).toBe('notProfile');
    expect(kindOfStatus('ERROR')).toBe('error');
  });

  it('counts a service status as found only beside an address', () => {
    expect(kindOfStatus('VALID', 'jane@acme.test')).toBe('found');
    expect(kindOfStatus('CATCH_ALL', 'jane@acme.test')).toBe('found');
    expect(kindOfStatus('VALID', '')).toBeNull();
  });

  it("does not count a status that is not the add-on's, nor an empty one", () => {
    expect(kindOfStatus('')).toBeNull();
    expect(kindOfStatus('yes', 'jane@acme.test')).toBeNull();
  });
});

describe('kindOfOutcome', () => {
  it('classifies every outcome a row can be written from', () => {
    const found: RowOutcome = {
      kind: 'found',
      email: 'jane@acme.test',
      emailStatus: 'VALID',
      catchAll: false,
      accountType: 'professional',
      profile: {},
    };
    expect(kindOfOutcome(found)).toBe('found');
    expect(kindOfOutcome({ kind: 'not_found', profile: {} })).toBe('noAddress');
    expect(kindOfOutcome({ kind: 'unprocessable', message: 'private', profile: {} })).toBe('unprocessable');
    expect(kindOfOutcome({ kind: 'invalid', reason: 'not a URL' })).toBe('notProfile');
    expect(kindOfOutcome(serviceError('server_error'))).toBe('error');
  });

  it('counts a 400 as not a profile, as its status INVALID_URL says', () => {
    expect(kindOfOutcome(serviceError('bad_request'))).toBe('notProfile');
  });

  it('counts an address the service gave without a status as found', () => {
    const found: RowOutcome = {
      kind: 'found',
      email: 'jane@acme.test',
      emailStatus: '',
      catchAll: false,
      accountType: '',
      profile: {},
    };
    expect(kindOfOutcome(found)).toBe('found');
  });
});

describe('countKind and countAlreadyDone', () => {
  it('count each row once, in exactly one kind, and as processed', () => {
    const counts = emptyRunCounts();
    for (const kind of RESULT_KINDS) countKind(counts, kind);
    countAlreadyDone(counts);
    countKind(counts, null);
    expect(counts.processed).toBe(RESULT_KINDS.length + 1);
    for (const kind of RESULT_KINDS) expect(counts[kind]).toBe(1);
    expect(counts.alreadyDone).toBe(1);
    expect(counts.total).toBe(0);
    expect(counts.creditsUsed).toBe(0);
  });
});

const HOSTS = parseNetworkHosts('network.com');
const ALL = new RunScope({ redo: null, recheck: false, readsOutput: true });
const RETRY = new RunScope({ redo: ['ERROR'], recheck: false, readsOutput: true });
const INSERTED = new RunScope({ redo: null, recheck: false, readsOutput: false });
const A = 'https://network.com/in/a';

describe('countSelection', () => {
  const rows = [
    [A, '', '', '', ''],
    ['https://www.network.com/in/A/', 'a@acme.test', 'VALID', false, ''],
    ['', '', '', '', ''],
    ['not a url', '', 'INVALID_URL', '', ''],
    ['https://network.com/in/b', '', 'ERROR', '', 'timeout'],
    ['https://network.com/in/c', '', 'NOT_FOUND', '', ''],
  ];

  it('counts every row with a URL cell, none twice, and the rows the run keeps as already done', () => {
    const { counts, hasDuplicates } = countSelection(rows, ALL, HOSTS);
    expect(counts.total).toBe(5);
    // Kept: the VALID and NOT_FOUND rows; INVALID_URL and ERROR are the run's again in its first pass.
    expect(counts.alreadyDone).toBe(2);
    expect(counts.processed).toBe(2);
    expect(hasDuplicates).toBe(true);
  });

  it('keeps every row but the failed ones in Retry failed rows', () => {
    const { counts } = countSelection(rows, RETRY, HOSTS);
    expect(counts.total).toBe(5);
    expect(counts.alreadyDone).toBe(4);
  });

  it('keeps nothing when the output columns are new (inserted ones start empty)', () => {
    expect(countSelection(rows, INSERTED, HOSTS).counts.alreadyDone).toBe(0);
  });

  it('finds no duplicate among different profiles', () => {
    const distinct = [[A], ['https://network.com/in/b'], ['not a url'], ['not a url']];
    expect(countSelection(distinct, ALL, HOSTS).hasDuplicates).toBe(false);
  });
});

describe('countOutcome and countCopy', () => {
  it('count a written row and a copied row once each, by its kind', () => {
    const counts = emptyRunCounts();
    countOutcome(counts, { kind: 'not_found', profile: {} });
    countCopy(counts, ['a@acme.test', 'VALID', false, '']);
    countCopy(counts, ['', 'UNPROCESSABLE', '', '']);
    expect(counts).toMatchObject({ processed: 3, noAddress: 1, found: 1, unprocessable: 1 });
  });

  it("does not count a copy of cells that are not the add-on's output", () => {
    const counts = emptyRunCounts();
    countCopy(counts, ['', 'YES', '', '']);
    expect(counts.processed).toBe(0);
  });
});

describe('finalCounts', () => {
  it('sums the processed rows from the kinds and the kept rows, and counts the range at the end', () => {
    const counts = { ...emptyRunCounts(), found: 2, error: 1, alreadyDone: 1, processed: 99, total: 3 };
    const final = finalCounts(counts, [[A], [A], [''], [A], [A], [A]]);
    expect(final.processed).toBe(4);
    expect(final.total).toBe(5);
    expect(final.found).toBe(2);
  });

  it('never reports fewer rows than it processed (rows deleted during the run)', () => {
    const counts = { ...emptyRunCounts(), found: 3, processed: 3 };
    expect(finalCounts(counts, [[A]]).total).toBe(3);
  });

  it('leaves the given counts as they were', () => {
    const counts = { ...emptyRunCounts(), found: 1, processed: 1 };
    finalCounts(counts, [[A], [A]]);
    expect(counts.total).toBe(0);
  });
});
