/**
 * The watch's record and words (src/watch/watch.ts), pure: the daily limit counted per day, what a run's credits
 * add to it, what each editor sees, and the notes the credits log gets.
 */
import { stableHash } from '../../src/core/hash';
import { MAX_WATCH_LIMIT } from '../../src/core/limits';
import {
  countJobCredits,
  onDay,
  parseLimit,
  remainingToday,
  watchNoteRow,
  watchView,
} from '../../src/watch/watch';
import { CREATOR, CREATOR_EMAIL, EDITOR, watchRecord } from './helpers';

describe('the daily limit', () => {
  it('is a whole number of credits from 1 to the maximum, typed or given', () => {
    expect(parseLimit(' 25 ')).toBe(25);
    expect(parseLimit(MAX_WATCH_LIMIT)).toBe(MAX_WATCH_LIMIT);
    for (const wrong of [0, -3, 2.5, '', 'ten', MAX_WATCH_LIMIT + 1, null, undefined]) {
      expect(parseLimit(wrong)).toEqual({ error: expect.stringContaining('whole number from 1 to 100,000') });
    }
  });

  it('counts again from 0 on a new day, and not within the same day', () => {
    const spent = watchRecord({ day: '2026-11-27', usedToday: 10, limit: 10 });
    expect(remainingToday(spent)).toBe(0);
    expect(onDay(spent, '2026-11-27')).toBe(spent);
    const tomorrow = onDay(spent, '2026-11-28');
    expect(tomorrow).toMatchObject({ day: '2026-11-28', usedToday: 0, limit: 10 });
    expect(remainingToday(tomorrow)).toBe(10);
  });

  it('never reads as less than nothing left', () => {
    expect(remainingToday(watchRecord({ limit: 10, usedToday: 13 }))).toBe(0);
    expect(remainingToday(watchRecord({ limit: 10, usedToday: 4 }))).toBe(6);
  });

  it("adds what each slice of a run spent once, whatever the run's totals so far", () => {
    let watch = watchRecord({ usedToday: 4 });
    // The run's totals after each slice: 3, 3 (nothing new), 5.
    for (const total of [3, 3, 5]) watch = countJobCredits(watch, 'job-1', total);
    expect(watch).toMatchObject({ usedToday: 9, jobId: 'job-1', jobCredits: 5 });
    // The next run starts its own total: all of it is new.
    watch = countJobCredits(watch, 'job-2', 2);
    expect(watch).toMatchObject({ usedToday: 11, jobId: 'job-2', jobCredits: 2 });
    // A total that reads lower (a slice's figure corrected) takes nothing back.
    expect(countJobCredits(watch, 'job-2', 1).usedToday).toBe(11);
  });
});

describe("each editor's view", () => {
  const viewer = (runnerId: string | null, hasKey = true) => ({ runnerId, hasKey });

  it('tells every editor who pays and how much is used; only the creator reads "(you)"', () => {
    const watch = watchRecord({ usedToday: 4, limit: 10 });
    const mine = watchView(watch, viewer(CREATOR), { lastChecked: '09:12' });
    const theirs = watchView(watch, viewer(EDITOR), { lastChecked: '09:12' });
    expect(mine).toMatchObject({ state: 'watching', mine: true, payer: CREATOR_EMAIL, canStart: false });
    expect(mine.status).toBe(
      `Watching Leads!B:B for new rows — paid by ${CREATOR_EMAIL} (you), up to 10 credits a day, 4 used today (27 Nov), last checked 09:12.`,
    );
    expect(theirs).toMatchObject({ state: 'watching', mine: false, payer: CREATOR_EMAIL, usedToday: 4 });
    expect(theirs.status).not.toContain('(you)');
    expect(theirs.limitReached).toBeUndefined();
  });

  it("says the day's limit is reached once the credits used reach it", () => {
    const view = watchView(watchRecord({ usedToday: 10, limit: 10 }), viewer(EDITOR), {});
    expect(view.limitReached).toBe(true);
    expect(view.status).toContain('10 used today (27 Nov), not checked yet');
  });

  it('lets any editor with a key start again once it stopped; none while it watches', () => {
    const stopped = watchRecord({ state: 'stopped' });
    expect(watchView(stopped, viewer(EDITOR), {}).canStart).toBe(true);
    expect(watchView(stopped, viewer(EDITOR, false), {}).canStart).toBe(false);
    expect(watchView(null, viewer(EDITOR), {})).toMatchObject({ state: 'none', canStart: true });
    expect(watchView(watchRecord(), viewer(EDITOR), {}).canStart).toBe(false);
  });

  it('shows a watch whose triggers were removed outside the add-on as stopped', () => {
    const view = watchView(watchRecord(), viewer(CREATOR), {}, true);
    expect(view).toMatchObject({ state: 'stopped', triggersMissing: true });
    expect(view.status).toContain('Stop it here, then start it again.');
  });
});

describe('the notes in the credits log', () => {
  it('are rows of source "watch" with no profile: the payer, not a charge', () => {
    const at = Date.UTC(2026, 10, 27, 9, 30);
    const row = watchNoteRow(watchRecord(), 'watch stopped: stopped by someone', at);
    expect(row).toEqual([
      '2026-11-27T09:30:00Z',
      'watch',
      CREATOR_EMAIL,
      stableHash(CREATOR).slice(0, 8),
      '',
      'watch stopped: stopped by someone',
      "watch · 'Leads'!B:B",
    ]);
  });
});
