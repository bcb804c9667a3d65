/**
 * The bulk run (src/bulk/start.ts, slice.ts, step.ts, window.ts) over a platform of plain objects (./world.ts):
 * rows read and written through the sheet port, the real result store over plain ports, without the emulator. What
 * it pins: every profile paid once, the person's cells never written, writes in runs of adjacent rows, and a slice
 * cut by its time budget going on where it stopped.
 */
import type { Progress } from '../../src/api';
import { cancelEnrichment, continueEnrichment, pauseEnrichment } from '../../src/bulk/controls';
import { progressOf, type WindowLease } from '../../src/bulk/job';
import { loadJob } from '../../src/bulk/jobStore';
import { seedPace } from '../../src/bulk/runPace';
import { withSlices } from '../../src/bulk/slice';
import { outputHeaders } from '../../src/core/cells';
import { MIN_ROOM_WAIT_MS } from '../../src/core/limits';
import { ANSWERS_PREFIX } from '../../src/core/propertyNames';
import { BULK_CLAIM, claimKey, putClaims } from '../../src/lookup/claims';
import { PACE_START } from '../../src/lookup/pace';
import { DocumentBusyError } from '../../src/platform/errors';
import type { Platform } from '../../src/platform/platform';
import { sheetResultStore } from '../../src/store/resultStore';
import { testJob } from '../support/job';
import { memoryCache } from '../support/platform';
import { found } from '../support/results';
import { type BulkWorld, bulkWorld, ownRows, profile, start } from './world';

/** The sidebar's slices, one after another, while the run is running (50 at most). */
function driveToEnd(platform: Platform, progress: Progress): Progress {
  let last = progress;
  for (let slice = 0; slice < 50 && last.state === 'running'; slice++) last = continueEnrichment(platform);
  return last;
}

