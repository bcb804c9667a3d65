/**
 * The Watch tab's calls (src/watch/entryPoints.ts) over the test platform, no emulator: what each editor sees, a start
 * (its day the spreadsheet's), and a stop by any editor. A start failing at each step (every port call in turn
 * throws, a busy lock at a lock call) or refused by another editor's watch saved first leaves the spreadsheet holding
 * either nothing of the start (no watch, none of its triggers) or the watch with exactly the triggers that exist.
 */

import type { Platform } from '../../src/core/ports';
import { DocumentBusyError } from '../../src/core/ports';
import { WATCH_PROPERTY } from '../../src/core/propertyNames';
import { getWatchState, startWatch, stopWatchFromSidebar } from '../../src/watch/entryPoints';
import { memoryTransport, testPlatform } from '../support/platform';
import {
  CREATOR,
  CREATOR_EMAIL,
  clockTenHoursAhead,
  creatorStarting,
  EDITOR,
  EDITOR_EMAIL,
  WatchedDocument,
  watchRecord,
} from './helpers';

const CHECKED_AT = Date.UTC(2026, 10, 27, 8, 30);

describe('the Watch tab', () => {
  it("shows every editor who pays; only the creator's execution looks for the triggers", () => {
    const doc = new WatchedDocument(watchRecord({ lastCheckedAt: CHECKED_AT }));
    const editor = doc.as(EDITOR, { apiKey: 'editor-key' });
    let looked = 0;
    const present = editor.triggers.present;
    editor.triggers.present = (ids) => {
      looked++;
      return present(ids);
    };
    const theirs = getWatchState(editor);
    expect(theirs).toMatchObject({ state: 'watching', mine: false, payer: CREATOR_EMAIL, canStart: false });
    expect(theirs.status).toContain('last checked 08:30');
    expect(looked).toBe(0);
    expect(getWatchState(doc.as(CREATOR))).toMatchObject({ state: 'watching', mine: true });
    // The creator's triggers removed outside the add-on: the watch shows stopped to them.
    doc.triggers.clear();
    expect(getWatchState(doc.as(CREATOR))).toMatchObject({ state: 'stopped', triggersMissing: true });
  });

  it("counts on the spreadsheet's today: a watch not run yet today shows nothing used, and says which day", () => {
    const doc = new WatchedDocument(watchRecord({ usedToday: 4, limit: 10 }));
    expect(getWatchState(doc.as(EDITOR)).status).toContain('4 used today (27 Nov)');
    doc.clock.at = Date.UTC(2026, 10, 28, 1);
    const view = getWatchState(doc.as(EDITOR));
    expect(view).toMatchObject({ usedToday: 0 });
    expect(view.status).toContain('0 used today (28 Nov)');
  });

  it('lets any editor stop the watch, saying who did and when', () => {
    const doc = new WatchedDocument();
    doc.clock.at = Date.UTC(2026, 10, 27, 14, 5);
    const view = stopWatchFromSidebar(doc.as(EDITOR, { email: EDITOR_EMAIL, apiKey: 'editor-key' }));
    expect(view).toMatchObject({
      state: 'stopped',
      message: `Stopped by ${EDITOR_EMAIL} at 14:05.`,
      canStart: true,
    });
    expect(doc.log.map((row) => row[5])).toEqual([`watch stopped: stopped by ${EDITOR_EMAIL}`]);
  });
});

