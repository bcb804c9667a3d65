/**
 * Every paid result kept for the life of the spreadsheet (the hidden results
 * sheet, 100,000 profiles and more), cheap lookups at that size, the formulas' buffer moved into the sheet by the
 * next writing execution, property calls per cached evaluation.
 */

import { propertyCalls, spreadsheetCalls } from '../../../emulator';
import { ANSWERS_PREFIX, RESULTS_SHEET } from '../../../src/core/propertyNames';
import { encodeResult } from '../../../src/store/codec';
import { startWorld, url, type World } from '../../support/harness';
import { column, emailOf, fillDown } from '../formula/helpers';
import {
  answersWaiting,
  found,
  keyOf,
  propertyNames,
  seedResultsSheet,
  sheetResults,
  storedHash,
} from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const seededUrl = (i: number) => url(`kept-${i}-profile`);

describe('the results sheet', () => {
  it('keeps 100,000 paid results: a formula over a few of them pays nothing and reads only their rows', async () => {
    const picked = [7, 12_345, 50_000, 77_777, 99_999];
    world = await startWorld({ data: picked.map((i) => [seededUrl(i)]) });
    const seeded: Array<[string, ReturnType<typeof found>]> = [];
    for (let i = 0; i < 100_000; i++) seeded.push([seededUrl(i), found(`kept${i}@seed.test`)]);
    seedResultsSheet(world, seeded);
    fillDown(world, 'B', 'A', 1, 5);
    world.env.enter(world.ss.id, 'C1', [['=FINDEMAIL(A1:A5)']]);
    // The sidebar was open once: it read the script properties and left their copy in the script cache.
    await world.env.run('getSidebarState', [], world.as());
    const report = await world.env.recalculate(world.ss.id);
    expect(report.results.every((r) => r.ok)).toBe(true);
    const expected = picked.map((i) => `kept${i}@seed.test`);
    expect(column(world, 'B1:B5')).toEqual(expected);
    expect(column(world, 'C1:C5')).toEqual(expected);
    expect(world.sandbox.service.totalCharged()).toBe(0);
    for (const result of report.results) {
      // One property call, the configuration (script properties): the results from the sheet alone.
      expect(propertyCalls(result.counts)).toBe(1);
      // The log and one bucket row per distinct URL (each a getRange and a getValues), and the spreadsheet.
      const urls = result.fn === 'FINDEMAIL' && (result.counts['Range.getValues'] ?? 0);
      expect(urls).toBeLessThanOrEqual(1 + 5);
      expect(spreadsheetCalls(result.counts)).toBeLessThanOrEqual(2 * (1 + 5) + 1);
    }
  }, 60_000);

  it('a formula pays once; its answer waits in its batch, then the next writing execution folds it into the sheet', async () => {
    const fresh = url('new-person-one');
    world = await startWorld({ data: [[fresh]] });
    world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
    await world.env.recalculate(world.ss.id);
    expect(column(world, 'B1:B1')).toEqual([emailOf(fresh)]);
    expect(answersWaiting(world)).toEqual([keyOf(fresh)]);
    // Evaluated again before any writing execution: from the buffer, free.
    world.env.documentCache(world.ss.id).entries.clear();
    const again = await world.env.recalculate(world.ss.id);
    expect(column(world, 'B1:B1')).toEqual([emailOf(fresh)]);
    // Two property calls: the configuration and the buffer.
    expect(propertyCalls(again.results[0].counts)).toBe(2);
    // The sidebar opens (a writing execution): the buffer moves into the hidden sheet.
    await world.env.run('getSidebarState', [], world.as());
    expect(answersWaiting(world)).toEqual([]);
    expect(sheetResults(world).has(storedHash(fresh))).toBe(true);
    // The user's sheet stayed the active one.
    expect(world.ss.activeSheet().name).not.toBe(RESULTS_SHEET);
    const cached = await world.env.recalculate(world.ss.id);
    expect(column(world, 'B1:B1')).toEqual([emailOf(fresh)]);
    // A cached evaluation in the sheet: the configuration's property call only.
    expect(propertyCalls(cached.results[0].counts)).toBe(1);
    expect(world.sandbox.service.totalCharged()).toBe(1);
  });

  it('a full buffer: formulas send nothing new and say why, until a writing execution saves it', async () => {
    const fresh = url('new-person-two');
    world = await startWorld({ data: [[fresh]] });
    // 260 KB of answers paid by formulas and not yet saved (over the 250 KB budget), 20 to a property.
    const props = world.env.documentProperties(world.ss.id);
    const waiting: Record<string, string> = {};
    for (let part = 0; part < 65; part++) {
      const r = Array.from({ length: 20 }, (_, i) => [
        keyOf(url(`waiting-${part * 20 + i}`)),
        encodeResult(
          { ...found(`w${part * 20 + i}@wait.test`), profile: { name: 'N'.repeat(150) } },
          Date.now(),
        ),
      ]);
      waiting[`${ANSWERS_PREFIX}${String(part).padStart(14, '0')}`] = JSON.stringify({
        t: Date.now(),
        r,
        b: 1,
      });
    }
    props.set(waiting);
    expect(props.bytes()).toBeGreaterThan(250 * 1024);
    world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
    await world.env.recalculate(world.ss.id);
    expect(String(column(world, 'B1:B1')[0])).toMatch(/no credit spent.*wait to be saved.*Settings/i);
    expect(world.sandbox.service.totalCharged()).toBe(0);
    await world.env.run('getSidebarState', [], world.as());
    expect(propertyNames(world, ANSWERS_PREFIX)).toEqual([]);
    expect(sheetResults(world).size).toBe(1300);
    await world.env.recalculate(world.ss.id);
    expect(column(world, 'B1:B1')).toEqual([emailOf(fresh)]);
    expect(world.sandbox.service.totalCharged()).toBe(1);
    expect(keyOf(fresh)).toContain('new-person-two');
  });
});
