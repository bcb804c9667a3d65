/**
 * The Watch tab's calls (src/watch/entryPoints.ts) over the test platform, no emulator: what each editor sees, a start
 * (its day the spreadsheet's), and a stop by any editor.
 */

import type { KeyCheck } from '../../src/lookup/result';
import type { Platform } from '../../src/platform/platform';
import { getWatchState, startWatch, stopWatchFromSidebar } from '../../src/watch/entryPoints';
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
    const key: KeyCheck = keyValid ? { valid: true } : { valid: false, message: 'Unknown key' };
    return creatorStarting(doc, [], {
      clock,
      triggers: { ...doc.as(CREATOR).triggers, create: () => ['t1', 't2', 't3'] },
      askServiceAboutKey: () => key,
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
