/**
 * "Try 10 rows first": a run over the rows of the first 10 new profiles only, its summary with
 * the share found, then the run over the whole range prices the rest again and pays no profile twice.
 */
import { predictLookup } from '../../../sandbox/profiles';
import type { RunHistory, RunPlan } from '../../../src/api';
import { startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive, mismatches, start } from '../bulk/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function planOf(w: World, a1: string, request: Record<string, unknown> = {}): Promise<RunPlan> {
  w.env.select(w.ss.id, a1);
  return (await w.env.run('getRunPlan', [request], w.as())) as RunPlan;
}

test('a trial looks up the first 10 new profiles only; the rest is priced again and no profile is paid twice', async () => {
  // 30 profiles; among the first rows a blank, a text that is no profile, a repeated profile and a known one.
  const profiles = Array.from({ length: 30 }, (_, i) => url(i % 4 === 1 ? `tr-noemail-${i}` : `tr-p-${i}`));
  const rows: string[][] = [
    ['Profile'],
    [profiles[0]],
    [''],
    ['not a profile'],
    [profiles[0]],
    ...profiles.slice(1).map((profile) => [profile]),
  ];
  world = await startWorld({ data: rows });
  const last = rows.length;

  const whole = await planOf(world, `A1:A${last}`);
  expect(whole.credits).toBe(30);
  const trial = await planOf(world, `A1:A${last}`, { trial: true });
  // Rows 2..14: profiles 0..9 with the blank, the text and the repeat among them.
  expect(trial).toMatchObject({ credits: 10, newProfiles: 10, trialOf: 30, range: 'A2:A14' });

  await start(world, `A1:A${last}`, { trial: true });
  expect((await drive(world)).state).toBe('done');
  expect(world.sandbox.service.totalCharged()).toBe(10);
  const history = (await world.env.run('getRunHistory', [], world.as())) as RunHistory;
  // Rows found (profile 0 is on two rows of the trial).
  const found = rows
    .slice(1, 14)
    .filter(([cell]) => cell.includes('/in/') && predictLookup(cell).kind === 'found').length;
  expect(history.last).toMatchObject({ range: 'A2:A14', creditsSpent: 10, found });
  // Nothing below the trial's rows was written.
  expect(
    world.env
      .values(world.ss.id, `B15:B${last}`)
      .flat()
      .every((cell) => cell === ''),
  ).toBe(true);

  // Run the rest: the whole range again, priced for the 20 profiles left.
  const rest = await planOf(world, `A1:A${last}`);
  expect(rest).toMatchObject({ credits: 20, newProfiles: 20, alreadyDone: 11 });
  await start(world, `A1:A${last}`);
  expect((await drive(world)).state).toBe('done');
  expect(world.sandbox.service.totalCharged()).toBe(30);
  expect(chargedTwice(world)).toEqual([]);
  expect(mismatches(world.env.values(world.ss.id, `A2:D${last}`))).toEqual([]);
});
