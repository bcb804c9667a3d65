import type { RunSummary } from '../../src/api';
import { kindOfOutcome, kindOfStatus } from '../../src/bulk/outcomes';
import { addToHistory } from '../../src/bulk/runHistory';
import { HISTORY_LENGTH } from '../../src/core/limits';
import { durationText } from '../../src/core/runWords';
import { countText, withoutStop } from '../../src/core/text';
import {
  capMessage,
  DEFAULT_FORMULA_CAP_SETTING,
  parseCapSetting,
  parseSpend,
  roomLeft,
  spendValue,
} from '../../src/formula/dailyLimit';

/** The day of a time in UTC, and in a spreadsheet 10 hours ahead of it. */
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayTenHoursAhead = (ms: number) => utcDay(ms + 10 * 3600 * 1000);

describe('run summary: counters that do not overlap', () => {
  it('every written status is in exactly one kind; user text is in none', () => {
    expect(
      [
        ['a@acme.test', 'VALID'],
        ['', 'NOT_FOUND'],
        ['', 'UNPROCESSABLE'],
        ['', 'INVALID_URL'],
        ['', 'ERROR'],
        ['', ''],
        ['Acme', 'YES'],
      ].map(([email, status]) => kindOfStatus(status, email)),
    ).toEqual(['found', 'noAddress', 'unprocessable', 'notProfile', 'error', null, null]);
  });

  it('an outcome is of the kind its written status is', () => {
    expect([
      kindOfOutcome({ kind: 'not_found', profile: {} }),
      kindOfOutcome({ kind: 'invalid', reason: 'r' }),
      kindOfOutcome({
        kind: 'error',
        error: 'bad_request',
        message: 'm',
        retryable: false,
        effect: 'continue',
      }),
      kindOfOutcome({
        kind: 'error',
        error: 'server_error',
        message: 'm',
        retryable: true,
        effect: 'continue',
      }),
    ]).toEqual(['noAddress', 'notProfile', 'notProfile', 'error']);
  });

  it('keeps the last runs, newest first, each once', () => {
    const entry = (id: string) => ({ id }) as RunSummary;
    let history: RunSummary[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) history = addToHistory(history, entry(id), utcDay);
    expect(history.map((h) => h.id)).toEqual(['f', 'e', 'd', 'c', 'b'].slice(0, HISTORY_LENGTH));
    expect(addToHistory(history, entry('d'), utcDay).map((h) => h.id)).toEqual(['d', 'f', 'e', 'c', 'b']);
  });

  it("after ten watch runs the person's own last runs are all there, and the watch is one line of the day", () => {
    const DAY = 24 * 3600 * 1000;
    const at = Date.UTC(2026, 10, 27, 9);
    const run = (id: string, endedAt: number, watch = false): RunSummary =>
      ({
        id,
        endedAt,
        startedAt: endedAt - 1000,
        durationMs: 1000,
        found: 1,
        noAddress: 1,
        unprocessable: 0,
        notProfile: 0,
        error: 0,
        alreadyDone: 7,
        creditsSpent: 2,
        creditsMaybeLost: 0,
        lookupsFound: 1,
        ...(watch ? { origin: 'watch', runs: 1 } : {}),
      }) as RunSummary;
    let history: RunSummary[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e']) history = addToHistory(history, run(id, at), utcDay);
    for (let n = 0; n < 10; n++) history = addToHistory(history, run(`w${n}`, at + n * 60_000, true), utcDay);
    expect(history.map((h) => h.id)).toEqual(['w9', 'e', 'd', 'c', 'b', 'a']);
    expect(history[0]).toMatchObject({
      runs: 10,
      found: 10,
      noAddress: 10,
      creditsSpent: 20,
      lookupsFound: 10,
    });
    expect(history[0]).toMatchObject({ alreadyDone: 0, startedAt: at - 1000, endedAt: at + 9 * 60_000 });
    // A person's run comes first and pushes out their oldest; the next day the watch starts a new line.
    history = addToHistory(history, run('f', at + DAY), utcDay);
    history = addToHistory(history, run('w-next', at + DAY, true), utcDay);
    expect(history.map((h) => h.id)).toEqual(['w-next', 'f', 'e', 'd', 'c', 'b']);
    expect(history[0]).toMatchObject({ runs: 1, creditsSpent: 2 });

    // The watch's day is the spreadsheet's: 13:00 and 15:00 UTC are one UTC day, two days 10 hours ahead of it.
    const evening = Date.UTC(2026, 10, 28, 13);
    const twoRuns = (dayOf: (ms: number) => string) =>
      addToHistory(
        addToHistory([], run('w-1', evening, true), dayOf),
        run('w-2', evening + 2 * 3600 * 1000, true),
        dayOf,
      );
    expect(twoRuns(utcDay)[0]).toMatchObject({ id: 'w-2', runs: 2 });
    expect(twoRuns(dayTenHoursAhead)[0]).toMatchObject({ id: 'w-2', runs: 1 });
  });

  it('says how long a run took', () => {
    expect([0, 12_400, 63_000, 7_380_000].map(durationText)).toEqual([
      '0 s',
      '12 s',
      '1 min 3 s',
      '2 h 3 min',
    ]);
  });
});

describe('messages', () => {
  it('say "1 credit" and end with one full stop', () => {
    expect(countText(1, 'credit')).toBe('1 credit');
    expect(countText(0, 'credit')).toBe('0 credits');
    expect(`Paused after an unexpected error: ${withoutStop('Boom.')}. Resume to retry.`).not.toMatch(/\.\./);
  });
});

describe('formula cap', () => {
  const day = '2024-05-01';

  it('leaves room up to the cap, and gives back what was not charged, never below zero', () => {
    const policy = { enabled: true, dailyCap: 10 };
    expect(roomLeft({ day, used: 0 }, policy)).toBe(10);
    expect(roomLeft({ day, used: 7 }, policy)).toBe(3);
    expect(roomLeft({ day, used: 12 }, policy)).toBe(0);
    expect(parseSpend(spendValue({ day, used: 10 }, -2), day)).toEqual({ day, used: 8 });
    expect(parseSpend(spendValue({ day, used: 1 }, -5), day)).toEqual({ day, used: 0 });
  });

  it('turned off, there is no room; a new day starts from zero', () => {
    expect(roomLeft({ day, used: 0 }, { enabled: false, dailyCap: 10 })).toBe(0);
    expect(parseSpend(JSON.stringify({ day: '2024-04-30', used: 9 }), day)).toEqual({ day, used: 0 });
    expect(parseSpend(JSON.stringify({ day, used: 9 }), day)).toEqual({ day, used: 9 });
    expect(parseSpend('not json', day)).toEqual({ day, used: 0 });
  });

  it('checks the policy the sidebar sends', () => {
    expect(parseCapSetting({})).toEqual(DEFAULT_FORMULA_CAP_SETTING);
    expect(parseCapSetting({ enabled: false, dailyCap: 0 })).toEqual({ enabled: false, dailyCap: 0 });
    expect(() => parseCapSetting({ dailyCap: -1 })).toThrow(/whole number/);
    expect(() => parseCapSetting({ dailyCap: 2.5 })).toThrow(/whole number/);
  });

  it('tells why a cell spent nothing', () => {
    expect(capMessage({ enabled: true, dailyCap: 1 })).toMatch(/\(1 credit today; no credit spent\)/);
    expect(capMessage({ enabled: false, dailyCap: 1 })).toMatch(/turned off/);
  });
});
