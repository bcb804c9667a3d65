/**
 * A cell holding a formula is the user's data, always: a formula showing "" in an output column
 * keeps the run from reusing the column, and a formula in an output cell of a pending row is never overwritten,
 * whether it was there at the start or entered while the run goes on. Nothing is spent on such a row.
 */

import { startWorld, url, type World } from '../../support/harness';
import { drive, mismatches, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TITLES = ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'];
const SHOWS_NOTHING = '=IF(Z2="","",Z2)';

function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

describe('formula cells are the user data', () => {
  it('an untitled output column whose cells hold formulas showing "" is not reused: new columns are inserted', async () => {
    const rows = urls(3, 'una-vogt').map(([link], i) => [link, `=IF(Z${i + 2}="","",Z${i + 2})`]);
    world = await startWorld({ data: [['Profile', ''], ...rows] });
    expect(world.env.values(world.ss.id, 'B2:B4')).toEqual([[''], [''], ['']]);
    // The plan offers a choice (the column beside holds the user's formulas): the person inserts columns.
    await start(world, 'A1:A4', { placement: 'insert' });
    const done = await drive(world);
    expect(done.state).toBe('done');
    // Four columns were inserted right of the URLs: the user's formulas moved from B to F, untouched.
    expect(world.env.formulas(world.ss.id, 'F2:F4')).toEqual([
      ['=IF(Z2="","",Z2)'],
      ['=IF(Z3="","",Z3)'],
      ['=IF(Z4="","",Z4)'],
    ]);
    expect(world.env.values(world.ss.id, 'B1:E1')).toEqual([TITLES.slice(1)]);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D4'))).toEqual([]);
  });

  it("in the add-on's columns, a row whose output cell the person replaced with a formula is left by a re-check, unpaid, and the run says so", async () => {
    world = await startWorld({ data: [['Profile'], ...urls(3, 'vic-wade')] });
    await start(world, 'A1:A4');
    expect((await drive(world)).state).toBe('done');
    // Catch-all is the one output column not formatted as plain text: a formula typed there stays a formula.
    const before = world.env.values(world.ss.id, 'B3:C3');
    world.env.enter(world.ss.id, 'D3', [[SHOWS_NOTHING]]);
    world.sandbox.service.resetLedger();
    await start(world, 'A1:A4', { recheck: true });
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(world.env.formulas(world.ss.id, 'D3')).toEqual([[SHOWS_NOTHING]]);
    expect(world.env.values(world.ss.id, 'B3:C3')).toEqual(before);
    expect(Object.keys(world.charges()).some((key) => key.includes('vic-wade-1'))).toBe(false);
    expect(Object.keys(world.charges())).toHaveLength(2);
    const values = world.env.values(world.ss.id, 'A2:D4');
    expect(mismatches([values[0], values[2]])).toEqual([]);
    expect(done.message).toMatch(/no result/);
  });

  it('a formula entered in an output cell while the run goes on is never overwritten', async () => {
    world = await startWorld({
      data: [TITLES, ...urls(12, 'wim-xu')],
      scriptProperties: { ENRICH_BATCH_SIZE: '3', ENRICH_STEP_BUDGET_MS: '1' },
    });
    const first = await start(world, 'A1:A13');
    expect(first.state).toBe('running');
    // Row 12 is still pending: the user types a formula showing "" in its Catch-all cell (the one output column
    // not formatted as plain text, where a typed formula stays a formula), then the run goes on.
    expect(world.env.values(world.ss.id, 'C12')).toEqual([['']]);
    world.env.enter(world.ss.id, 'D12', [['=IF(Z12="","",Z12)']]);
    expect(world.env.formulas(world.ss.id, 'D12')).toEqual([['=IF(Z12="","",Z12)']]);
    const done = (await drive(world)) as ProgressView;
    expect(done.state).toBe('done');
    expect(world.env.formulas(world.ss.id, 'D12')).toEqual([['=IF(Z12="","",Z12)']]);
    expect(world.env.values(world.ss.id, 'B12:E12')).toEqual([['', '', '', '']]);
    expect(Object.keys(world.charges()).some((key) => key.includes('wim-xu-10'))).toBe(false);
    const values = world.env.values(world.ss.id, 'A2:D13');
    expect(mismatches(values.filter((_, i) => i !== 10))).toEqual([]);
  });
});
