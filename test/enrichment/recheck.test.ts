/** The "re-check rows that already have a result" setting: a second run pays again, once per distinct URL. */
import { startWorld, url, type World } from '../support/harness';
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

async function runAll(w: World) {
  await start(w, 'A1:A6');
  return drive(w);
}

describe('re-check setting', () => {
  it('without it a second run is free; with it every distinct URL is looked up once more', async () => {
    world = await startWorld({ data: [['Profile URL'], ...ROWS.map((row) => [row])] });
    const first = await runAll(world);
    expect(first.state).toBe('done');
    expect(world.sandbox.service.totalCharged()).toBe(3);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D5'))).toEqual([]);

    const again = await runAll(world);
    expect(again.state).toBe('done');
    expect(again.skipped).toBe(4);
    expect(world.sandbox.service.totalCharged()).toBe(3);

    await world.env.run(
      'saveSettings',
      [{ writeHeader: true, extraFields: false, recheck: true }],
      world.as(),
    );
    const rechecked = await runAll(world);
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
  });
});