describe('the bulk run over the platform ports, without the emulator', () => {
  test('every profile is paid once; the header, a duplicate and a cell that is not a profile are handled', () => {
    const rows = [
      ['Profile'],
      [profile('ada')],
      [profile('grace')],
      [profile('ada')],
      ['not a profile'],
      [''],
      [profile('alan')],
    ];
    const { platform, sheet, sent } = bulkWorld(rows, { row: 1, column: 1, rows: 7, columns: 1 });
    const outcome = start(platform);
    expect(outcome.started).toBe(true);
    expect(outcome.progress.state).toBe('done');
    expect(sent.map((url) => url.replace(/\/$/, '').split('/in/')[1]).sort()).toEqual([
      'ada',
      'alan',
      'grace',
    ]);
    expect(sheet.rows[0].slice(0, 3)).toEqual(['Profile', 'Email', 'Email status']);
    expect(sheet.rows[1][1]).toBe('ada@example.test');
    expect(sheet.rows[3][1]).toBe('ada@example.test');
    expect(sheet.rows[4][2]).toBe('INVALID_URL');
    expect(sheet.rows[5].slice(1).every((cell) => cell === '' || cell === undefined)).toBe(true);
    expect(sheet.rows[6][1]).toBe('alan@example.test');
    expect(loadJob(platform)?.counts.creditsUsed).toBe(3);
  });

  /**
   * A header with the add-on's titles over rows an earlier run wrote (its recorded block): a new run writes beside
   * it, in the same columns, where the cells are still the add-on's.
   */
  const titled = () => ['Profile', ...outputHeaders(false)];

  test("a row whose output cell holds the person's formula is never written, and nothing is spent on it", () => {
    const rows = [
      titled(),
      [profile('ada')],
      [profile('grace'), '=A3'],
      [profile('alan')],
      [profile('edsger')],
    ];
    const world = bulkWorld(rows, { row: 1, column: 1, rows: 5, columns: 1 });
    ownRows(world, 2, 5);
    const { platform, sheet, sent } = world;
    const outcome = start(platform);
    expect(outcome.plan?.placement.kind).toBe('reuse');
    // The row without a result sends the run over the range again (its passes); the sidebar's slices end it.
    const progress = driveToEnd(platform, outcome.progress);
    expect(progress.state).toBe('done');
    expect(progress.message).toMatch(/Some rows have no result .*their result cells hold other data/);
    expect(sent).toHaveLength(3);
    expect(sheet.rows[2][1]).toBe('=A3');
    expect(sent.some((url) => url.includes('/grace'))).toBe(false);
    expect([1, 3, 4].map((row) => sheet.rows[row][1])).toEqual([
      'ada@example.test',
      'alan@example.test',
      'edsger@example.test',
    ]);
  });

  test('a window writes its rows in runs of adjacent rows: one write per run, around a row it may not write', () => {
    const rows = [
      titled(),
      [profile('a1')],
      [profile('a2')],
      [profile('a3'), '=NOW()'],
      [profile('a4')],
      [profile('a5')],
    ];
    const world = bulkWorld(rows, { row: 1, column: 1, rows: 6, columns: 1 });
    ownRows(world, 2, 6);
    const { platform, sheet } = world;
    const writes: Array<[number, number]> = [];
    const write = sheet.write.bind(sheet);
    sheet.write = (row, column, values) => {
      writes.push([row, values.length]);
      write(row, column, values);
    };
    start(platform);
    // The header's titles (row 1), then two runs of results: rows 2-3 and 5-6.
    expect(writes).toEqual([
      [1, 1],
      [2, 2],
      [5, 2],
    ]);
    expect(sheet.rows[3][1]).toBe('=NOW()');
  });

  test('a batch lost to a connection failure: each row an ERROR kept as a lost answer, maybe charged, never sent again', () => {
    const rows = [['Profile'], [profile('ada')], [profile('grace')]];
    const world = bulkWorld(rows, { row: 1, column: 1, rows: 3, columns: 1 }, { loses: () => true });
    const { platform, sheet, sent } = world;
    const outcome = start(platform);
    expect(outcome.progress.state).toBe('done');
    expect(sent).toHaveLength(2);
    for (const row of [1, 2]) {
      expect(sheet.rows[row][2]).toBe('ERROR');
      expect(String(sheet.rows[row][4])).toMatch(
        /The answer was lost on the way: .*may have charged a credit/,
      );
      expect(String(sheet.rows[row][4])).toMatch(/To look it up again \(1 credit\)/);
    }
    expect(loadJob(platform)?.counts).toMatchObject({ creditsUsed: 0, creditsMaybeLost: 2 });
    // A run over every row again takes the kept answers as they are: nothing is sent.
    const again = start(platform);
    expect(again.plan?.credits).toBe(0);
    expect(sent).toHaveLength(2);
  });

  test('a slice out of time stops at a row and the next one goes on from there: each profile paid once', () => {
    const rows = Array.from({ length: 300 }, (_, index) => [profile(`p${index}`)]);
    // 4 s of the test clock a batch, slices of 10 s: a slice sends at most a few batches.
    const { platform, sheet, sent } = bulkWorld(
      rows,
      { row: 1, column: 1, rows: 300, columns: 1 },
      {
        lookupMs: 4_000,
        stepBudgetMs: 10_000,
      },
    );
    const started = start(platform);
    // More lookups than one batch: Start answers at once, the sidebar drives the slices.
    expect(started.progress.state).toBe('running');
    expect(sent).toHaveLength(0);
    const first = { progress: continueEnrichment(platform) };
    expect(first.progress.state).toBe('running');
    const afterFirst = loadJob(platform);
    // The rows left: the first row never leased, or the first left in a window the slice gave back.
    const leftFrom = Math.min(afterFirst?.cursor ?? 0, ...(afterFirst?.windows ?? []).map((w) => w.from));
    expect(leftFrom).toBeGreaterThan(1);
    expect(leftFrom).toBeLessThanOrEqual(300);
    expect(afterFirst?.leaseUntil).toBe(0);
    const progress = driveToEnd(platform, first.progress);
    expect(progress.state).toBe('done');
    expect(new Set(sent).size).toBe(300);
    expect(sent).toHaveLength(300);
    expect(sheet.rows.every((row) => String(row[1]).endsWith('@example.test'))).toBe(true);
  });

  test('a row whose profile another execution is looking up does not stop the slice: its answer is written once stored, unpaid here', () => {
    const rows = Array.from({ length: 150 }, (_, index) => [profile(`p${index}`)]);
    // Another execution holds p5's claim (its batch under way) and keeps its answer meanwhile.
    const cache = memoryCache();
    const held = 'https://linkedin.com/in/p5';
    putClaims(cache, [held], BULK_CLAIM, 360);
    expect(cache.get(claimKey(held))).toBe(BULK_CLAIM);
    // It answers while this slice's second batch is under way: after this slice wrote its first window.
    let batches = 0;
    const world = bulkWorld(
      rows,
      { row: 1, column: 1, rows: 150, columns: 1 },
      {
        cache,
        slices: 1,
        beforeSend: () => {
          if (++batches !== 2) return;
          const other = sheetResultStore(false, world.store.io).beginSend({
            urlKeys: [held],
            untilMs: world.clock.now() + 30_000,
            first: (sendable) => sendable,
          });
          other.record?.keep([held], [[held, found('p5@example.test')]], []);
          cache.remove(claimKey(held));
        },
      },
    );
    const { platform, sheet, sent } = world;
    expect(start(platform).progress.state).toBe('running');
    // One slice does the whole run: it went past p5's row, and came back to it once the rest was leased.
    const progress = continueEnrichment(platform);
    expect(progress.state).toBe('done');
    expect(batches).toBeGreaterThan(1);
    expect(sent).not.toContain('https://www.linkedin.com/in/p5/');
    expect(sent).toHaveLength(149);
    expect(new Set(sent).size).toBe(149);
    expect(sheet.rows[5][1]).toBe('p5@example.test');
    expect(sheet.rows.every((row) => String(row[1]).endsWith('@example.test'))).toBe(true);
  });
});