describe('starting a watch', () => {
  /**
   * An execution of the creator, their key saved, cell B1 of an empty sheet selected (a column with data: the
   * emulator's tests).
   */
  function starter(doc: WatchedDocument, { keyValid = true, clock = doc.clock } = {}): Platform {
    return creatorStarting(doc, [], {
      clock,
      triggers: { ...doc.as(CREATOR).triggers, create: () => ['t1', 't2', 't3'] },
      transport: {
        ...memoryTransport(),
        checkKey: () =>
          keyValid
            ? { status: 400, body: '{"message":"network_url is required"}' }
            : { status: 401, body: '{"message":"Unknown key"}' },
      },
    });
  }

  it("counts its first day in the spreadsheet's time zone", () => {
    const doc = new WatchedDocument(null);
    // 26 Nov 15:00 UTC is 01:00 on 27 Nov in a spreadsheet 10 hours ahead of UTC.
    const start = startWatch(starter(doc, { clock: clockTenHoursAhead(Date.UTC(2026, 10, 26, 15)) }), {
      limit: '25',
    });
    expect(start).toMatchObject({ started: true, column: 'Leads!B:B', message: 'Watching.' });
    expect(doc.stored()).toMatchObject({
      state: 'watching',
      day: '2026-11-27',
      usedToday: 0,
      limit: 25,
      sheetId: 7,
      headerText: '',
      creatorId: CREATOR,
      triggerIds: ['t1', 't2', 't3'],
    });
  });

  it('refuses while another watch runs, and when the service rejects the key: nothing stored', () => {
    const watching = new WatchedDocument();
    const before = watching.stored();
    const again = startWatch(starter(watching), { limit: 5 });
    expect(again).toMatchObject({ started: false });
    expect(again.message).toContain('is already watched, paid by creator@example.com');
    expect(watching.stored()).toEqual(before);

    const empty = new WatchedDocument(null);
    const refused = startWatch(starter(empty, { keyValid: false }), { limit: 5 });
    expect(refused.started).toBe(false);
    expect(refused.message).toContain('The service rejected your API key');
    expect(empty.stored()).toBeNull();
  });
});

/** The creator's installable triggers: ids made by `create`, gone when deleted. */
class CreatorTriggers {
  readonly alive = new Set<string>();
  private made = 0;
  /** Runs once, right after the triggers are made (another execution acting meanwhile). */
  afterCreate: () => void = () => {};

  port(): Platform['triggers'] {
    return {
      create: () => {
        const ids = ['open', 'change', 'form'].map((kind) => `${kind}-${++this.made}`);
        for (const id of ids) this.alive.add(id);
        this.afterCreate();
        return ids;
      },
      deleteMine: () => {
        const count = this.alive.size;
        this.alive.clear();
        return count;
      },
      delete: (ids) => {
        for (const id of ids) this.alive.delete(id);
      },
      present: (ids) => ids.every((id) => this.alive.has(id)),
    };
  }
}

/** The creator's execution with column B of "Leads" selected: a header and two profile URLs, none looked up yet. */
function starting(doc: WatchedDocument, triggers: CreatorTriggers): Platform {
  const rows = [
    ['Name', 'Profile URL'],
    ['Ada', 'https://www.linkedin.com/in/ada'],
    ['Bob', 'https://www.linkedin.com/in/bob'],
  ];
  return creatorStarting(doc, rows, { triggers: triggers.port() });
}

/**
 * `platform` whose port calls (members, and the objects they return) are counted; the call numbered `failAt`
 * throws: DocumentBusyError for a lock call (the lock stayed busy), else an error of the service.
 */
function failingAt(platform: Platform, failAt: number): { platform: Platform; calls: () => number } {
  let calls = 0;
  const wrap = (value: unknown, path: string): unknown => {
    if (typeof value === 'function') {
      return (...args: unknown[]) => {
        calls++;
        if (calls === failAt) {
          throw path.startsWith('lock.') ? new DocumentBusyError() : new Error(`${path} failed`);
        }
        return wrap((value as (...a: unknown[]) => unknown)(...args), path);
      };
    }
    const plain = value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map);
    if (!plain) return value;
    return new Proxy(value as object, {
      get: (target, name) => {
        const member = Reflect.get(target, name);
        if (typeof name === 'symbol') return member;
        return typeof member === 'function'
          ? wrap(member.bind(target), `${path}.${name}`)
          : wrap(member, `${path}.${name}`);
      },
    });
  };
  return { platform: wrap(platform, 'platform') as Platform, calls: () => calls };
}

