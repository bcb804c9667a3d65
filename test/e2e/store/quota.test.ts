/**
 * Apps Script's PropertiesService quotas, in each form reported (the daily "Service invoked too many times for one
 * day: graphite property writes.", the short-time "… in a short time: properties. …"), are a clear cell message or
 * a paused run (reason 'quota'), never a crash or a silent skip; and nothing is paid twice when the quota lifts.
 */

import { startWorld, url, type World } from '../../support/harness';
import { type ProgressView, start } from '../bulk/helpers';
import { cellError } from '../formula/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

test('a formula past the quota says so in its cell and sends nothing', async () => {
  world = await startWorld({ data: [[url('quota-one')]], env: { propertiesDailyQuota: 0 } });
  world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
  await world.env.recalculate(world.ss.id);
  expect(world.env.values(world.ss.id, 'B1')[0][0]).toBe('#ERROR!');
  expect(cellError(world, 'B1')).toMatch(/daily limit of property reads and writes.*Nothing was charged/);
  expect(world.sandbox.service.ledger()).toHaveLength(0);
});

test('a bulk run past the quota pauses with reason quota; after the reset it finishes, each profile paid once', async () => {
  const rows = Array.from({ length: 120 }, (_, i) => [url(`quota-row-${i}`)]);
  world = await startWorld({
    data: [['Profile'], ...rows],
    scriptProperties: { ENRICH_BATCH_SIZE: '10' },
    // Enough for the plan, the start and a few slices, not for the whole run in one day.
    env: { propertiesDailyQuota: 90 },
  });
  // 120 new profiles: above the 100-credit threshold, so the person confirms the price first.
  let progress = await start(world, 'A1:A121');
  const seen: ProgressView[] = [progress];
  for (let i = 0; i < 40 && progress.state === 'running'; i++) {
    const result = await world.env.execute('continueEnrichment', [], world.as());
    expect(result.ok).toBe(true);
    progress = result.value as ProgressView;
    seen.push(progress);
  }
  expect(progress.state).toBe('paused');
  expect(progress.reason).toBe('quota');
  expect(progress.message).toMatch(/daily limit of property reads and writes/);
  // Asked again the same day: the same clear answer, no crash.
  const again = await world.env.execute('continueEnrichment', [], world.as());
  expect(again.ok).toBe(true);
  expect((again.value as ProgressView).reason).toBe('quota');
  const chargedBefore = world.sandbox.service.totalCharged();
  expect(chargedBefore).toBeGreaterThan(0);
  expect(chargedBefore).toBeLessThan(120);
  // A new day: Resume, and the run finishes without paying again for what was paid.
  // (The slice that met the quota could not save its state: its lease, 6 minutes, ends long before the reset.)
  world.env.advanceClock(24 * 3600_000 + 1000);
  progress = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
  for (let i = 0; i < 40 && progress.state === 'running'; i++)
    progress = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
  expect(progress.state).toBe('done');
  expect(Object.keys(world.charges())).toHaveLength(120);
  expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
}, 60_000);

test('a bulk run refused for too many property calls in a short time pauses with words that say so, and goes on after', async () => {
  const rows = Array.from({ length: 30 }, (_, i) => [url(`burst-row-${i}`)]);
  world = await startWorld({ data: [['Profile'], ...rows], scriptProperties: { ENRICH_BATCH_SIZE: '10' } });
  let progress = await start(world, 'A1:A31');
  // From now on Apps Script refuses past 3 property calls a second (its reported short-time limit).
  world.env.propertiesRateLimit = { calls: 3, windowMs: 1000 };
  const result = await world.env.execute('continueEnrichment', [], world.as());
  expect(result.ok).toBe(true);
  progress = result.value as ProgressView;
  expect(progress.state).toBe('paused');
  expect(progress.reason).toBe('quota');
  expect(progress.message).toMatch(/too many in a short time\)\. Nothing was charged; try again in a minute/);
  world.env.propertiesRateLimit = undefined;
  world.env.advanceClock(60_000);
  progress = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
  for (let i = 0; i < 40 && progress.state === 'running'; i++)
    progress = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
  expect(progress.state).toBe('done');
  expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
});