test('a row whose profile another execution answers seconds later: the slice waits for it, never leasing it again and again', () => {
  const rows = Array.from({ length: 60 }, (_, index) => [profile(`p${index}`)]);
  const cache = memoryCache();
  const held = 'https://linkedin.com/in/p5';
  putClaims(cache, [held], BULK_CLAIM, 360);
  const world = bulkWorld(rows, { row: 1, column: 1, rows: 60, columns: 1 }, { cache, slices: 1 });
  const { platform, clock, sheet, sent, lock } = world;
  // The other execution's answer is stored 8 s into the slice (the test clock moves only when the slice sleeps or sends).
  const answersAt = clock.now() + 8000;
  const sleep = clock.sleep;
  clock.sleep = (ms) => {
    sleep(ms);
    if (clock.now() < answersAt || !cache.get(claimKey(held))) return;
    const other = sheetResultStore(false, world.store.io).beginSend({
      urlKeys: [held],
      untilMs: clock.now() + 30_000,
      first: (sendable) => sendable,
    });
    other.record?.keep([held], [[held, found('p5@example.test')]], []);
    cache.remove(claimKey(held));
  };
  let holds = 0;
  const free = { ...lock };
  lock.tryWith = (work) => {
    holds++;
    return free.tryWith(work);
  };
  lock.withRetried = (work) => {
    holds++;
    return free.withRetried(work);
  };
  expect(start(platform).progress.state).toBe('running');
  const progress = continueEnrichment(platform);
  expect(progress.state).toBe('done');
  expect(sent).toHaveLength(59);
  expect(sheet.rows[5][1]).toBe('p5@example.test');
  // A hold per batch, and one per wait for the other execution (at least MIN_ROOM_WAIT_MS each): 8 s is 16 at most.
  expect(holds).toBeLessThanOrEqual(8000 / MIN_ROOM_WAIT_MS + 4);
});

