import { emptyCounts, type Progress } from '../../src/core/job';
import { creditsShown, describeState } from '../../src/sidebar/progress';

const progress = (state: Progress['state'], reason?: Progress['reason'], message = ''): Progress => ({
  ...emptyCounts(),
  state,
  reason,
  message,
});

describe('describeState renders the reason, never the message', () => {
  it.each([
    ['paused', 'out_of_credits', 'Paused: out of credits'],
    ['paused', 'quota', 'Paused: daily limit of service calls reached'],
    ['paused', 'error', 'Paused after an error'],
    ['paused', 'user', 'Paused'],
    ['stopped', 'key_rejected', 'Stopped: the API key is missing or invalid'],
    ['stopped', 'no_key', 'Stopped: the API key is missing or invalid'],
    ['stopped', 'configuration', 'Stopped: the add-on is misconfigured'],
    ['stopped', 'sheet_missing', 'Stopped'],
  ] as const)('%s because of %s: "%s"', (state, reason, label) => {
    expect(
      describeState(progress(state, reason, 'Out of credits: the API key was rejected at the address')),
    ).toEqual({
      label,
      tone: state,
    });
  });

  it('a job stored by an earlier version (no reason) reads plainly', () => {
    expect(describeState(progress('paused', undefined, 'Out of credits')).label).toBe('Paused');
    expect(describeState(progress('stopped', undefined, 'The API key was rejected')).label).toBe('Stopped');
  });
});

describe('creditsShown: what was charged, and apart what may have been', () => {
  it('shows the credits used alone when no answer was lost', () => {
    expect(creditsShown({ ...progress('running'), creditsUsed: 37 })).toBe('37');
    // A job stored by an earlier version has no count of lost answers.
    const { creditsMaybeLost: _lost, ...older } = { ...progress('done'), creditsUsed: 5 };
    expect(creditsShown(older as Progress)).toBe('5');
  });

  it('shows the answers lost to connection failures apart', () => {
    expect(creditsShown({ ...progress('done'), creditsUsed: 37, creditsMaybeLost: 45 })).toBe(
      '37 (up to 45 more may have been charged for answers lost to connection failures)',
    );
  });
});
