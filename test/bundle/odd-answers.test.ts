/**
 * Odd answers through dist/Code.js: a 200 whose profile name is 10 KB, and 200s that are not the
 * contract's success shape (`{}`, a found body without `status`), from the sandbox's odd slugs (sandbox/profiles.ts).
 * A result's stored fields are bounded, so a 10 KB name can never fail a batch's write ("Argument too large: value");
 * an off-contract 200 is ERROR with the reason, never stored, and looked up again on the next run.
 */
import { HUGE_NAME_LENGTH, ODD_SLUGS, predictLookup } from '../../sandbox/profiles';
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
  ])('a 200 with %s: ERROR with the reason, not kept, sent again next time', async (_name, input, reason) => {
    world = await startWorld();
    const row = await findEmailRow(world, input);
    expect(row.slice(0, 6)).toEqual(['', 'ERROR', '', '', '', '']);
    expect(row[6]).toMatch(reason);
    expect(row[6]).toMatch(/looked up again on the next run/);
    expect(lookupsOf(world, input)).toBe(1);
    // Not a result: the next execution asks again (a NOT_FOUND stored for good would not).
    expect((await findEmailRow(world, input))[1]).toBe('ERROR');
    expect(lookupsOf(world, input)).toBe(2);
  });
});

describe('bulk run', () => {
  const ROWS = [url('jane-doe'), HUGE, url('john-smith'), EMPTY_200, NO_STATUS_200, url('mary-major')];

  it('one batch with a 10 KB name and off-contract 200s: every other result written and kept, odd rows retried next run', async () => {
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
      expect(odd[4]).toMatch(/without a result \(no "status"\)/);
    }
    expect(done).toMatchObject({ total: 6, processed: 6, found: 4, error: 2 });
    // Six lookups and the free key check at Start.
    expect(world.sandbox.service.ledger()).toHaveLength(7);

    // The results were stored: a formula over the huge-name profile pays nothing.
    expect((await findEmailRow(world, HUGE))[4]).toBe(values[1][6]);
    // Six lookups and the free key check at Start.
    expect(world.sandbox.service.ledger()).toHaveLength(7);

    // The next run sends only the two ERROR rows again.
    const again = (await start(world, 'A2:A7')).state === 'done' ? undefined : await drive(world);
    expect(again?.state ?? 'done').toBe('done');
    expect(lookupsOf(world, EMPTY_200)).toBe(2);
    expect(lookupsOf(world, NO_STATUS_200)).toBe(2);
    // Two lookups more, after the second run's own key check.
    expect(world.sandbox.service.ledger()).toHaveLength(10);
    expect(world.env.values(world.ss.id, 'A2:G7').slice(0, 3)).toEqual(values.slice(0, 3));
  });
});
