/**
 * A watch's trigger runs and its stop (src/watch/run.ts) over the test platform, no emulator: the day's count in the
 * spreadsheet's time zone, and who may stop the watch (anyone; only the creator's executions delete the triggers).
 */
import type { Job } from '../../src/bulk/job';
import { JOB_PROPERTY } from '../../src/core/propertyNames';
import { runWatch, stopWatch } from '../../src/watch/run';
import { testJob } from '../support/job';
import {
  CREATOR,
  CREATOR_EMAIL,
  clockTenHoursAhead,
  EDITOR,
  EDITOR_EMAIL,
  WatchedDocument,
  watchRecord,
} from './helpers';

describe("the day's count", () => {
  // A trigger run finds another editor's bulk run under way: it counts the day, says the rows wait, and sends nothing.
  function runAt(utc: number, watch = watchRecord({ day: '2026-11-26', usedToday: 10, limit: 10 })) {
    const doc = new WatchedDocument(watch);
    doc.runUnderWay(EDITOR);
    const end = runWatch(doc.as(CREATOR, { clock: clockTenHoursAhead(utc) }));
    return { end, stored: doc.stored() };
  }

  it("goes on within the spreadsheet's day, though UTC's day is the same", () => {
    // 26 Nov 13:00 UTC is 23:00 on 26 Nov in the spreadsheet.
    const { end, stored } = runAt(Date.UTC(2026, 10, 26, 13));
    expect(end).toBe('waiting for a run');
    expect(stored).toMatchObject({ day: '2026-11-26', usedToday: 10 });
    expect(stored?.message).toContain('A run is under way in this spreadsheet');
  });

  it("starts again at the spreadsheet's midnight, though UTC's day has not changed", () => {
    // 26 Nov 15:00 UTC is 01:00 on 27 Nov in the spreadsheet.
    const { end, stored } = runAt(Date.UTC(2026, 10, 26, 15));
    expect(end).toBe('waiting for a run');
    expect(stored).toMatchObject({ day: '2026-11-27', usedToday: 0, limit: 10 });
  });
});

describe('who may stop the watch', () => {
  it('any editor: logged with who stopped it; the creator keeps their triggers until their next run deletes them', () => {
    const doc = new WatchedDocument();
    const stopped = stopWatch(
      doc.as(EDITOR, { email: EDITOR_EMAIL }),
      'stopped from the Watch tab',
      EDITOR_EMAIL,
    );
    expect(stopped).toMatchObject({ state: 'stopped', message: `Stopped by ${EDITOR_EMAIL} at 09:00.` });
    expect(doc.stored()).toEqual(stopped);
    expect(doc.log.map((row) => row[5])).toEqual([`watch stopped: stopped by ${EDITOR_EMAIL}`]);
    // Only the creator can see and delete their triggers.
    expect(doc.triggers.has(CREATOR)).toBe(true);
    expect(runWatch(doc.as(CREATOR))).toBe('not watching');
    expect(doc.triggers.has(CREATOR)).toBe(false);
    expect(doc.log).toHaveLength(1);
  });

  it('the creator: their triggers go at once', () => {
    const doc = new WatchedDocument();
    stopWatch(doc.as(CREATOR, { email: CREATOR_EMAIL }), 'stopped from the Watch tab', CREATOR_EMAIL);
    expect(doc.stored()?.state).toBe('stopped');
    expect(doc.triggers.has(CREATOR)).toBe(false);
  });

  it('the watch itself, saying why', () => {
    const doc = new WatchedDocument();
    stopWatch(doc.as(CREATOR), 'the sheet "Leads" no longer exists. Start it again in the Watch tab');
    expect(doc.stored()?.message).toBe(
      'Stopped by itself: the sheet "Leads" no longer exists. Start it again in the Watch tab.',
    );
    expect(doc.log.map((row) => [row[1], row[2], row[5]])).toEqual([
      [
        'watch',
        CREATOR_EMAIL,
        'watch stopped: the sheet "Leads" no longer exists. Start it again in the Watch tab',
      ],
    ]);
  });

  it('once: a watch already stopped is not stopped (or logged) again', () => {
    const doc = new WatchedDocument(watchRecord({ state: 'stopped', message: 'Stopped by itself: x.' }));
    expect(stopWatch(doc.as(EDITOR), 'stopped from the Watch tab', EDITOR_EMAIL)).toBeNull();
    expect(doc.stored()?.message).toBe('Stopped by itself: x.');
    expect(doc.log).toEqual([]);
  });
});

describe('a trigger run of someone other than the creator', () => {
  it('does nothing to the watch, and deletes their own leftover triggers', () => {
    const doc = new WatchedDocument();
    doc.triggers.add(EDITOR);
    const before = doc.stored();
    expect(runWatch(doc.as(EDITOR))).toBe('not the creator');
    expect(doc.stored()).toEqual(before);
    expect([...doc.triggers]).toEqual([CREATOR]);
    expect(doc.log).toEqual([]);
  });
});

describe("a trigger run that finds the watch's own run", () => {
  /** The watch's run (a job of origin 'watch', its creator's) stored as `fields` say. */
  function withWatchRun(fields: Partial<Job>): WatchedDocument {
    const doc = new WatchedDocument(watchRecord({ jobId: 'job-w', jobCredits: 0 }));
    const job = testJob('running', {
      id: 'job-w',
      origin: 'watch',
      ownerId: CREATOR,
      leaseUntil: 0,
      ...fields,
    });
    doc.properties.values.set(JOB_PROPERTY, JSON.stringify(job));
    return doc;
  }

  it("leaves it to the execution whose slice holds its lease: 'leased elsewhere', nothing changed", () => {
    const doc = withWatchRun({ state: 'running' });
    const job = JSON.parse(doc.properties.values.get(JOB_PROPERTY) ?? '{}');
    doc.properties.values.set(JOB_PROPERTY, JSON.stringify({ ...job, leaseUntil: doc.clock.now() + 60_000 }));
    const before = doc.properties.values.get(JOB_PROPERTY);
    expect(runWatch(doc.as(CREATOR))).toBe('leased elsewhere');
    expect(doc.properties.values.get(JOB_PROPERTY)).toBe(before);
    expect(doc.stored()?.state).toBe('watching');
  });

  it('cancels it when it halted for a reason that leaves the watch on, and says the next event tries again', () => {
    const doc = withWatchRun({ state: 'paused', reason: 'quota', message: 'The daily quota is used up.' });
    expect(runWatch(doc.as(CREATOR))).toBe('tries again later');
    expect(JSON.parse(doc.properties.values.get(JOB_PROPERTY) ?? '{}').state).toBe('cancelled');
    expect(doc.stored()).toMatchObject({ state: 'watching' });
    expect(doc.stored()?.message).toBe(
      'The last check met a problem (The daily quota is used up); the next change or opening tries again.',
    );
    expect(doc.triggers.has(CREATOR)).toBe(true);
  });

  it('stops the watch when the halt is one it cannot outlast (the key rejected)', () => {
    const doc = withWatchRun({
      state: 'paused',
      reason: 'key_rejected',
      message: 'The API key was rejected.',
    });
    expect(runWatch(doc.as(CREATOR))).toBe('stopped');
    expect(doc.stored()?.state).toBe('stopped');
  });
});
