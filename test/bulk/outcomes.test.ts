import { countAlreadyDone, countKind, kindOfOutcome, kindOfStatus } from '../../src/bulk/outcomes';
import { emptyRunCounts, RESULT_KINDS } from '../../src/core/runWords';
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
