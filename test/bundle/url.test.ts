/**
 * Profile URL handling through dist/Code.js: local rejection (no request, no credit), normalisation for
 * de-duplication and caching, and the URL sent being the user's, trimmed.
 */
import { startWorld, url, type World } from '../support/harness';
import { findEmail, findEmailRow } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TOO_LONG = `https://network.com/in/${'a'.repeat(2100)}`;

describe('invalid input: INVALID_URL, and nothing is sent', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a number', 12345, 'Not looked up: 12345 is not a profile URL.'],
    ['a date', new Date(Date.UTC(2024, 0, 2)), 'Not looked up: a date is not a profile URL.'],
    ['a boolean', true, 'Not looked up: true is not a profile URL.'],
    ['text with spaces', 'not a url', 'Not looked up: contains spaces, not a profile URL.'],
    ['a word', 'hello', 'Not looked up: not a web address.'],
    ['another scheme', 'ftp://x/y', 'Not looked up: ftp: is not a web address.'],
    [
      'a site without a path',
      'https://network.com/',
      'Not looked up: a site address without a profile path.',
    ],
    ['over 2 KB', TOO_LONG, 'Not looked up: longer than 2048 characters, not a profile URL.'],
    ['an error value', '#N/A', 'Not looked up: the cell holds an error (#N/A), not a profile URL.'],
  ];

  it.each(cases)('%s', async (_name, value, note) => {
    world = await startWorld();
    expect(await findEmailRow(world, value)).toEqual(['', 'INVALID_URL', '', '', '', '', note]);
    expect(world.env.fetches).toHaveLength(0);
    expect(world.sandbox.service.ledger()).toHaveLength(0);
  });

  it('all of them in one range, with blanks: one row each, no request', async () => {
    world = await startWorld();
    const column = [...cases.map(([, value]) => [value]), [''], ['   ']];
    const result = await findEmail(world, column);
    expect(result.ok).toBe(true);
    expect(result.value).toEqual([
      ...cases.map(([, , note]) => ['', 'INVALID_URL', '', '', '', '', note]),
      ['', '', '', '', '', '', ''],
      ['', '', '', '', '', '', ''],
    ]);
    expect(world.env.fetches).toHaveLength(0);
  });

  it('the plain form shows the marker and the reason in one cell, and empty stays empty', async () => {
    world = await startWorld();
    world.env.enter(world.ss.id, 'A1:B3', [
      ['ftp://x/y', '=FINDEMAIL(A1)'],
      ['', '=FINDEMAIL(A2)'],
      [42, '=FINDEMAIL(A3)'],
    ]);
    await world.env.recalculate(world.ss.id);
    expect(world.env.values(world.ss.id, 'B1:B3')).toEqual([
      ['INVALID_URL: ftp: is not a web address.'],
      [''],
      ['INVALID_URL: 42 is not a profile URL.'],
    ]);
    expect(world.env.fetches).toHaveLength(0);
  });
});

describe('normalisation', () => {
  const messy = '  http://WWW.Network.com/in/jane-doe/?x=1#y ';
  const clean = 'https://network.com/in/jane-doe';

  it('one profile written two ways in one range: one request, the trimmed input sent as given', async () => {
    world = await startWorld();
    const result = await findEmail(world, [[messy], [clean], [`${clean}/`]]);
    expect(result.ok).toBe(true);
    const rows = result.value as unknown[][];
    expect(rows[0][1]).toBe('VALID');
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
    const ledger = world.sandbox.service.ledger();
    expect(ledger.map((entry) => entry.networkUrl)).toEqual([messy.trim()]);
    expect(world.charges()).toEqual({ [clean]: 1 });
  });

  it('across executions: the second spelling is served from the cache', async () => {
    world = await startWorld();
    const first = await findEmailRow(world, messy);
    const second = await findEmailRow(world, clean);
    expect(second).toEqual(first);
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([messy.trim()]);
  });

  it('a URL without a scheme is accepted and sent as written', async () => {
    world = await startWorld();
    const row = await findEmailRow(world, 'network.com/in/jane-doe');
    expect(row[1]).toBe('VALID');
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([
      'network.com/in/jane-doe',
    ]);
  });

  it('different profiles stay different', async () => {
    world = await startWorld();
    await findEmail(world, [[url('jane-doe')], [url('john-doe')]]);
    expect(Object.keys(world.charges()).sort()).toEqual([
      'https://network.com/in/jane-doe',
      'https://network.com/in/john-doe',
    ]);
  });
});
