/**
 * Bulk enrichment faults: 402 and 401 then resume, the daily UrlFetch quota, cancel racing a slice, the sidebar
 * as the run's only driver (no trigger).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_DIR, type ExecutionResult } from '../../../emulator';
import { normalizeProfileUrl } from '../../../sandbox/profiles';
import { WAITING_AFTER_MS } from '../../../src/core/limits';
import { waitFor } from '../../sandbox/helpers';
import {
  API_KEY_PROPERTY,
  ORG,
  OWNER,
  OWNER_KEY,
  sentFor,
  startWorld,
  url,
  type World,
} from '../../support/harness';
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
    // Paused: a row has a result exactly when its profile was charged.
    const mid = world.env.values(world.ss.id, 'A2:D301');
    const charged = world.charges();
    expect(mid.filter((row) => row[2] !== '').length).toBeGreaterThanOrEqual(120);
    for (const row of mid)
      expect([row[0], row[2] !== '']).toEqual([row[0], !!charged[normalizeProfileUrl(String(row[0]))]]);
    // Resume without credits: the run's rest is the sidebar's slices (Resume answers at once); the first pauses it
    // again, nothing charged.
    const charges = world.sandbox.service.totalCharged();
    const resumedBroke = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(resumedBroke.state).toBe('running');
    const again = await drive(world);
    expect(again.state).toBe('paused');
    expect(again.message).toMatch(/credits/i);
    expect(world.sandbox.service.totalCharged()).toBe(charges);
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

  it('a 402 in the middle of a batch: every charged row is in the sheet the moment the run pauses', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => [url(`ida-${i}-ross`)]);
    world = await startWorld({
      credits: 9,
      data: [['Profile'], ...rows],
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
      // The first row's first request fails (500, free); by its retry the other nine have spent every credit,
      // so the refused row is the window's first and the nine charged ones come after it.
      faults: { failFirst: { 'ida-0-ross': { kind: '500', times: 1 } } },
    });
    await start(world, 'A1:A11');
    const paused = await drive(world);
    expect(paused.state).toBe('paused');
    expect(paused.reason).toBe('out_of_credits');
    const ledger = world.sandbox.service.ledger();
    expect(ledger.filter((entry) => entry.status === 402).map((entry) => entry.networkUrl)).toEqual([
      sentFor(url('ida-0-ross')),
    ]);
    expect(world.sandbox.service.totalCharged()).toBe(9);
    // Without a Resume: the nine paid rows show their results; the refused one is empty.
    const values = world.env.values(world.ss.id, 'A2:D11');
    expect(values[0].slice(1)).toEqual(['', '', '']);
    expect(mismatches(values.slice(1))).toEqual([]);
    expect(values.slice(1).every((row) => row[2] === 'VALID')).toBe(true);
    expect(paused.processed).toBe(9);
    expect(paused.creditsUsed).toBe(9);
    // After a top-up the refused row is looked up; nothing is paid twice and the counts stay right.
    world.sandbox.service.addCredits(ORG, 10);
    await world.env.run('resumeEnrichment', [], world.as());
    const done = await drive(world);
    expect(done).toMatchObject({ state: 'done', processed: 10, found: 10, creditsUsed: 10 });
    expect(chargedTwice(world)).toEqual([]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D11'))).toEqual([]);
  });

  it('a re-check paused by a 402 mid-batch writes the paid rows and counts each row once', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => [url(`ivo-${i}-ruiz`)]);
    world = await startWorld({
      credits: 20,
      data: [['Profile'], ...rows],
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
    });
    // The results a first run wrote, then nine credits for the re-check, its first profile answered 500 once.
    await start(world, 'A1:A21');
    expect((await drive(world)).state).toBe('done');
    const first = world.env.values(world.ss.id, 'B2')[0][0];
    world.sandbox.service.addCredits(ORG, 9);
    world.sandbox.service.configure({ failFirst: { 'ivo-0-ruiz': { kind: '500', times: 1 } } });
    world.sandbox.service.resetLedger();
    // Re-checking is chosen when the run starts, not a stored setting.
    await start(world, 'A1:A21', { recheck: true });
    const paused = await drive(world);
    expect(paused).toMatchObject({ state: 'paused', processed: 9, found: 9, creditsUsed: 9 });
    const values = world.env.values(world.ss.id, 'A2:D11');
    expect(values[0][1]).toBe(first);
    expect(mismatches(values.slice(1))).toEqual([]);
    // Ten more credits: the first window comes back to the nine rows written ahead (neither paid nor counted
    // again) and pays for row 1; the next window spends the other nine and pauses again.
    world.sandbox.service.addCredits(ORG, 10);
    // Eleven rows left: more than a batch of ten, so Resume answers at once and the sidebar's slices go on.
    const resumed = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(resumed).toMatchObject({ state: 'running', found: 9, creditsUsed: 9 });
    const again = await drive(world);
    expect(again).toMatchObject({ state: 'paused', found: 19, creditsUsed: 19 });
    world.sandbox.service.addCredits(ORG, 10);
    // One row left, within a batch: Resume's own short slice ends the run (one call, as Start's for a small run).
    const done = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(done).toMatchObject({ state: 'done', processed: 20, found: 20, creditsUsed: 20 });
    expect(world.sandbox.service.totalCharged()).toBe(20);
    expect(chargedTwice(world)).toEqual([]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D21'))).toEqual([]);
  });

  it('does not start with a wrong key (401); starts and finishes once the right key is saved', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(40, 'kim-ray')] });
    world.env.userProperties('owner@example.com').set({ [API_KEY_PROPERTY]: 'wrong-key-000000000000' });
    const refused = await start(world, 'A1:A41');
    expect(refused.state).toBe('idle');
    expect(refused.message).toMatch(/Settings/);
    expect(refused.message).not.toContain('wrong-key');
    expect(world.sandbox.service.totalCharged()).toBe(0);
    expect(world.env.values(world.ss.id, 'B1:D41').every((row) => row.every((cell) => cell === ''))).toBe(
      true,
    );
    world.env.userProperties('owner@example.com').set({ [API_KEY_PROPERTY]: OWNER_KEY });
    await start(world, 'A1:A41');
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
      // One credit: one lookup is done (held by the test until the Cancel has landed) while the batch's other
      // requests are answered 402 at once (the service checks the credits before any lookup).
      credits: 1,
      data: [['Profile'], ...urls(10, 'lou-park')],
      // One batch of the 10 (the adaptive pace would start this short run at one request).
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
    });
    const service = world.sandbox.service;
    await warmWorkers(world, 2);
    world.env.select(world.ss.id, 'A1:A11');
    const release = service.hold();
    const running = world.env.execute('enrichSelection', [], world.as());
    // Cancel while the slice's paid lookup waits on the service.
    await waitFor(() => service.held > 0, 10_000);
    let cancelled: ProgressView;
    try {
      cancelled = (await world.env.run('cancelEnrichment', [], world.as())) as ProgressView;
    } finally {
      release();
    }
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
      scriptProperties: { ENRICH_BATCH_SIZE: '5' },
    });
    world.ss.addSheet('Other');
    world.env.enter(world.ss.id, 'A1:A3', [['Profile'], [url('pia-quinn')], [url('rob-sun')]], 'Other');
    const service = world.sandbox.service;
    await warmWorkers(world, 2);
    world.env.select(world.ss.id, 'A1:A31');
    // The first run's first batch is held by the test: the Cancel and the second start land while it is under way.
    // Its 30 lookups are more than one batch: the menu creates the run and the first slice (the sidebar's) sends.
    expect(((await world.env.run('enrichSelection', [], world.as())) as ProgressView).state).toBe('running');
    const release = service.hold();
    const first = world.env.execute('continueEnrichment', [], world.as());
    let second: Promise<ExecutionResult> = first;
    let batchesSeen = 0;
    try {
      await waitFor(() => service.held > 0, 10_000);
      await world.env.run('cancelEnrichment', [], world.as());
      // Batches of 5 rows go out one after another: those answered by now, and at most one more, may be written.
      batchesSeen = new Set(
        service
          .ledger()
          .map((entry) => /ned-orr-(\d+)/.exec(entry.networkUrl ?? '')?.[1])
          .filter((row) => row !== undefined)
          .map((row) => Math.floor(Number(row) / 5)),
      ).size;
      world.env.select(world.ss.id, 'A1:A3', 'Other');
      second = world.env.execute('enrichSelection', [], world.as());
    } finally {
      release();
    }
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

  it('the sidebar is the only driver of a run: it creates no trigger; closed, the run waits (no error); opened again, it goes on', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(30, 'max-hill')],
      scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '1' },
      // A test deployment of an Editor add-on refuses installable triggers: the run must need none.
      env: { deployment: 'test' },
    });
    // The trigger scope is the watch's (src/watch/), never a run's: the run below creates no trigger.
    const manifest = JSON.parse(readFileSync(join(DIST_DIR, 'appsscript.json'), 'utf8'));
    expect(manifest.oauthScopes).toContain('https://www.googleapis.com/auth/script.scriptapp');
    expect(manifest.oauthScopes).not.toContain('https://www.googleapis.com/auth/spreadsheets');
    const started = await start(world, 'A1:A31');
    expect(started.state).toBe('running');
    // More lookups than one batch: Start answers at once; the sidebar's first slice sends.
    expect(started.processed).toBe(0);
    const first = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    expect(first.state).toBe('running');
    expect(first.processed).toBeGreaterThan(0);
    expect(world.env.triggers).toHaveLength(0);
    // The sidebar is closed: nothing drives the run. Two minutes later it is still running and waiting for its
    // sidebar, not paused by an error, and nothing more was written or spent.
    const spent = world.sandbox.service.ledger().length;
    world.env.advanceClock(WAITING_AFTER_MS + 30_000);
    const waiting = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(waiting).toMatchObject({ state: 'running', waiting: true, processed: first.processed });
    expect(waiting.reason).toBeUndefined();
    expect(waiting.message).not.toMatch(/error|stopped|failed/i);
    expect(world.sandbox.service.ledger()).toHaveLength(spent);
    // An execution without the spreadsheet (as a time-driven trigger runs): it changes nothing, fails nothing.
    const stray = await world.env.execute('continueEnrichment', [], { user: OWNER });
    expect(stray.ok).toBe(true);
    expect((stray.value as ProgressView).state).toBe('idle');
    expect(((await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView).processed).toBe(
      first.processed,
    );
    // The sidebar open again (it calls continueEnrichment again and again): the run goes on to its end.
    const resumed = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    expect(resumed.processed).toBeGreaterThan(first.processed);
    expect(resumed.waiting).toBeUndefined();
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D31'))).toEqual([]);
    expect(world.env.triggers).toHaveLength(0);
    // A finished job is left alone by a Cancel and a late call.
    await world.env.run('cancelEnrichment', [], world.as());
    const late = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    expect(late.state).toBe('done');
  });
});