/** What a start left: nothing of it, or the watch saved with exactly the triggers alive. */
function expectNothingHeldOrAllSaved(doc: WatchedDocument, triggers: CreatorTriggers): 'nothing' | 'saved' {
  const stored = doc.stored();
  if (stored === null) {
    expect([...triggers.alive]).toEqual([]);
    return 'nothing';
  }
  expect(stored).toMatchObject({ state: 'watching', creatorId: CREATOR });
  expect([...stored.triggerIds].sort()).toEqual([...triggers.alive].sort());
  return 'saved';
}

describe("a watch's start", () => {
  it('starts with its triggers saved in the watch when nothing fails', () => {
    const doc = new WatchedDocument(null);
    const triggers = new CreatorTriggers();
    const start = startWatch(starting(doc, triggers), { limit: 10 });
    expect(start).toMatchObject({ started: true, column: 'Leads!B:B' });
    expect(start.message).toContain('2 rows of the column have no result yet');
    expect(triggers.alive.size).toBe(3);
    expect(expectNothingHeldOrAllSaved(doc, triggers)).toBe('saved');
  });

  it('counts as waiting only the rows it will look up: a cell that is not a profile URL is not waiting', () => {
    const rows = [
      ['Name', 'Profile URL'],
      ['Ada', 'https://www.linkedin.com/in/ada'],
      ['Bob', 'not a url'],
    ];
    const start = startWatch(creatorStarting(new WatchedDocument(null), rows, {}), { limit: 10 });
    expect(start.message).toContain('Watching. 1 row of the column has no result yet: it is looked up');
  });

  it('leaves no trigger without its watch when any step of the start throws', () => {
    const whole = failingAt(starting(new WatchedDocument(null), new CreatorTriggers()), 0);
    startWatch(whole.platform, { limit: 10 });
    const steps = whole.calls();
    expect(steps).toBeGreaterThan(10);
    expect(steps).toBeLessThan(500);
    let failedWithTriggersMade = 0;
    const ends = new Set<string>();
    for (let failAt = 1; failAt <= steps; failAt++) {
      const doc = new WatchedDocument(null);
      const triggers = new CreatorTriggers();
      let made = false;
      triggers.afterCreate = () => {
        made = true;
      };
      const { platform } = failingAt(starting(doc, triggers), failAt);
      let threw = false;
      try {
        startWatch(platform, { limit: 10 });
      } catch {
        threw = true;
      }
      const end = expectNothingHeldOrAllSaved(doc, triggers);
      ends.add(end);
      if (threw && made && end === 'nothing') failedWithTriggersMade++;
    }
    // Failures after the triggers were made: the lock call (busy), the watch read and the save under it.
    expect(failedWithTriggersMade).toBeGreaterThanOrEqual(3);
    expect(ends).toEqual(new Set(['nothing', 'saved']));
  });

  it("deletes its triggers when another editor's watch was saved first", () => {
    const doc = new WatchedDocument(null);
    const triggers = new CreatorTriggers();
    const theirs = watchRecord({ creatorId: EDITOR, creatorName: 'editor@example.com' });
    triggers.afterCreate = () => doc.properties.values.set(WATCH_PROPERTY, JSON.stringify(theirs));
    const start = startWatch(starting(doc, triggers), { limit: 10 });
    expect(start).toMatchObject({ started: false });
    expect(start.message).toBe('Another editor started a watch a moment ago: see it in this tab.');
    expect([...triggers.alive]).toEqual([]);
    expect(doc.stored()).toEqual(theirs);
  });

  it('deletes its triggers when the lock stays busy', () => {
    const doc = new WatchedDocument(null);
    const triggers = new CreatorTriggers();
    let made = 0;
    triggers.afterCreate = () => {
      made++;
    };
    const platform = starting(doc, triggers);
    const busy = testPlatform({
      ...Object.fromEntries(Object.keys(platform).map((name) => [name, platform[name as keyof Platform]])),
      lock: {
        ...platform.lock,
        with: () => {
          throw new DocumentBusyError();
        },
      },
    });
    expect(() => startWatch(busy, { limit: 10 })).toThrow(DocumentBusyError);
    expect(made).toBe(1);
    expect([...triggers.alive]).toEqual([]);
    expect(doc.stored()).toBeNull();
  });
});
