/**
 * Profile URL handling through dist/Code.js: local rejection (no request, no credit) of whatever is not a profile
 * of the network (script property NETWORK_HOSTS; the harness sets the sandbox's network.com), normalisation for
 * de-duplication and caching, and the URL sent being the profile's canonical spelling.
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
    ['text with spaces', 'not a url', 'Not looked up: not a web address.'],
    [
      'a URL with a space',
      'https://www.network.com/in/jane doe',
      'Not looked up: contains spaces, not a profile URL.',
    ],
    [
      'another site',
      'https://example.com/about',
      'Not looked up: not a profile URL of network.com: https://example.com/about.',
    ],
    [
      'a company page',
      'https://www.network.com/company/acme-corp/',
      "Not looked up: a company page, not a person's profile (a profile URL is network.com/in/<name>).",
    ],
    [
      'a job post',
      'https://uk.network.com/jobs/view/3712345678',
      "Not looked up: a job post, not a person's profile (a profile URL is network.com/in/<name>).",
    ],
    [
      'an old /pub/ address',
      'https://www.network.com/pub/jane-doe/1a/2b3/4c5',
      "Not looked up: an old /pub/ profile address (open it and copy the /in/ address it leads to), not a person's profile (a profile URL is network.com/in/<name>).",
    ],
    [
      'an invalid escape',
      'https://www.network.com/in/jane%ZZ',
      'Not looked up: the profile name "jane%ZZ" holds an invalid %-escape.',
    ],
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
  const canonical = 'https://www.network.com/in/jane-doe/';
  const key = 'https://network.com/in/jane-doe';

  it('one profile written many ways in one range: one request, with the canonical spelling', async () => {
    world = await startWorld();
    const spellings = [
      messy,
      'https://network.com/in/jane-doe',
      'https://www.network.com/in/Jane-Doe',
      'https://uk.network.com/in/jane-doe/',
      'https://de.network.com/in/JANE-DOE/en',
      'https://m.network.com/in/jane-doe',
      'https://www.network.com/mwlite/in/jane-doe',
      'https://www.network.com/in/jane%2Ddoe',
      'network.com/in/jane-doe',
    ];
    const result = await findEmail(
      world,
      spellings.map((spelling) => [spelling]),
    );
    expect(result.ok).toBe(true);
    const rows = result.value as unknown[][];
    expect(rows[0][1]).toBe('VALID');
    for (const row of rows) expect(row).toEqual(rows[0]);
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([canonical]);
    expect(world.charges()).toEqual({ [key]: 1 });
  });

  it('across executions: another spelling is served from the store', async () => {
    world = await startWorld();
    const first = await findEmailRow(world, messy);
    const second = await findEmailRow(world, 'HTTPS://UK.NETWORK.COM/IN/Jane-Doe/de');
    expect(second).toEqual(first);
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([canonical]);
  });

  it('an upper-case spelling is sent in its canonical form and found', async () => {
    world = await startWorld();
    const row = await findEmailRow(world, 'HTTPS://WWW.NETWORK.COM/IN/New-Person-Three/');
    expect(row[1]).toBe('VALID');
    expect(row[4]).toBe('New Person Three');
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([
      'https://www.network.com/in/new-person-three/',
    ]);
  });

  it('a percent-encoded and a decoded id are one lookup, sent encoded', async () => {
    world = await startWorld();
    const result = await findEmail(world, [
      ['https://www.network.com/in/jos%C3%A9-m%C3%BCller'],
      ['https://www.network.com/in/José-Müller/'],
    ]);
    const rows = result.value as unknown[][];
    expect(rows[0][4]).toBe('José Müller');
    expect(rows[1]).toEqual(rows[0]);
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([
      'https://www.network.com/in/jos%C3%A9-m%C3%BCller/',
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

describe('the host list (script property NETWORK_HOSTS)', () => {
  it('unset: the network at linkedin.com; the sandbox spelling is not a profile of it', async () => {
    world = await startWorld({ scriptProperties: { NETWORK_HOSTS: '' } });
    expect(await findEmailRow(world, url('jane-doe'))).toEqual([
      '',
      'INVALID_URL',
      '',
      '',
      '',
      '',
      `Not looked up: not a profile URL of linkedin.com: ${url('jane-doe')}.`,
    ]);
    expect(world.env.fetches).toHaveLength(0);
  });

  it('unset: a linkedin.com profile from a country subdomain is sent as https://www.linkedin.com/in/<id>/', async () => {
    world = await startWorld({ scriptProperties: { NETWORK_HOSTS: '' } });
    const row = await findEmailRow(world, 'https://uk.linkedin.com/in/Jane-Doe?originalSubdomain=uk');
    expect(row[1]).toBe('VALID');
    expect(world.sandbox.service.ledger().map((entry) => entry.networkUrl)).toEqual([
      'https://www.linkedin.com/in/jane-doe/',
    ]);
  });

  it('an unusable setting: every URL is INVALID_URL saying so, and nothing is sent', async () => {
    world = await startWorld({ scriptProperties: { NETWORK_HOSTS: 'network.com, not a host' } });
    const row = await findEmailRow(world, url('jane-doe'));
    expect(row[1]).toBe('INVALID_URL');
    expect(row[6]).toMatch(/NETWORK_HOSTS setting is not a list of domains \("not a host"\)/);
    expect(world.env.fetches).toHaveLength(0);
  });
});
