/**
 * A charge is whatever the service may have charged: a 200 whose body breaks the contract and an answer lost on the
 * way are in the credits log and in the run's credits like any result, and only a person's Retry buys them again,
 * at the price its plan shows.
 */

import { ODD_SLUGS } from '../../../sandbox/profiles';
import type { RunPlan } from '../../../src/api';
import { startWorld, url, type World } from '../../support/harness';
import { drive, expectLogEqualsLedger, logOf, lookups, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const charged = (w: World) => lookups(w).filter((entry) => entry.charged === 1).length;

it('a run with two answers {}: the log, the ledger and the run’s credits agree; Retry failed rows prices them and buys only them', async () => {
  world = await startWorld({
    data: [
      ['Profile'],
      [url('amy-ash')],
      [url(`${ODD_SLUGS.empty200}bob-bay`)],
      [url('cid-cole')],
      [url(`${ODD_SLUGS.empty200}dee-dunn`)],
      [url('eli-east')],
    ],
  });
  await start(world, 'A1:A6');
  const done = await drive(world);
  expect(done.state).toBe('done');
  expect(charged(world)).toBe(5);
  expect(done.creditsUsed + done.creditsMaybeLost).toBe(5);
  expect(logOf(world)).toHaveLength(5);
  expectLogEqualsLedger(world);
  expect(world.env.values(world.ss.id, 'C2:C6').map((row) => row[0])).toEqual([
    'VALID',
    'ERROR',
    'VALID',
    'ERROR',
    'VALID',
  ]);

  // A run over the same rows again buys nothing: the unusable answers are known.
  await start(world, 'A1:A6');
  expect((await drive(world)).state).toBe('done');
  expect(charged(world)).toBe(5);

  world.env.select(world.ss.id, 'A1:A6');
  const plan = (await world.env.run('getRunPlan', [{ mode: 'retry' }], world.as())) as RunPlan;
  expect(plan.credits).toBe(2);
  await start(world, 'A1:A6', { mode: 'retry' });
  const retried = await drive(world);
  expect(retried.state).toBe('done');
  expect(charged(world)).toBe(7);
  expect(retried.creditsUsed + retried.creditsMaybeLost).toBe(2);
  expectLogEqualsLedger(world);
});

it('answers lost after the service charged them are in the log and the run’s credits, and are not bought again unasked', async () => {
  world = await startWorld({
    data: [['Profile'], [url('fay-fox')], [url(`${ODD_SLUGS.lostAnswer}gus-gray`)], [url('hal-hunt')]],
    scriptProperties: { ENRICH_BATCH_SIZE: '1' },
  });
  await start(world, 'A1:A4');
  const done = await drive(world);
  expect(done.state).toBe('done');
  expect(charged(world)).toBe(3);
  expect(done.creditsUsed + done.creditsMaybeLost).toBe(3);
  expect(done.creditsMaybeLost).toBe(1);
  expectLogEqualsLedger(world);
  expect(world.env.values(world.ss.id, 'C3')[0][0]).toBe('ERROR');
  await start(world, 'A1:A4');
  await drive(world);
  expect(charged(world)).toBe(3);
});
