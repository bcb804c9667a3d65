import type { Progress } from '../../src/api';
import { type Job, progressOf, SIDEBAR_CLOSED_MESSAGE, STARTER_AWAY_MESSAGE } from '../../src/bulk/job';
import { WAITING_AFTER_MS } from '../../src/core/limits';
import { emptyRunCounts } from '../../src/core/runWords';
import {
  canCancel,
  canPause,
  canResume,
  creditsShown,
  describeState,
  driverNotice,
  ownerNotice,
  pausedByClosedSidebar,
} from '../../src/sidebar/progress';

const progress = (state: Progress['state'], reason?: Progress['reason'], message = ''): Progress => ({
  ...emptyRunCounts(),
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

describe('a paused run whose every row has its result (the answers on their way at Pause finished it)', () => {
  const job = {
    counts: { ...emptyRunCounts(), total: 70, processed: 70 },
    state: 'paused' as const,
    reason: 'user' as const,
    ownerId: 'starter-id',
    leaseUntil: 0,
    updatedAt: 1_000,
    message: 'Paused. Resume to continue where it stopped.',
  };

  it('is never "Paused" at 100 %: its words say only its end is left, which Resume makes', () => {
    const mine = progressOf(job as unknown as Job, { runnerId: 'starter-id', now: 2_000 });
    expect(describeState(mine)).toEqual({ label: 'Every row has its result', tone: 'paused' });
    expect(mine.message).toMatch(/^Every row has its result: .* Resume ends it/);
    expect(canResume(mine)).toBe(true);
    const theirs = progressOf(job as unknown as Job, { runnerId: 'someone-else', now: 2_000 });
    expect(theirs.message).toMatch(/Their Resume ends it\.$/);
  });

  it('a paused run with rows left reads Paused as before', () => {
    const left = { ...job, counts: { ...job.counts, processed: 69 } };
    const progress = progressOf(left as unknown as Job, { runnerId: 'starter-id', now: 2_000 });
    expect(describeState(progress).label).toBe('Paused');
    expect(progress.message).toBe(job.message);
  });
});

describe('a run seen by someone who did not start it, and a run waiting for its sidebar', () => {
  const job = {
    counts: emptyRunCounts(),
    state: 'running' as const,
    ownerId: 'starter-id',
    ownerName: 'owner@example.com',
    leaseUntil: 0,
    updatedAt: 1_000,
    message: 'Working: 3 of 9 rows.',
  };
  const view = (runnerId: string | null, now = 2_000) => progressOf(job as unknown as Job, { runnerId, now });

  it('the starter drives it; anyone else sees it read-only, with who started it and no button', () => {
    const mine = view('starter-id');
    expect(mine.readOnly).toBeUndefined();
    expect(canPause(mine) && canCancel(mine)).toBe(true);
    expect(driverNotice(mine)).toMatch(/Closing it pauses the run; opening the sidebar again resumes it/);
    const theirs = view('someone-else');
    expect(theirs).toMatchObject({ readOnly: true, startedBy: 'owner@example.com' });
    expect(canPause(theirs) || canResume(theirs) || canCancel(theirs)).toBe(false);
    expect(ownerNotice(theirs)).toBe(
      'Started by owner@example.com; only they can run, pause or resume it. It spends nothing of yours.',
    );
    expect(view(null).readOnly).toBe(true);
  });

  it('no slice driven for WAITING_AFTER_MS (its sidebar closed): paused for want of a driver, not running', () => {
    expect(view('starter-id').waiting).toBeUndefined();
    expect(view('starter-id', 1_000 + WAITING_AFTER_MS - 1).waiting).toBeUndefined();
    const later = view('someone-else', 1_000 + WAITING_AFTER_MS);
    expect(later.waiting).toBe(true);
    expect(describeState(later)).toEqual({
      label: "Paused: its starter's sidebar is closed",
      tone: 'paused',
    });
    expect(ownerNotice(later)).toMatch(/It goes on while their sidebar is open\.$/);
    const own = view('starter-id', 1_000 + WAITING_AFTER_MS);
    expect(describeState(own)).toEqual({
      label: 'Paused: the sidebar was closed — open it to go on',
      tone: 'paused',
    });
    // The message says it too, wherever the progress is shown: not "Working".
    expect(own.message).toBe(SIDEBAR_CLOSED_MESSAGE);
    expect(later.message).toBe(STARTER_AWAY_MESSAGE);
    expect(view('starter-id').message).toBe('Working: 3 of 9 rows.');
  });

  it("paused as its sidebar closed: its starter's sidebar, open again, resumes it; anyone else reads who may", () => {
    const closed = {
      ...job,
      state: 'paused' as const,
      reason: 'sidebar_closed',
      message: SIDEBAR_CLOSED_MESSAGE,
    };
    const own = progressOf(closed as unknown as Job, { runnerId: 'starter-id', now: 2_000 });
    expect(describeState(own)).toEqual({
      label: 'Paused: the sidebar was closed — open it to go on',
      tone: 'paused',
    });
    expect(own.message).toBe(SIDEBAR_CLOSED_MESSAGE);
    expect(pausedByClosedSidebar(own) && canResume(own)).toBe(true);
    const theirs = progressOf(closed as unknown as Job, { runnerId: 'someone-else', now: 2_000 });
    expect(describeState(theirs).label).toBe("Paused: its starter's sidebar is closed");
    expect(theirs.message).toBe(STARTER_AWAY_MESSAGE);
    expect(pausedByClosedSidebar(theirs)).toBe(false);
    expect(pausedByClosedSidebar(progress('paused', 'user'))).toBe(false);
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

describe("a watch's run as a person sees it", () => {
  it('counts only its own rows: one new row below forty done reads 0 of 1, then 1 of 1, not 40 of 41', () => {
    const counts = { ...emptyRunCounts(), total: 41, processed: 40, alreadyDone: 40 };
    const job = { counts, state: 'running', origin: 'watch', message: '', leaseUntil: 0, updatedAt: 0 };
    expect(progressOf(job as unknown as Job)).toMatchObject({ processed: 0, total: 1, alreadyDone: 0 });
    const written = { ...job, counts: { ...counts, processed: 41, found: 1, creditsUsed: 1 } };
    expect(progressOf(written as unknown as Job)).toMatchObject({ processed: 1, total: 1, creditsUsed: 1 });
    // A person's run keeps the rows it found done among its figures.
    const person = { ...job, origin: undefined };
    expect(progressOf(person as unknown as Job)).toMatchObject({ processed: 40, total: 41, alreadyDone: 40 });
  });
});
