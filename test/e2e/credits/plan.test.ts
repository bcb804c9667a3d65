/**
 * The price of misses before a run: the plan carries this spreadsheet's record from the credits
 * log (lookups answered, how many found an address), read in one read of the log's outcome column, and nothing is
 * read for it when there is no log.
 */
import { predictLookup } from '../../../sandbox/profiles';
import type { RunPlan } from '../../../src/api';
import { CREDITS_SHEET } from '../../../src/core/propertyNames';
import { startWorld, url, type World } from '../../support/harness';
import { drive, start } from '../bulk/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function planOf(w: World, a1: string): Promise<{ plan: RunPlan; reads: number }> {
  w.env.select(w.ss.id, a1);
  w.env.resetCounts();
  const plan = (await w.env.run('getRunPlan', [{}], w.as())) as RunPlan;
  return { plan, reads: w.env.counts['Range.getValues'] ?? 0 };
}

test('a plan shows the share found here so far from the log, at one read; none without a log', async () => {
  const first = Array.from({ length: 12 }, (_, i) => url(i % 3 === 0 ? `pm-noemail-${i}` : `pm-one-${i}`));
  const second = Array.from({ length: 5 }, (_, i) => url(`pm-two-${i}`));
  const data = [['First', '', '', '', '', 'Second']];
  for (let i = 0; i < 12; i++) data.push([first[i], '', '', '', '', second[i] ?? '']);
  world = await startWorld({ data });

  const before = await planOf(world, 'F1:F6');
  expect(before.plan.credits).toBe(5);
  expect(before.plan.lookupRecord).toBeUndefined();

  await start(world, 'A1:A13');
  expect((await drive(world)).state).toBe('done');
  const after = await planOf(world, 'F1:F6');
  const found = first.filter((profile) => predictLookup(profile).kind === 'found').length;
  expect(found).toBe(8);
  expect(after.plan.lookupRecord).toEqual({ lookups: 12, found: 8 });
  // The record costs one read of the log's outcome column; without a log, none (the same plan, the log renamed
  // away: the results sheet's reads stay).
  const log = world.ss.sheetByName(CREDITS_SHEET);
  if (!log) throw new Error('no credits log');
  log.name = 'renamed';
  const withoutLog = await planOf(world, 'F1:F6');
  expect(withoutLog.plan.lookupRecord).toBeUndefined();
  expect(after.reads).toBe(withoutLog.reads + 1);
  log.name = CREDITS_SHEET;

  // A free plan (every profile known) carries no record: nothing to pay.
  const free = await planOf(world, 'A1:A13');
  expect(free.plan.credits).toBe(0);
  expect(free.plan.lookupRecord).toBeUndefined();
});
