/**
 * The formulas' promises that issue 39 found broken, shown from outside: what a column of =FINDEMAIL cells leaves in
 * the document cache, which CacheService keeps at about 1,000 items ("If more than 1,000 items are written, the cache
 * stores the 900 items farthest from expiration", apps-script/reference/cache/cache), the claims and the bulk run's
 * shared figures among them.
 */
import { startWorld, url, type World } from '../../support/harness';
import { chargesByProfile } from '../bulk/helpers';
import { column, emailOf, recalculateInWaves } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A hundred cells in waves of 30 take a few seconds here; the bound is wide for a busy machine. */
jest.setTimeout(300_000);

const CELLS = 100;
const HOUR_MS = 3600 * 1000;

it('A column of single =FINDEMAIL cells, evaluated one wave after another, leaves nothing in the document cache that lives for hours', async () => {
  const profiles = Array.from({ length: CELLS }, (_, i) => url(`jc-cell-${i}`));
  world = await startWorld({
    data: [['Profile'], ...profiles.map((link) => [link])],
    rows: CELLS + 10,
    credits: 2 * CELLS,
  });
  const w = world;
  // The owner lets formulas spend more than the default daily limit (Settings tab).
  await w.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 10 * CELLS }], w.as());
  w.env.enter(
    w.ss.id,
    `B2:B${CELLS + 1}`,
    profiles.map((_, i) => [`=FINDEMAIL(A${i + 2})`]),
  );
  expect(await recalculateInWaves(w, 'B', 2, CELLS + 1)).toBe(CELLS);
  expect(column(w, `B2:B${CELLS + 1}`)).toEqual(profiles.map(emailOf));
  expect([...chargesByProfile(w).values()].filter((count) => count !== 1)).toEqual([]);
  // Every cell has its answer and nothing is under way: the cache's room is the next executions' (their claims, a
  // bulk run's shared figures), not held for hours by what the cells already did.
  const now = w.env.now();
  const entries = [...w.env.documentCache(w.ss.id).dump(now).values()];
  expect({
    itemsLivingAnHourMore: entries.filter((entry) => entry.expiresAt - now > HOUR_MS).length,
  }).toEqual({
    itemsLivingAnHourMore: 0,
  });
});
