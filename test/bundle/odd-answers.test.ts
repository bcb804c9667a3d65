/**
 * Odd answers through dist/Code.js: a 200 whose profile name is 10 KB, and 200s that are not the
 * contract's success shape (`{}`, a found body without `status`), from the sandbox's odd slugs (sandbox/profiles.ts).
 * A result's stored fields are bounded, so a 10 KB name can never fail a batch's write ("Argument too large: value");
 * an off-contract 200 may have been charged: it is ERROR with the reason, kept like a result (a charge in the run's
 * credits), and never sent again unless a person asks (Retry failed rows buys it again).
 */
import { HUGE_NAME_LENGTH, ODD_SLUGS, predictLookup } from '../../sandbox/profiles';
import type { RunPlan } from '../../src/api';
import { FIELD_LIMITS } from '../../src/core/limits';
import { CUT_MARKER } from '../../src/lookup/result';
import { drive, mismatches, start } from '../e2e/bulk/helpers';
import { startWorld, url, type World } from '../support/harness';
import { findEmailRow } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

const HUGE = url(`${ODD_SLUGS.hugeName}kim-lee`);
const EMPTY_200 = url(`${ODD_SLUGS.empty200}ann`);
const NO_STATUS_200 = url(`${ODD_SLUGS.noStatus200}bob`);

function hugeName(): string {
  const prediction = predictLookup(HUGE);
  if (prediction.kind !== 'found') throw new Error('the sandbox should find the huge-name profile');
  expect(prediction.name).toHaveLength(HUGE_NAME_LENGTH);
  return prediction.name;
}

function lookupsOf(w: World, networkUrl: string): number {
  return w.sandbox.service.ledger().filter((entry) => entry.networkUrl === `${networkUrl}/`).length;
}

describe('=FINDEMAIL', () => {
  it('a 10 KB name: the result is kept with the name cut, and the next execution pays nothing', async () => {
    world = await startWorld();
    const name = hugeName();
    const row = await findEmailRow(world, HUGE);
    expect(row[1]).toBe('VALID');
    expect(row[0]).toMatch(/^huge\.lee@/);
    expect(row[4]).toBe(`${name.slice(0, FIELD_LIMITS.name - 1)}${CUT_MARKER}`);
    expect(await findEmailRow(world, HUGE)).toEqual(row);
    expect(lookupsOf(world, HUGE)).toBe(1);
    expect(world.charges()).toEqual({ 'https://network.com/in/huge-name-kim-lee': 1 });
  });

  it.each([
    ['{}', EMPTY_200, /no "status"/],
    ['a found body without status', NO_STATUS_200, /no "status"/],
  ])('a 200 with %s: ERROR with the reason, kept, not sent again', async (_name, input, reason) => {
    world = await startWorld();
    const row = await findEmailRow(world, input);
    expect(row.slice(0, 6)).toEqual(['', 'ERROR', '', '', '', '']);
    expect(row[6]).toMatch(reason);
    expect(row[6]).toMatch(
      /^The service answered HTTP 200 without a usable result \(.+\); it may have charged a credit\. It is not looked up again unless you ask/,
    );
    expect(lookupsOf(world, input)).toBe(1);
    // Kept like a result (the service charged it): the next execution shows it again without asking.
    expect(await findEmailRow(world, input)).toEqual(row);
    expect(lookupsOf(world, input)).toBe(1);
    expect(world.charges()).toEqual({ [input.replace('www.', '')]: 1 });
  });

  it('the plain =FINDEMAIL(url) of a 200 with {}: ERROR, saying how to buy it again', async () => {
    world = await startWorld();
    world.env.enter(world.ss.id, 'A1:B1', [[EMPTY_200, '=FINDEMAIL(A1)']]);
    await world.env.recalculate(world.ss.id);
    expect(world.env.values(world.ss.id, 'B1')).toEqual([
      [
        'ERROR: The service answered HTTP 200 without a usable result (no "status"); it may have charged a credit. It is not looked up again unless you ask: select its URL, choose Find e-mails for the selected column, then Retry failed rows (1 credit).',
      ],
    ]);
    expect(lookupsOf(world, EMPTY_200)).toBe(1);
  });
});

describe('bulk run', () => {
  const ROWS = [url('jane-doe'), HUGE, url('john-smith'), EMPTY_200, NO_STATUS_200, url('mary-major')];

  it('one batch with a 10 KB name and off-contract 200s: every result written and kept, odd rows ERROR, bought again only by Retry failed rows', async () => {
    world = await startWorld({
      data: [['Profile URL'], ...ROWS.map((row) => [row])],
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
    });
    await world.env.run(
      'saveSettings',
      [{ writeHeader: true, extraFields: true, recheck: false }],
      world.as(),
    );
    const name = hugeName();
    await start(world, 'A2:A7');
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A2:G7');
    // Found rows (the huge name among them) hold their results: Email, status, Catch-all.
    expect(mismatches([values[0], values[1], values[2], values[5]])).toEqual([]);
    expect(values[1][6]).toBe(`${name.slice(0, FIELD_LIMITS.name - 1)}${CUT_MARKER}`);
    for (const odd of [values[3], values[4]]) {
      expect(odd.slice(1, 4)).toEqual(['', 'ERROR', '']);
      expect(odd[4]).toBe(
        'The service answered HTTP 200 without a usable result (no "status"); it may have charged a credit. To look it up again (1 credit): Extensions › Profile Email Finder › Retry failed rows in the selected column.',
      );
    }
    // The odd answers were charged: they count among the run's credits.
    expect(done).toMatchObject({ total: 6, processed: 6, found: 4, error: 2, creditsUsed: 6 });
    // Six lookups and the free key check at Start.
    expect(world.sandbox.service.ledger()).toHaveLength(7);

    // The results were stored: a formula over the huge-name profile pays nothing.
    expect((await findEmailRow(world, HUGE))[4]).toBe(values[1][6]);
    expect(world.sandbox.service.ledger()).toHaveLength(7);

    // The next run over every row buys nothing: the odd answers are kept like results.
    const again = (await start(world, 'A2:A7')).state === 'done' ? undefined : await drive(world);
    expect(again?.state ?? 'done').toBe('done');
    expect(lookupsOf(world, EMPTY_200)).toBe(1);
    expect(lookupsOf(world, NO_STATUS_200)).toBe(1);
    expect(world.charges()).toEqual(Object.fromEntries(ROWS.map((row) => [row.replace('www.', ''), 1])));
    expect(world.env.values(world.ss.id, 'A2:G7')).toEqual(values);

    // Retry failed rows prices the two ERROR rows and buys only them again.
    world.env.select(world.ss.id, 'A2:A7');
    const plan = (await world.env.run('getRunPlan', [{ mode: 'retry' }], world.as())) as RunPlan;
    expect(plan.credits).toBe(2);
    const retried = await start(world, 'A2:A7', { mode: 'retry' });
    expect((retried.state === 'running' ? await drive(world) : retried).state).toBe('done');
    expect(lookupsOf(world, EMPTY_200)).toBe(2);
    expect(lookupsOf(world, NO_STATUS_200)).toBe(2);
    for (const row of ROWS.filter((row) => row !== EMPTY_200 && row !== NO_STATUS_200))
      expect(lookupsOf(world, row)).toBe(1);
    expect(world.env.values(world.ss.id, 'A2:G7').slice(0, 3)).toEqual(values.slice(0, 3));
  });
});
