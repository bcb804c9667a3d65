/** The result store under pressure: results kept before sheet I/O. */

import { waitFor } from '../../sandbox/helpers';
import { startWorld, url, type World } from '../../support/harness';
import { drive, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('result store', () => {
  it('caches charged results before touching the sheet, so a failed write costs nothing again', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => [url(`ray-${i}-oak`)]);
    world = await startWorld({
      data: [['Profile'], ...rows],
      // A fixed size: the first window sends all 20 rows at once.
      scriptProperties: { ENRICH_BATCH_SIZE: '20' },
    });
    world.env.select(world.ss.id, 'A1:A21');
    const service = world.sandbox.service;
    const release = service.hold();
    const running = world.env.execute('enrichSelection', [], world.as());
    // While the first batch (all 20 rows, one request each) waits on the service, the user deletes almost every row.
    try {
      await waitFor(() => service.held === 20, 10_000);
      world.ss.sheets[0].deleteRows(2, 995, world.ss.sheets);
    } finally {
      release();
    }
    const slice = (await running).value as ProgressView;
    expect(slice.state).toBe('paused');
    expect(slice.message).toMatch(/unexpected error/);
    const charged = world.sandbox.service.totalCharged();
    expect(charged).toBe(20);
    expect(slice.creditsUsed).toBe(20);
    // The user cancels, puts the rows back and starts again: every result comes from the cache.
    await world.env.run('cancelEnrichment', [], world.as());
    world.ss.sheets[0].insertRows(2, 100, world.ss.sheets);
    world.env.enter(world.ss.id, 'A1:A21', [['Profile'], ...rows]);
    await start(world, 'A1:A21');
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.found).toBe(20);
    expect(world.sandbox.service.totalCharged()).toBe(20);
  });
});
