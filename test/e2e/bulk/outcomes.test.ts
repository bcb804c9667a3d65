/**
 * Through dist/ in the emulator against the sandbox: one classifier of a row's outcome, so the
 * progress sentence, the counts, the summary box and the sandbox's ledger say the same; the time taken is working
 * time, a paused stretch apart; a profile whose answers were lost twice says until when it waits, and the plan of
 * a retry counts such rows apart instead of promising them.
 */

import type { RunHistory, RunPlan, RunSummary } from '../../../src/api';
import { priceText } from '../../../src/sidebar/words';
import { type Figures, figuresOf, sentenceFigures } from '../../support/figures';
import { startWorld, url, type World } from '../../support/harness';
import { drive, expectedCells, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function history(w: World): Promise<RunHistory> {
  return (await w.env.run('getRunHistory', [], w.as())) as RunHistory;
}

describe('one classifier of a row outcome', () => {
  it('every kind of row: the sentence, the counts, the summary box and the ledger agree', async () => {
    const found = [url('ann-able'), url('bob-burns')];
    const noAddress = url('noemail-nina');
    const unprocessable = url('anonymous');
    expect(expectedCells(noAddress)[1]).toBe('NOT_FOUND');
    expect(expectedCells(unprocessable)[1]).toBe('UNPROCESSABLE');
    world = await startWorld({
      data: [
        ['Profile'],
        ...found.map((link) => [link]),
        [url('cy-dale')],
        [noAddress],
        [''],
        [unprocessable],
        ['just some text'],
        [url('eve-fir')],
        [url('fay-gum')],
      ],
      // An ERROR by an injected fault: every answer for eve-fir is a 500 (no credit), beyond the retries.
      faults: { failFirst: { 'eve-fir': { kind: '500', times: 99 } } },
    });
    // Known before the run: the first two rows already have their result.
    await start(world, 'A1:A3');
    expect((await drive(world)).state).toBe('done');
    const before = world.sandbox.service.totalCharged();
    await start(world, 'A1:A10');
    const done = await drive(world);
    expect(done.state).toBe('done');
    const charged = world.sandbox.service.totalCharged() - before;

    const expected: Figures = {
      found: 2, // cy-dale, fay-gum
      noAddress: 1,
      unprocessable: 1,
      notProfile: 1,
      error: 1,
      alreadyDone: 2,
    };
    // Each row in exactly one figure; the blank row in none.
    expect(figuresOf(done)).toEqual(expected);
    expect(done.total).toBe(8);
    expect(done.processed).toBe(8);
    // The credits shown are the ledger's charges for this run: found, no address and unprocessable, once each.
    expect(done.creditsUsed).toBe(charged);
    expect(charged).toBe(4);
    expect(done.creditsMaybeLost).toBe(0);

    // The sentence says the same figures as the counts.
    expect(done.message).toBe(
      'Done: 2 rows with an address, 1 row with no address, 1 row unprocessable, 1 row not a profile, 1 row with an error, 2 rows already done. 4 credits used: 2 of 4 lookups found an address (50 %).',
    );
    const said = sentenceFigures(done.message);
    expect(figuresOf(said)).toEqual(expected);
    expect(said.credits).toBe(charged);

    // The summary box (and the history) the same again.
    const { last, history: runs } = await history(world);
    expect(last).not.toBeNull();
    const box = last as RunSummary;
    expect(figuresOf(box)).toEqual(expected);
    expect(box.creditsSpent).toBe(charged);
    expect(box.creditsMaybeLost).toBe(0);
    expect(runs[0].id).toBe(box.id);
    expect(runs[1]).toMatchObject({ found: 2, alreadyDone: 0, creditsSpent: 2 });

    // Retry failed rows redoes the kinds the summary counts as retried: the ERROR row only (unprocessable asked apart).
    world.env.select(world.ss.id, 'A1:A10');
    const plan = (await world.env.run('getRunPlan', [{ mode: 'retry' }], world.as())) as RunPlan;
    expect(plan.lookupRows).toBe(box.error);
  });

  it('the time taken is working time: a paused stretch is shown apart', async () => {
    world = await startWorld({
      data: [['Profile'], ...Array.from({ length: 12 }, (_, i) => [url(`pat-${i}-pace`)])],
      scriptProperties: { ENRICH_BATCH_SIZE: '4', ENRICH_STEP_BUDGET_MS: '1' },
    });
    const started = await start(world, 'A1:A13');
    expect(started.state).toBe('running');
    await world.env.run('pauseEnrichment', [], world.as());
    world.env.advanceClock(26_000);
    await world.env.run('resumeEnrichment', [], world.as());
    const done = await drive(world);
    expect(done.state).toBe('done');
    const box = (await history(world)).last as RunSummary;
    expect(box.waited.user).toBeGreaterThanOrEqual(26_000);
    // Working time leaves the pause out, whatever the machine's speed.
    expect(box.durationMs).toBe(box.endedAt - box.startedAt - (box.waited.user ?? 0));
    expect(box.found).toBe(12);
  });
});

describe('a profile whose answer was lost on the way', () => {
  it('is sent once, says so in its row, and only Retry failed rows sends it again, at the price its plan shows', async () => {
    const reset = 'rex-reset';
    world = await startWorld({
      data: [['Profile'], [url(reset)], [url('ann-able')]],
      scriptProperties: { ENRICH_BATCH_SIZE: '1' },
      faults: { failFirst: { [reset]: { kind: 'reset', times: 999 } } },
    });
    await start(world, 'A1:A3');
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.creditsMaybeLost).toBe(1);
    expect(world.env.values(world.ss.id, 'C2')[0][0]).toBe('ERROR');
    expect(String(world.env.values(world.ss.id, 'E2')[0][0])).toMatch(
      /^The answer was lost on the way: .*; the service may have charged a credit\. To look it up again \(1 credit\): Extensions › Profile Email Finder › Retry failed rows in the selected column\.$/,
    );
    const sentTo = () => world?.sandbox.service.ledger().filter((entry) => entry.networkUrl?.includes(reset));
    expect(sentTo()).toHaveLength(1);
    // A run over the rows again does not buy it again.
    await start(world, 'A1:A3');
    expect((await drive(world)).state).toBe('done');
    expect(sentTo()).toHaveLength(1);

    world.env.select(world.ss.id, 'A1:A3');
    const plan = (await world.env.run('getRunPlan', [{ mode: 'retry' }], world.as())) as RunPlan;
    expect(plan).toMatchObject({ lookupRows: 1, newProfiles: 1, credits: 1 });
    expect(priceText(plan)).toBe('At most 1 credit (1 new profile).');
    await start(world, 'A1:A3', { mode: 'retry' });
    expect((await drive(world)).state).toBe('done');
    expect(sentTo()).toHaveLength(2);
  });
});

test('a slice whose time ran out on the last row still ends the run: Done, never running or paused at 100 %', async () => {
  const data = Array.from({ length: 6 }, (_, i) => [url(`tia-end-${i}`)]);
  world = await startWorld({
    data: [['Profile'], ...data],
    // One window of all six rows, and no time left after it (a slice always works one window).
    scriptProperties: { ENRICH_BATCH_SIZE: '6', ENRICH_STEP_BUDGET_MS: '1' },
  });
  const first = await start(world, 'A1:A7');
  expect(first).toMatchObject({ state: 'done', processed: 6, total: 6 });
  expect(first.message).toMatch(/^Done: /);
  expect(world.sandbox.service.totalCharged()).toBe(6);
});
