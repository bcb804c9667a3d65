/**
 * A watch never buys a row again on its own: a row whose paid answer it could not use (a 200 that breaks the
 * contract) waits for a person's Retry, and the watch's daily limit counts what the service charged.
 */

import { ODD_SLUGS } from '../../../sandbox/profiles';
import type { CreditsSummary, WatchStart, WatchView } from '../../../src/api';
import { OWNER, startWorld, url, type World } from '../../support/harness';
import { lookups } from '../formula/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const charged = (w: World) => lookups(w).filter((entry) => entry.charged === 1).length;

it('a watch (limit 5) with a row answered {} and three rows typed one at a time charges each profile once, and its tab, the log and the ledger agree', async () => {
  world = await startWorld({ data: [['Profile URL'], [url(`${ODD_SLUGS.empty200}ann-lee`)]] });
  world.env.select(world.ss.id, 'A1');
  const started = (await world.env.run('startWatch', [{ limit: 5 }], world.as())) as WatchStart;
  expect(started.started).toBe(true);
  // The first check answers the waiting row: ERROR, its credit spent.
  await world.env.open(world.ss.id, { user: OWNER });
  expect(world.env.values(world.ss.id, 'C2')[0][0]).toBe('ERROR');
  for (const [row, name] of [
    [3, 'bea-moss'],
    [4, 'cal-nye'],
    [5, 'dot-orr'],
  ] as const) {
    await world.env.change(world.ss.id, `A${row}`, [[url(name)]]);
  }
  // An edit elsewhere and an opening: six events in all.
  await world.env.change(world.ss.id, 'H1', [['notes']]);
  await world.env.open(world.ss.id, { user: OWNER });

  const charges = world.charges();
  expect(charged(world)).toBeLessThanOrEqual(5);
  expect(charges[url(`${ODD_SLUGS.empty200}ann-lee`).replace('www.', '')]).toBe(1);
  expect(Object.values(charges).every((n) => n === 1)).toBe(true);
  expect(world.env.values(world.ss.id, 'C2:C5').map((row) => row[0] !== '')).toEqual([
    true,
    true,
    true,
    true,
  ]);

  const view = (await world.env.run('getWatchState', [], world.as())) as WatchView;
  const log = (await world.env.run('getCreditsSummary', [], world.as())) as CreditsSummary;
  expect(view.usedToday).toBe(charged(world));
  expect(log.today + log.lostToday).toBe(charged(world));
  expect(view.status).toContain(`${charged(world)} used today`);
});
