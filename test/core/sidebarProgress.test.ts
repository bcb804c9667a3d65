import { emptyCounts, type Progress } from '../../src/core/job';
import { describeState } from '../../src/sidebar/progress';

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
