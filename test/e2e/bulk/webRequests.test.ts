/**
 * Google's daily quota of web requests through dist/Code.js: a bulk run counts its requests in the person's user
 * properties over the quota's 24 hours (from the first request, as the quotas page says it resets), a plan that
 * needs more than are left says so with the figures, and the pause at the quota says what Google allows.
 */

import { WEB_REQUESTS_PROPERTY } from '../../../src/core/propertyNames';
import { OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const rows = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
const HOUR = 3600 * 1000;

interface PlanView {
  credits: number;
  newProfiles: number;
  note?: string;
}

function keptCount(w: World): { since: number; sent: number } {
  return JSON.parse(w.env.userProperties(OWNER).get(WEB_REQUESTS_PROPERTY) as string);
}

describe("Google's daily quota of web requests", () => {
  it('a run counts its requests as the quota does; a plan needing more than are left says so, with the figures', async () => {
    world = await startWorld({
      data: [['Profile'], ...rows(40, 'quinn-quota')],
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
    });
    await start(world, 'A1:A21');
    expect((await drive(world)).state).toBe('done');
    const lookups = world.sandbox.service.ledger().filter((entry) => entry.networkUrl !== undefined).length;
    expect(lookups).toBe(20);
    // Every web request of the run's slices, as the emulator's quota counted them; Start's key check is not.
    const first = keptCount(world);
    expect(first.sent).toBe(lookups);
    expect(first.sent).toBe(world.env.quotaUsage(OWNER).urlfetch - 1);

    // Nearly the whole day's quota used: the plan of the other 20 rows says so, and when it resets.
    const since = first.since;
    world.env.userProperties(OWNER).set({ [WEB_REQUESTS_PROPERTY]: JSON.stringify({ since, sent: 19_995 }) });
    world.env.select(world.ss.id, 'A1:A41');
    const plan = (await world.env.run('getRunPlan', [{}], world.as())) as PlanView;
    expect(plan.newProfiles).toBe(20);
    expect(plan.note).toMatch(/^Google allows about 20,000 web requests a day for a consumer account/);
    expect(plan.note).toContain('has sent 19,995 for you since');
    expect(plan.note).toContain(
      'this run needs at least 20, so it will pause when they are used and can resume after',
    );

    // Twenty-four hours after the first request the count starts again: no note.
    world.env.advanceClock(24 * HOUR);
    const later = (await world.env.run('getRunPlan', [{}], world.as())) as PlanView;
    expect(later.note).toBeUndefined();
    await start(world, 'A1:A41');
    expect((await drive(world)).state).toBe('done');
    const next = keptCount(world);
    expect(next.since).toBeGreaterThanOrEqual(since + 24 * HOUR);
    expect(next.sent).toBe(20);
  });

  it('the pause at the quota says what Google allows, and the count holds every request sent before it', async () => {
    world = await startWorld({
      data: [['Profile'], ...rows(30, 'pia-quota')],
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
      env: { urlFetchDailyQuota: 15 },
    });
    await start(world, 'A1:A31');
    const paused = (await drive(world)) as ProgressView;
    expect(paused.state).toBe('paused');
    expect(paused.message).toContain('Google allows about 20,000 web requests a day for a consumer account');
    expect(paused.message).toMatch(/Wait until it resets, then Resume in the Progress tab\./);
    expect(keptCount(world).sent).toBe(world.env.quotaUsage(OWNER).urlfetch - 1);
  });
});
