/** The result store under pressure: results kept before sheet I/O; a full property store (first versions' results). */
import { waitFor } from '../sandbox/helpers';
import { startWorld, url, type World } from '../support/harness';
import { drive, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Old cached results (a year ago) of about `bytes` in all, as the add-on encodes them (src/store/codec.ts). */
function oldResults(bytes: number): Record<string, string> {
  const savedAt = Math.floor(Date.now() / 1000) - 365 * 86400;
  const values: Record<string, string> = {};
  const name = 'N'.repeat(7000);
  for (let i = 0; i * 7100 < bytes; i++) {
    values[`pef.r.old${String(i).padStart(11, '0')}`] = JSON.stringify([
      1,
      'f',
      name,
      '',
      savedAt + i,
      `p${i}@old.test`,
      'VALID',
      0,
      'professional',
    ]);
  }
  return values;
}

function storeBytes(w: World): number {
  return w.env.documentProperties(w.ss.id).bytes();
}

describe('result store', () => {
  it('caches charged results before touching the sheet, so a failed write costs nothing again', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => [url(`ray-${i}-oak`)]);
    world = await startWorld({
      data: [['Profile'], ...rows],
      faults: { latencyMs: 2000 },
      // A fixed size: the first window sends all 20 rows at once.
      scriptProperties: { ENRICH_BATCH_SIZE: '20' },
    });
    world.env.select(world.ss.id, 'A1:A21');
    const running = world.env.execute('enrichSelection', [], world.as());
    // While the first batch (all 20 rows, one request each) waits on the service, the user deletes almost every row.
    const service = world.sandbox.service;
    await waitFor(() => service.inFlight === 20, 10_000);
    world.ss.sheets[0].deleteRows(2, 995, world.ss.sheets);
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

  it('still saves the job when the store is full: old results make room', async () => {
    world = await startWorld({ data: [['Profile'], [url('wes-xu')], [url('yan-zo')]] });
    const store = world.env.documentProperties(world.ss.id);
    store.set(oldResults(490 * 1024));
    // Top it up with one more old result to 200 bytes short of the 500 KB limit: the job does not fit.
    const gap = 500 * 1024 - 200 - store.bytes() - 'pef.r.filler'.length;
    store.set({ 'pef.r.filler': JSON.stringify([1, 'n', 'F'.repeat(gap - 20), '', 1]).padEnd(gap, ' ') });
    expect(500 * 1024 - store.bytes()).toBeLessThan(300);
    const first = await start(world, 'A1:A3');
    const done = first.state === 'running' ? await drive(world) : first;
    expect(done.state).toBe('done');
    expect(done.found).toBe(2);
    expect(storeBytes(world)).toBeLessThanOrEqual(500 * 1024);
  });
});
