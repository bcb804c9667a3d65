/**
 * Re-checking rows that already have a result: a choice made when a run starts (never a setting that stays on);
 * that run pays again, once per distinct URL, and the next one is free again.
 */

import { OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, mismatches, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ROWS = [
  url('ada-lovelace'),
  url('alan-turing'),
  `${url('ada-lovelace')}/`,
  url('noemail-grace'),
  'not a url',
];

async function runAll(w: World, request: Record<string, unknown> = {}) {
  await start(w, 'A1:A6', request);
  return drive(w);
}

describe('re-check, chosen for one run', () => {
  it('without it a second run is free; with it every distinct URL is looked up once more', async () => {
    world = await startWorld({ data: [['Profile URL'], ...ROWS.map((row) => [row])] });
    const first = await runAll(world);
    expect(first.state).toBe('done');
    expect(world.sandbox.service.totalCharged()).toBe(3);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D5'))).toEqual([]);

    const again = await runAll(world);
    expect(again.state).toBe('done');
    expect(again.alreadyDone).toBe(4);
    expect(world.sandbox.service.totalCharged()).toBe(3);

    // A re-check sent as a setting is ignored: the run is free.
    await world.env.run(
      'saveSettings',
      [{ writeHeader: true, extraFields: false, recheck: true }],
      world.as(),
    );
    expect(world.env.userProperties(OWNER).get('PEF_SETTINGS')).not.toMatch(/recheck/);
    expect((await runAll(world)).alreadyDone).toBe(4);
    expect(world.sandbox.service.totalCharged()).toBe(3);

    const rechecked = await runAll(world, { recheck: true });
    expect(rechecked.state).toBe('done');
    // Three distinct profiles (the two spellings of ada-lovelace are one), each paid once more; the invalid row is free.
    expect(world.sandbox.service.totalCharged()).toBe(6);
    expect(Object.values(world.charges())).toEqual([2, 2, 2]);
    expect(rechecked.creditsUsed).toBe(3);
    // Still in the same four output columns: no new columns inserted by a re-check.
    expect(world.env.values(world.ss.id, 'A1:F1')[0]).toEqual([
      'Profile URL',
      'Email',
      'Email status',
      'Catch-all',
      'Note',
      '',
    ]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D5'))).toEqual([]);

    // The next run, without choosing it again, is free.
    const after = await runAll(world);
    expect(after.alreadyDone).toBe(4);
    expect(world.sandbox.service.totalCharged()).toBe(6);
  });
});
