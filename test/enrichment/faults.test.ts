/** Bulk enrichment faults: 402 and 401 then resume, the daily UrlFetch quota, cancel racing a slice, triggers. */

import { waitFor } from '../sandbox/helpers';
import { API_KEY_PROPERTY, ORG, OWNER_KEY, startWorld, url, type World } from '../support/harness';
import { chargedTwice, drive, mismatches, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function urls(count: number, prefix: string): string[][] {
  // Every 10th row repeats an earlier URL in another form (http, www, trailing slash): same profile.
  return Array.from({ length: count }, (_, i) =>
    i % 10 === 9 ? [`http://WWW.network.com/in/${prefix}-${i - 5}/`] : [url(`${prefix}-${i}`)],
  );
}

/** Starts `count` worker threads and leaves them idle, so a later execution does not wait for one to start. */
async function warmWorkers(w: World, count: number): Promise<void> {
  const runs = Array.from({ length: count }, () => w.env.run('getEnrichmentProgress', [], w.as()));
  await Promise.all(runs);
}

describe('bulk enrichment faults', () => {
  it('pauses on 402 in the middle of 300 rows and, after a top-up, charges every distinct URL exactly once', async () => {
    world = await startWorld({
      credits: 120,
      data: [['Profile'], ...urls(300, 'pat-lee')],
      scriptProperties: { ENRICH_BATCH_SIZE: '25' },
    });
    await start(world, 'A1:A301');
    const paused = await drive(world);
    expect(paused.state).toBe('paused');
    expect(paused.message).toMatch(/credits/i);
    expect(paused.creditsUsed).toBe(120);
    // Rows not processed stay empty, and nothing is written past the first row without a result.
    const mid = world.env.values(world.ss.id, 'A2:D301');
    const firstEmpty = mid.findIndex((row) => row[2] === '');
    expect(firstEmpty).toBeGreaterThan(0);
    expect(mid.slice(firstEmpty).every((row) => row[2] === '')).toBe(true);
    // Resume without credits: still paused, nothing charged.
    const again = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(again.state).toBe('paused');
    world.sandbox.service.addCredits(ORG, 500);
    const resumed = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(['running', 'done']).toContain(resumed.state);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(270);
    expect(done.creditsUsed).toBe(270);
    expect(done.processed).toBe(300);
    expect(done.found).toBe(300);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D301'))).toEqual([]);
  });

  it('stops on a wrong key (401) and continues after the right key is saved', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(40, 'kim-ray')] });
    world.env.userProperties('owner@example.com').set({ [API_KEY_PROPERTY]: 'wrong-key-000000000000' });
    await start(world, 'A1:A41');
    const stopped = await drive(world);
    expect(stopped.state).toBe('stopped');
    expect(stopped.message).toMatch(/Settings/);
    expect(stopped.message).not.toContain('wrong-key');
    expect(world.sandbox.service.totalCharged()).toBe(0);
    expect(world.env.values(world.ss.id, 'C2:C41').every((row) => row[0] === '')).toBe(true);
    world.env.userProperties('owner@example.com').set({ [API_KEY_PROPERTY]: OWNER_KEY });
    await world.env.run('resumeEnrichment', [], world.as());
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D41'))).toEqual([]);
    for (const line of world.env.logs) expect(line.message).not.toContain(OWNER_KEY);
  });

  it('pauses on the daily UrlFetch quota and resumes the next day', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(60, 'ann-fox')],
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
      env: { urlFetchDailyQuota: 25 },
    });
    await start(world, 'A1:A61');
    const paused = await drive(world);
    expect(paused.state).toBe('paused');
    expect(paused.message).toMatch(/too many times|daily/i);
    world.env.resetDailyQuota();
    world.env.advanceClock(24 * 3600 * 1000);
    // The quota is back for 25 more requests; 54 distinct URLs need three days in all.
    let progress = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    for (let day = 0; day < 5 && progress.state !== 'done'; day++) {
      progress = await drive(world);
      if (progress.state === 'paused') {
        world.env.resetDailyQuota();
        progress = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
      }
    }
    expect(progress.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D61'))).toEqual([]);
  });

  it('keeps a Cancel made during a slice that ends with a 402', async () => {
    world = await startWorld({
      credits: 0,
      data: [['Profile'], ...urls(10, 'lou-park')],
      // Every answer (here a 402) takes 3 s: the window in which the Cancel must land.
      faults: { latencyMs: 3000 },
    });
    const service = world.sandbox.service;
    await warmWorkers(world, 2);
    world.env.select(world.ss.id, 'A1:A11');
    const running = world.env.execute('enrichSelection', [], world.as());
    // Cancel while the slice's requests wait on the slow service.
    await waitFor(() => service.inFlight > 0, 10_000);
    const cancelled = (await world.env.run('cancelEnrichment', [], world.as())) as ProgressView;
    expect(cancelled.state).toBe('cancelled');
    const slice = await running;
    expect(service.ledger().filter((entry) => entry.status === 402).length).toBeGreaterThan(0);
    expect(slice.ok).toBe(true);
    expect((slice.value as ProgressView).state).toBe('cancelled');
    const stored = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(stored.state).toBe('cancelled');
    expect(world.env.triggers).toHaveLength(0);
  });

  it('a slice of a cancelled run never overwrites the run started after it', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(30, 'ned-orr')],
      faults: { latencyMs: 1000 },
      scriptProperties: { ENRICH_BATCH_SIZE: '5' },
    });
    world.ss.addSheet('Other');
    world.env.enter(world.ss.id, 'A1:A3', [['Profile'], [url('pia-quinn')], [url('rob-sun')]], 'Other');
    const service = world.sandbox.service;
    await warmWorkers(world, 2);
    world.env.select(world.ss.id, 'A1:A31');
    const first = world.env.execute('enrichSelection', [], world.as());
    await waitFor(() => service.inFlight > 0, 10_000);
    await world.env.run('cancelEnrichment', [], world.as());
    // Batches of 5 rows go out one after another: those answered by now, and at most one more, may be written.
    const batchesSeen = new Set(
      service
        .ledger()
        .map((entry) => /ned-orr-(\d+)/.exec(entry.networkUrl ?? '')?.[1])
        .filter((row) => row !== undefined)
        .map((row) => Math.floor(Number(row) / 5)),
    ).size;
    world.env.select(world.ss.id, 'A1:A3', 'Other');
    const second = world.env.execute('enrichSelection', [], world.as());
    const [a, b] = await Promise.all([first, second]);
    expect(a.ok && b.ok).toBe(true);
    const progress = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView & {
      sheetName: string;
    };
    expect(progress.sheetName).toBe('Other');
    expect(progress.total).toBe(2);
    expect(['running', 'done']).toContain(progress.state);
    // The cancelled run stopped after the batch under way: its other rows stay empty.
    const statuses = world.env.values(world.ss.id, 'C2:C31', 'Sheet1').map((row) => row[0]);
    expect(batchesSeen).toBeLessThan(5);
    expect(statuses.filter((s) => s === '').length).toBeGreaterThanOrEqual(30 - 5 * (batchesSeen + 1));
  });

  it('keeps an hourly trigger while the job runs; firing it continues the job; cancel removes it', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(30, 'max-hill')],
      scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '1' },
      // issue 11: product fix pending. Apps Script runs a time-driven trigger with no active spreadsheet; this
      // test still relies on the old model in which it runs in the document that created it.
      env: { legacyTriggerDocumentContext: true },
    });
    const first = await start(world, 'A1:A31');
    expect(first.state).toBe('running');
    expect(world.env.triggers).toHaveLength(1);
    const trigger = world.env.triggers[0];
    expect(trigger.handler).toBe('continueEnrichment');
    const before = first.processed;
    // Fired without the spreadsheet's context, the trigger changes nothing and does not fail.
    const withoutDocument = await world.env.fireTrigger(trigger.id, { context: 'none' });
    expect(withoutDocument.ok).toBe(true);
    expect((withoutDocument.value as ProgressView).state).toBe('idle');
    expect(((await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView).processed).toBe(
      before,
    );
    const fired = await world.env.fireTrigger(trigger.id);
    expect(fired.ok).toBe(true);
    const after = fired.value as ProgressView;
    expect(after.processed).toBeGreaterThan(before);
    expect(after.state).toBe('running');
    await world.env.run('cancelEnrichment', [], world.as());
    expect(world.env.triggers).toHaveLength(0);
    // A cancelled job is left alone by a late trigger call.
    const late = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    expect(late.state).toBe('cancelled');
    expect(late.processed).toBe(after.processed);
  });
});
