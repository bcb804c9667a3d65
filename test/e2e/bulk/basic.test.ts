/** Bulk enrichment through dist/Code.js in the emulator against the sandbox: outputs, inputs, headers, calls. */
import { FORMULA_EMAIL } from '../../../sandbox/profiles';
import { startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive, mismatches, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('bulk enrichment', () => {
  it('writes plain-text results beside each URL, handles bad input, charges each distinct URL once', async () => {
    const longText = `https://www.network.com/in/${'x'.repeat(3000)}`;
    world = await startWorld({
      data: [
        ['Profile URL'],
        [url('jane-doe')],
        [url('formula-fred')],
        [url('noemail-nina')],
        [url('anonymous')],
        ['http://WWW.network.com/in/jane-doe/?utm=1'],
        [''],
        ['12345'],
        ['2024-03-01'],
        ['#REF!'],
        ['just some text'],
        [longText],
        [url('nodomain-ned')],
      ],
    });
    const first = await start(world, 'A2:A13');
    expect(first.state).toMatch(/running|done/);
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:E13');
    expect(values[0]).toEqual(['Profile URL', 'Email', 'Email status', 'Catch-all', 'Note']);
    expect(mismatches(values.slice(1, 6).concat(values.slice(12)))).toEqual([]);
    // The formula address lands as text.
    expect(world.env.formulas(world.ss.id, 'B3')).toEqual([['']]);
    expect(values[2][1]).toBe(FORMULA_EMAIL);
    // Duplicate (other form of jane-doe) has the same result, one charge.
    expect(values[5].slice(1, 4)).toEqual(values[1].slice(1, 4));
    // Blank row untouched and not counted.
    expect(values[6].slice(1)).toEqual(['', '', '', '']);
    for (const row of [7, 8, 9, 10, 11]) expect(values[row][2]).toBe('INVALID_URL');
    expect(values[11][4]).toMatch(/longer than/);
    expect(done.total).toBe(11);
    expect(done.processed).toBe(11);
    expect(done.notProfile).toBe(5);
    expect(done.error).toBe(0);
    expect(done.found).toBe(3);
    expect(done.noAddress + done.unprocessable).toBe(3);
    expect(done.alreadyDone).toBe(0);
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(5);
    expect(done.creditsUsed).toBe(world.sandbox.service.totalCharged());
  });
});