describe('the money promises of a slice, each batch written between two holds of the lock', () => {
  /** 300 profiles in column A, no header; the run started (Start leaves them to the sidebar's slices). */
  function started(options: Parameters<typeof bulkWorld>[2] = {}) {
    const rows = Array.from({ length: 300 }, (_, index) => [profile(`p${index}`)]);
    const world = bulkWorld(rows, { row: 1, column: 1, rows: 300, columns: 1 }, { slices: 1, ...options });
    expect(start(world.platform).progress.state).toBe('running');
    return world;
  }
  const written = (world: BulkWorld) =>
    world.sheet.rows.filter((row) => String(row[1] ?? '').endsWith('@example.test'));

  it.each([
    ['Pause', pauseEnrichment, 'paused'],
    ['Cancel', cancelEnrichment, 'cancelled'],
  ] as const)(
    '%s pressed while a batch is at the service: that batch is written, nothing more is sent',
    (_, press, state) => {
      let world: BulkWorld | undefined;
      let pressed = 0;
      world = started({
        beforeSend: () => {
          if (pressed++ === 0) press((world as BulkWorld).platform);
        },
      });
      const progress = continueEnrichment(world.platform);
      expect(progress.state).toBe(state);
      const job = loadJob(world.platform);
      // The first batch (the run's pace, PACE_START) went out before the click; none after it.
      expect(world.sent).toHaveLength(PACE_START);
      expect(written(world)).toHaveLength(PACE_START);
      expect(job?.counts.creditsUsed).toBe(PACE_START);
      expect(job?.leaseUntil).toBe(0);
    },
  );

  it('a lock refused from the second hold on: the paid answers are kept, the window freed, each profile paid once', () => {
    let refused = false;
    const world = started({
      beforeSend: () => {
        refused = true;
      },
    });
    const { lock } = world;
    const free = { ...lock };
    lock.tryWith = (work) => (refused ? undefined : free.tryWith(work));
    lock.withRetried = (work) => {
      if (refused) throw new DocumentBusyError();
      return free.withRetried(work);
    };
    continueEnrichment(world.platform);
    // The batch's answers wait in the store, its record says it ended without writing: nothing written yet.
    expect(world.sent).toHaveLength(PACE_START);
    expect(written(world)).toHaveLength(0);
    expect([...world.store.props.keys()].some((name) => name.startsWith(ANSWERS_PREFIX))).toBe(true);
    world.lock.tryWith = free.tryWith;
    world.lock.withRetried = free.withRetried;
    // The next slices, the lock free again (and no fault more), end the run: the freed window is written from the store.
    const progress = driveToEnd(world.platform, continueEnrichment(world.platform));
    expect(progress.state).toBe('done');
    expect(world.sent).toHaveLength(300);
    expect(new Set(world.sent).size).toBe(300);
    expect(written(world)).toHaveLength(300);
    // The credits log equals what the service charged, and so does the run's count.
    expect(world.store.log).toHaveLength(300);
    expect(loadJob(world.platform)?.counts.creditsUsed).toBe(300);
  });
});

describe('withSlices: the slices the sidebar drives at once', () => {
  /** The slices a running job of rows 2..`lastRow`, its cursor at `cursor`, gets with the run's pace at `size`. */
  function slicesOf(
    size: number,
    lastRow: number,
    cursor = 2,
    windows: WindowLease[] = [],
    ceiling?: number,
  ): number | undefined {
    const { platform, clock } = bulkWorld([], { row: 1, column: 1, rows: 1, columns: 1 }, { slices: 3 });
    const job = testJob('running', {
      ownerId: 'runner-1',
      lastRow,
      cursor,
      windows,
      pace: { ...seedPace(300, clock.now(), {}), size, ...(ceiling && { ceiling, sinceThrottled: 0 }) },
    });
    return withSlices(platform, progressOf(job, { runnerId: 'runner-1', now: clock.now() }), job).slices;
  }

  it('none at work: as many as send the pace in whole fetchAlls, BULK_SLICES at most', () => {
    expect(slicesOf(PACE_START, 1000)).toBe(1);
    expect(slicesOf(250, 1000)).toBe(3);
  });

  it('none at work, at a limit the service showed: as many as the pace is kept split into', () => {
    expect(slicesOf(25, 1000, 2, [], 25)).toBe(3);
    // Too small a pace to split (SLICE_MIN_SHARE each): one.
    expect(slicesOf(6, 1000, 2, [], 6)).toBe(1);
  });

  it('never more than the windows a slice may still find', () => {
    // 100 rows left at a share of 83: two windows.
    expect(slicesOf(250, 101)).toBe(2);
    // Every row leased to one slice at work, nothing free: that one alone.
    const until = Number.MAX_SAFE_INTEGER;
    expect(slicesOf(250, 101, 102, [{ from: 2, to: 101, token: 'a', until, n: 83 }])).toBe(1);
  });

  it("someone else's run, or a run not running, gets no figure of slices", () => {
    const { platform, clock } = bulkWorld([], { row: 1, column: 1, rows: 1, columns: 1 });
    const job = testJob('running', { ownerId: 'someone else' });
    expect(
      withSlices(platform, progressOf(job, { runnerId: 'runner-1', now: clock.now() }), job).slices,
    ).toBeUndefined();
    const paused = testJob('paused', { ownerId: 'runner-1' });
    expect(
      withSlices(platform, progressOf(paused, { runnerId: 'runner-1', now: clock.now() }), paused).slices,
    ).toBeUndefined();
  });
});
