/**
 * The owner's spending cap for =FINDEMAIL in a spreadsheet: formulas evaluating at once never pass it together,
 * past it cells say so and cost nothing, an editor cannot raise it, errors give their reservation back, and Check
 * key after a top-up lifts the formulas' pause at once.
 */

import { EDITOR, ORG, OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, start } from '../bulk/helpers';
import { cellError, column, emailOf, fillDown, lookups } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const people = (count: number, stem: string) => Array.from({ length: count }, (_, i) => url(`${stem}-${i}`));
const spend = (w: World) => JSON.parse(w.env.documentProperties(w.ss.id).get('pef.formulaSpend') ?? '{}');

it('twelve cells evaluating at once spend at most the cap; the others say so and send nothing', async () => {
  const urls = people(12, 'cap-amy');
  world = await startWorld({ data: [['URL'], ...urls.map((u) => [u])], env: { maxConcurrent: 12 } });
  await world.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 5 }], world.as(OWNER));
  fillDown(world, 'B', 'A', 2, 13);
  await world.env.recalculate(world.ss.id);
  const values = column(world, 'B2:B13');
  const found = values.filter((value) => typeof value === 'string' && value.includes('@'));
  expect(found).toHaveLength(5);
  expect(lookups(world)).toHaveLength(5);
  expect(world.sandbox.service.totalCharged()).toBe(5);
  const capped = values.filter((value) => String(value).startsWith('ERROR: The daily limit for =FINDEMAIL'));
  expect(capped).toHaveLength(7);
  expect(String(capped[0])).toMatch(/\(5 credits today; no credit spent\)/);
  expect(spend(world).used).toBe(5);
  // Recalculating costs nothing more today; the next day the rest are looked up.
  await world.env.recalculate(world.ss.id);
  expect(lookups(world)).toHaveLength(5);
  world.env.advanceClock(24 * 3600 * 1000);
  await world.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 50 }], world.as(OWNER));
  await world.env.recalculate(world.ss.id);
  expect(column(world, 'B2:B13')).toEqual(urls.map(emailOf));
  expect(Object.values(world.charges())).toEqual(new Array(12).fill(1));
});

it('turned off, formulas look nothing new up but still show known results', async () => {
  world = await startWorld({ data: [['URL'], [url('off-bea')], [url('off-cal')]] });
  world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
  await world.env.recalculate(world.ss.id);
  await world.env.run('saveFormulaCap', [{ enabled: false, dailyCap: 500 }], world.as(OWNER));
  fillDown(world, 'B', 'A', 2, 3);
  await world.env.recalculate(world.ss.id);
  expect(column(world, 'B2:B3')).toEqual([emailOf(url('off-bea')), expect.stringMatching(/turned off/)]);
  expect(lookups(world)).toHaveLength(1);

  // Turned on again: the cell says what to do, and the refresh item gets it looked up.
  expect(column(world, 'B3:B3')[0]).toContain(
    "turn formulas on in the add-on's Settings tab, then use Extensions › Profile Email Finder › Refresh =FINDEMAIL cells",
  );
  await world.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 500 }], world.as(OWNER));
  world.env.select(world.ss.id, 'A1');
  await world.env.run('refreshFormulas', [], world.as(OWNER));
  await world.env.formulasSettled();
  expect(column(world, 'B2:B3')).toEqual([emailOf(url('off-bea')), emailOf(url('off-cal'))]);
  expect(lookups(world)).toHaveLength(2);
});

it("an editor's own setting changes nothing: formulas spend the owner's credits under the owner's cap", async () => {
  world = await startWorld({ data: [['URL'], [url('ed-dan')]] });
  const state = (await world.env.run(
    'saveFormulaCap',
    [{ enabled: false, dailyCap: 0 }],
    world.as(EDITOR),
  )) as {
    setting: { enabled: boolean };
  };
  expect(state.setting.enabled).toBe(false);
  world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
  await world.env.recalculate(world.ss.id, { user: EDITOR });
  expect(column(world, 'B2')).toEqual([emailOf(url('ed-dan'))]);
  // And the owner's sidebar still shows the owner's own (default) limit.
  const owner = ((await world.env.run('getSidebarState', [], world.as(OWNER))) as { formulas: unknown })
    .formulas;
  expect(owner).toEqual({
    setting: { enabled: true, dailyCap: 500 },
    usedToday: 1,
    day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
  });
});

it('a failed lookup gives its reservation back; Check key after a top-up lifts the pause at once', async () => {
  world = await startWorld({ credits: 0, data: [['URL'], [url('top-eve')]] });
  world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
  await world.env.recalculate(world.ss.id);
  expect(cellError(world, 'B2')).toMatch(/credits/i);
  expect(spend(world).used).toBe(0);
  const sent = lookups(world).length;
  world.sandbox.service.setCredits(ORG, 10);
  // Within the two-minute pause a recalculation sends nothing...
  await world.env.recalculate(world.ss.id);
  expect(lookups(world)).toHaveLength(sent);
  // ...until the owner checks the key in the sidebar: then at once.
  const check = (await world.env.run('checkApiKey', [], world.as(OWNER))) as { ok: boolean; message: string };
  expect(check).toEqual({ ok: true, message: 'The API key works. Checking it spent no credit.' });
  await world.env.recalculate(world.ss.id);
  expect(column(world, 'B2')).toEqual([emailOf(url('top-eve'))]);
  expect(spend(world).used).toBe(1);
});

it('a range past the limit claims only what the limit grants: the rest are left unclaimed, and a bulk run pays for them at once', async () => {
  const urls = people(6, 'cap-ivy');
  world = await startWorld({ data: [['URL'], ...urls.map((u) => [u])] });
  await world.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 2 }], world.as(OWNER));
  world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A7)']]);
  await world.env.recalculate(world.ss.id);
  expect(lookups(world)).toHaveLength(2);
  const cache = world.env.documentCache(world.ss.id).dump(world.env.now());
  const claims = [...cache.keys()].filter((key) => key.startsWith('pef.claim.'));
  expect(claims).toEqual([]);
  // The bulk run right after finds no claim of the formula's in its way: the four others are looked up now.
  const first = await start(world, 'A1:A7');
  const done = first.state === 'running' ? await drive(world) : first;
  expect(done.state).toBe('done');
  expect(Object.values(world.charges())).toEqual(new Array(6).fill(1));
});

it('answers lost after their charge count against the cap: ten new profiles under a cap of 5, three evaluations, at most 5 charged and the spend shown equals the log', async () => {
  const urls = Array.from({ length: 10 }, (_, i) => url(`lost-answer-cap-${i}`));
  world = await startWorld({ data: [['URL'], ...urls.map((u) => [u])] });
  await world.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 5 }], world.as(OWNER));
  world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2:A11)']]);
  for (let evaluation = 0; evaluation < 3; evaluation++) {
    world.env.enter(world.ss.id, 'B2', [['']]);
    world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2:A11)']]);
    await world.env.recalculate(world.ss.id);
  }
  expect(world.sandbox.service.totalCharged()).toBeLessThanOrEqual(5);
  const log = (await world.env.run('getCreditsSummary', [], world.as(OWNER))) as {
    today: number;
    lostToday: number;
  };
  const state = (await world.env.run('getSidebarState', [], world.as(OWNER))) as {
    formulas: { usedToday: number };
  };
  expect(state.formulas.usedToday).toBe(log.today + log.lostToday);
  expect(log.today + log.lostToday).toBe(world.sandbox.service.totalCharged());
});
