/** A run halted by the service or a platform quota: each message names where to resume, the watch's its own tab. */
import { haltOf } from '../../src/bulk/jobMachine';
import { serviceError } from '../../src/lookup/result';
import { forTheWatch } from '../../src/watch/watch';

describe('the halt of the daily web requests quota', () => {
  const { reason, message } = haltOf(
    serviceError('quota', 'Service invoked too many times for one day: urlfetch.'),
  );

  it('names the Progress tab to resume in once the quota resets', () => {
    expect(reason).toBe('quota');
    expect(message).toMatch(/Wait until it resets, then Resume in the Progress tab\.$/);
  });

  it('said of the watch, names the Watch tab instead', () => {
    expect(forTheWatch(message)).toMatch(
      /Wait until it resets, then start the watch again in the Watch tab\.$/,
    );
  });
});
