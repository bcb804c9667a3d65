import type { JobState } from '../../src/api';
import { HALT_STATE, haltOf, type JobEvent, transition } from '../../src/bulk/jobMachine';
import { summarize } from '../../src/bulk/runHistory';
import { emptyRunCounts, timeTakenText } from '../../src/core/runWords';
import { serviceError } from '../../src/lookup/result';
import { forTheWatch } from '../../src/watch/watch';
import { testJob as job } from '../support/job';

const STATES: JobState[] = ['idle', 'running', 'paused', 'stopped', 'cancelled', 'done'];

const finished = {
  ...emptyRunCounts(),
  total: 8,
  processed: 8,
  found: 5,
  noAddress: 2,
  error: 1,
  creditsUsed: 7,
  lookupsFound: 4,
};

/** The states an event changes, and to what; from every other state the job is returned unchanged ('='). */
function moves(changes: Partial<Record<JobState, JobState>>): Record<JobState, JobState | '='> {
  return Object.fromEntries(STATES.map((state) => [state, changes[state] ?? '='])) as Record<
    JobState,
    JobState | '='
  >;
}
const active = (to: JobState) => moves({ running: to, paused: to, stopped: to });

/** Every event, and the state it leads to from each state. */
const TABLE: Array<[string, JobEvent, Record<JobState, JobState | '='>]> = [
  ['start', { type: 'start' }, moves({ idle: 'running' })],
  ['pause', { type: 'pause' }, moves({ running: 'paused' })],
  ['resume', { type: 'resume' }, moves({ paused: 'running', stopped: 'running' })],
  ['cancel', { type: 'cancel' }, active('cancelled')],
  [
    'halt(out_of_credits)',
    { type: 'halt', reason: 'out_of_credits', message: 'm' },
    moves({ running: 'paused' }),
  ],
  [
    'halt(key_rejected)',
    { type: 'halt', reason: 'key_rejected', message: 'm' },
    moves({ running: 'stopped' }),
  ],
  [
    'halt(sheet_changed)',
    { type: 'halt', reason: 'sheet_changed', message: 'm' },
    moves({ running: 'cancelled' }),
  ],
  ['finish', { type: 'finish', counts: finished, leftPending: false }, moves({ running: 'done' })],
];

describe('transition: every event from every state', () => {
  for (const [name, event, expected] of TABLE) {
    for (const from of STATES) {
      const to = expected[from];
      it(`${name} from ${from} → ${to === '=' ? 'unchanged' : to}`, () => {
        const before = job(from);
        const copy = JSON.parse(JSON.stringify(before));
        const after = transition(before, event, 5000);
        expect(before).toEqual(copy); // pure: the input is never changed
        if (to === '=') expect(after).toBe(before);
        else expect(after.state).toBe(to);
      });
    }
  }
});

describe('what a transition carries', () => {
  it('a halt takes its reason and message, and the state of its reason', () => {
    for (const [reason, state] of Object.entries(HALT_STATE)) {
      const after = transition(
        job('running'),
        {
          type: 'halt',
          reason: reason as keyof typeof HALT_STATE,
          message: 'why',
        },
        5000,
      );
      expect(after).toMatchObject({ state, reason, message: 'why' });
    }
  });

  it('pause and cancel by the user say so; resume clears the reason', () => {
    const paused = transition(job('running'), { type: 'pause' }, 5000);
    expect(paused).toMatchObject({
      state: 'paused',
      reason: 'user',
      message: expect.stringMatching(/^Paused\./),
    });
    const resumed = transition(paused, { type: 'resume' }, 5000);
    expect(resumed.reason).toBeUndefined();
    expect(resumed.message).toBe('Resuming…');
    expect(transition(job('paused'), { type: 'cancel' }, 5000)).toMatchObject({
      reason: 'user',
      message:
        'Cancelled: 2 rows with an address, 1 row with no address. 3 credits used: 2 of 3 lookups found an address (67 %). Results written so far are kept.',
    });
  });

  it('finish stores the final counts and names rows left without a result', () => {
    const done = transition(job('running'), { type: 'finish', counts: finished, leftPending: true }, 5000);
    expect(done.counts).toEqual(finished);
    expect(done.message).toMatch(
      /^Done: 5 rows with an address, 2 rows with no address, 1 row with an error\. 7 credits used: 4 of 7 lookups found an address \(57 %\); 1 row reused an address already found \(a repeated or known profile\)\./,
    );
    expect(done.message).toMatch(/Some rows have no result/);
    expect(
      transition(job('running'), { type: 'finish', counts: finished, leftPending: false }, 5000).message,
    ).not.toMatch(/Some rows/);
  });
});

describe('working time', () => {
  it('a paused or stopped stretch is timed apart, by why the run waited', () => {
    let run = job('running', { startedAt: 0, updatedAt: 0 });
    run = transition(run, { type: 'halt', reason: 'key_rejected', message: 'k' }, 3_000);
    expect(run.haltedSince).toBe(3_000);
    run = transition(run, { type: 'resume' }, 29_000);
    expect(run.haltedSince).toBeUndefined();
    expect(run.waited).toEqual({ key_rejected: 26_000 });
    run = transition(run, { type: 'pause' }, 30_000);
    run = transition(run, { type: 'cancel' }, 40_000);
    expect(run.waited).toEqual({ key_rejected: 26_000, user: 10_000 });
    const summary = summarize({ ...run, updatedAt: 40_000 });
    expect(summary.durationMs).toBe(4_000);
    expect(timeTakenText(summary)).toBe('4 s of work, waited 26 s for a key, waited 10 s while paused');
    expect(timeTakenText({ durationMs: 12_000, waited: {} })).toBe('12 s');
  });

  it('a slice that worked on after a Pause (its batch answered, saved at 5 s) made working time, not waiting', () => {
    let run = job('running', { startedAt: 0, updatedAt: 0 });
    run = { ...transition(run, { type: 'pause' }, 1_000), updatedAt: 1_000 };
    // The slice under way when Pause came saves its batch's answers at 5 s.
    run = { ...run, updatedAt: 5_000 };
    run = { ...transition(run, { type: 'resume' }, 47_000), updatedAt: 47_000 };
    expect(run.waited).toEqual({ user: 42_000 });
    const summary = summarize({
      ...transition(run, { type: 'finish', counts: run.counts, leftPending: false }, 48_000),
      updatedAt: 48_000,
    });
    expect(timeTakenText(summary)).toBe('6 s of work, waited 42 s while paused');
  });
});

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
