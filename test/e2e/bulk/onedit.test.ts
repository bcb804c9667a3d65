/**
 * Results follow their URL: a person edits a URL after a run; the simple trigger onEdit (AuthMode.LIMITED) clears
 * the add-on's result beside it, and only that, so the next run looks the new URL up.
 */

import { startWorld, url, type World } from '../../support/harness';
import { drive, expectedCells, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function ranWorld(): Promise<World> {
  const w = await startWorld({
    data: [
      ['Profile', '', '', '', '', 'Phone'],
      [url('amy-oak'), '', '', '', '', '555-1'],
      [url('ben-ash'), '', '', '', '', '555-2'],
      [url('cat-elm'), '', '', '', '', '555-3'],
    ],
  });
  await start(w, 'A1:A4');
  expect((await drive(w)).state).toBe('done');
  return w;
}

it('an edited URL loses its old result; the next run writes the new one; nothing else changes', async () => {
  world = await ranWorld();
  const before = world.env.values(world.ss.id, 'A1:F4');
  const edit = await world.env.edit(world.ss.id, 'A3', [[url('dan-fir')]]);
  expect(edit.ok).toBe(true);
  // The row beside the edit and the old URL's stored result read, one clear: no service call from a simple trigger.
  expect(edit.counts['UrlFetchApp.fetchAll'] ?? 0).toBe(0);
  const after = world.env.values(world.ss.id, 'A1:F4');
  expect(after[2]).toEqual([url('dan-fir'), '', '', '', '', '555-2']);
  for (const row of [0, 1, 3]) expect(after[row]).toEqual(before[row]);

  await start(world, 'A1:A4');
  expect((await drive(world)).state).toBe('done');
  expect(world.env.values(world.ss.id, 'B3:D3')[0]).toEqual(expectedCells(url('dan-fir')));
  expect(Object.keys(world.charges())).toHaveLength(4);
});

it('another spelling of the same profile keeps its result; so do edits beside no result', async () => {
  world = await ranWorld();
  const before = world.env.values(world.ss.id, 'A1:F4');
  await world.env.edit(world.ss.id, 'A2', [[`${url('AMY-OAK')}/`]]);
  expect(world.env.values(world.ss.id, 'B2:E2')).toEqual([before[1].slice(1, 5)]);
  // The Phone column and the header are the person's own: nothing is cleared beside them.
  await world.env.edit(world.ss.id, 'F3', [['555-9']]);
  await world.env.edit(world.ss.id, 'A1', [['Profiles']]);
  expect(world.env.values(world.ss.id, 'B1:E4')).toEqual(before.map((row) => row.slice(1, 5)));
});

it('a paste over several URLs clears each of their results; in AuthMode.NONE onEdit does nothing', async () => {
  world = await ranWorld();
  const none = await world.env.edit(world.ss.id, 'A4', [[url('eve-gum')]], { authMode: 'NONE' });
  expect(none.ok).toBe(true);
  expect(world.env.values(world.ss.id, 'C4')[0][0]).not.toBe('');
  await world.env.edit(world.ss.id, 'A2:A3', [[url('fay-hay')], [url('gil-ivy')]]);
  expect(world.env.values(world.ss.id, 'B2:E3')).toEqual([
    ['', '', '', ''],
    ['', '', '', ''],
  ]);
});
