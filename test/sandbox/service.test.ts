import { buildLookupResponse, predictLookup } from '../../sandbox/profiles';
import type { SandboxServer } from '../../sandbox/server';
import { KEY, lookup, ORG, OTHER_KEY, OTHER_ORG, post, start } from './helpers';

const JANE = 'https://www.network.com/in/jane-doe-12ab';

describe('sandbox service over HTTP', () => {
  let sandbox: SandboxServer;

  beforeEach(async () => {
    sandbox = await start();
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('200: finds an address, with the full body, and charges 1 credit', async () => {
    const answer = await lookup(sandbox, JANE);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.json).toEqual(buildLookupResponse(JANE).body);
    expect(answer.json).toMatchObject({
      status: 'success',
      email_address: 'jane.doe@acme-corp.test',
      email_status: 'VALID',
      account_type: 'professional',
      is_catch_all: false,
      profile: { input_url: JANE, name: 'Jane Doe' },
    });
    expect(sandbox.service.credits(ORG)).toBe(99);
  });

  it('200: answers not found with a null address, and charges 1 credit', async () => {
    const answer = await lookup(sandbox, 'https://www.network.com/in/bob-noemail');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: 'success', email_address: null, email_status: null });
    expect(answer.json.profile.name).toBe('Bob');
    expect(sandbox.service.credits(ORG)).toBe(99);
  });

  it('422: answers unprocessable with a partial profile, and charges 1 credit', async () => {
    const noName = await lookup(sandbox, 'https://www.network.com/in/12345');
    expect(noName.status).toBe(422);
    expect(noName.json).toEqual({
      status: 'unprocessable',
      message: expect.stringMatching(/name or the domain/),
      profile: { network_url: 'https://network.com/in/12345', input_url: 'https://www.network.com/in/12345' },
    });
    const withName = await lookup(sandbox, 'https://www.network.com/in/ann-lee-nodomain');
    expect(withName.status).toBe(422);
    expect(withName.json.profile.name).toBe('Ann Lee');
    expect(sandbox.service.credits(ORG)).toBe(98);
  });

  it('400: rejects a missing, empty or non-string network_url and a body that is not JSON, free of charge', async () => {
    for (const body of [
      '{}',
      '{',
      'not json',
      '[]',
      'null',
      { network_url: 42 },
      { network_url: '   ' },
      '',
    ]) {
      const answer = await post(sandbox, body);
      expect({ body, status: answer.status, json: answer.json }).toEqual({
        body,
        status: 400,
        json: { error: 'Please provide a valid network profile URL (network_url).' },
      });
    }
    expect(sandbox.service.credits(ORG)).toBe(100);
    expect(sandbox.service.totalCharged()).toBe(0);
  });

  it('401: rejects a missing or unknown key, free of charge', async () => {
    for (const key of [null, '', 'wrong-key', KEY.toUpperCase(), KEY.slice(0, -1)]) {
      const answer = await lookup(sandbox, JANE, key);
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: 'Unauthorized: Invalid API Key or Organization not found' });
    }
    expect(sandbox.service.credits(ORG)).toBe(100);
    expect(sandbox.service.ledger().every((entry) => !entry.keyKnown && entry.charged === 0)).toBe(true);
  });

  it('checks the key before the body: 401 for a bad key, 400 for a good one (a free key check)', async () => {
    expect((await post(sandbox, '{}', { key: 'wrong-key' })).status).toBe(401);
    expect((await post(sandbox, 'not json', { key: 'wrong-key' })).status).toBe(401);
    expect((await post(sandbox, '{}', { key: null })).status).toBe(401);
    expect((await post(sandbox, '{}')).status).toBe(400);
    expect(sandbox.service.credits(ORG)).toBe(100);
  });

  it('402: refuses a lookup without credits and charges nothing; a top-up makes it work', async () => {
    sandbox.service.setCredits(ORG, 0);
    const answer = await lookup(sandbox, JANE);
    expect(answer.status).toBe(402);
    expect(answer.json).toEqual({
      error: 'Insufficient credits: 1 credit is needed to perform the email lookup.',
    });
    expect(sandbox.service.credits(ORG)).toBe(0);
    expect(sandbox.service.ledger()[0]).toMatchObject({ status: 402, charged: 0, organization: ORG });
    expect(sandbox.service.chargesByUrl()).toEqual({});

    sandbox.service.addCredits(ORG, 1);
    expect((await lookup(sandbox, JANE)).status).toBe(200);
    expect(sandbox.service.credits(ORG)).toBe(0);
    expect((await lookup(sandbox, JANE)).status).toBe(402);
  });

  it('404: any other path, before the key check', async () => {
    for (const path of ['/api/v1/other', '/', '/api/v2/network_finder', '/api/v1/network_finder/x']) {
      const answer = await post(sandbox, { network_url: JANE }, { path, key: null });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ error: 'Not Found' });
    }
    expect((await post(sandbox, undefined, { path: '/api/v1/network_finder/x', method: 'GET' })).status).toBe(
      404,
    );
    expect(sandbox.service.credits(ORG)).toBe(100);
  });

  it('405: other methods on the endpoint, as JSON', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await post(sandbox, { network_url: JANE }, { method });
      expect(answer.status).toBe(405);
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(answer.json).toEqual({ error: 'Method Not Allowed: use POST' });
      expect(answer.headers.get('allow')).toBe('POST');
    }
    expect(sandbox.service.credits(ORG)).toBe(100);
  });

  it('500: injected errors say so and charge nothing', async () => {
    sandbox.service.configure({ error500Rate: 1 });
    const answer = await lookup(sandbox, JANE);
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: 'An internal error occurred: connection time-out' });
    expect(sandbox.service.credits(ORG)).toBe(100);
    expect(sandbox.service.ledger()[0]).toMatchObject({
      status: 500,
      charged: 0,
      fault: '500',
      faultSource: 'rate',
    });
  });

  it('answers the same profile the same way every time, whatever its spelling', async () => {
    const first = await lookup(sandbox, JANE);
    const second = await lookup(sandbox, JANE);
    expect(second.text).toBe(first.text);
    const variant = await lookup(sandbox, 'http://WWW.NETWORK.com/in/jane-doe-12ab/?trk=x');
    expect({ ...variant.json, profile: { ...variant.json.profile, input_url: JANE } }).toEqual(first.json);
    const prediction = predictLookup(JANE);
    expect(prediction.kind === 'found' && prediction.email).toBe(first.json.email_address);
    // Two spellings, one profile: chargesByUrl counts both under the normalised URL.
    expect(sandbox.service.chargesByUrl()).toEqual({ 'https://network.com/in/jane-doe-12ab': 3 });
  });

  it('charges the organization that owns the key', async () => {
    expect((await lookup(sandbox, JANE, OTHER_KEY)).status).toBe(200);
    expect(sandbox.service.credits(OTHER_ORG)).toBe(4);
    expect(sandbox.service.credits(ORG)).toBe(100);
    expect(sandbox.service.ledger()[0].organization).toBe(OTHER_ORG);
  });

  it('never overspends under parallel requests', async () => {
    sandbox.service.setCredits(ORG, 3);
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        lookup(sandbox, `https://www.network.com/in/person-${String.fromCharCode(97 + i)}`),
      ),
    ).then((answers) => answers.map((a) => a.status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(7);
    expect(sandbox.service.credits(ORG)).toBe(0);
    expect(sandbox.service.totalCharged()).toBe(3);
  });

  it('keeps a ledger of every request, without the key', async () => {
    await lookup(sandbox, JANE);
    await lookup(sandbox, JANE, 'wrong-key');
    await post(sandbox, '{}');
    await lookup(sandbox, 'https://www.network.com/in/12345');
    await post(sandbox, undefined, { method: 'GET', path: '/nowhere' });

    const ledger = sandbox.service.ledger();
    expect(ledger.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(ledger).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/api/v1/network_finder',
        keyKnown: true,
        organization: ORG,
        networkUrl: JANE,
        status: 200,
        charged: 1,
      }),
      expect.objectContaining({ keyKnown: false, status: 401, charged: 0 }),
      expect.objectContaining({ keyKnown: true, organization: ORG, status: 400, charged: 0 }),
      expect.objectContaining({ networkUrl: 'https://www.network.com/in/12345', status: 422, charged: 1 }),
      expect.objectContaining({ method: 'GET', path: '/nowhere', status: 404, charged: 0 }),
    ]);
    expect(ledger[1].organization).toBeUndefined();
    expect(ledger[2].networkUrl).toBeUndefined();
    for (const entry of ledger) {
      expect(entry.endedAt).toBeGreaterThanOrEqual(entry.startedAt);
      expect(entry.fault).toBeUndefined();
    }
    const serialized = JSON.stringify(ledger);
    expect(serialized).not.toContain(KEY);
    expect(serialized).not.toContain('wrong-key');
    expect(sandbox.service.chargesByUrl()).toEqual({
      'https://network.com/in/jane-doe-12ab': 1,
      'https://network.com/in/12345': 1,
    });

    sandbox.service.resetLedger();
    expect(sandbox.service.ledger()).toEqual([]);
    expect(sandbox.service.chargesByUrl()).toEqual({});
    expect(sandbox.service.credits(ORG)).toBe(98);
  });

  it('refuses an oversized body without charging', async () => {
    const big = JSON.stringify({ network_url: JANE, pad: 'x'.repeat(2 * 1024 * 1024) });
    const status = await post(sandbox, big).then(
      (answer) => answer.status,
      () => 'transport error',
    );
    expect([413, 'transport error']).toContain(status);
    expect(sandbox.service.credits(ORG)).toBe(100);
    expect(sandbox.service.ledger()[0]).toMatchObject({ status: 413, charged: 0 });
  });
});

describe('createSandboxService options', () => {
  it('rejects invalid configuration', async () => {
    await expect(start({ faults: { error500Rate: 2 } })).rejects.toThrow(/between 0 and 1/);
    await expect(
      start({
        organizations: [
          { name: 'a', keys: ['k'], credits: 1 },
          { name: 'b', keys: ['k'], credits: 1 },
        ],
      }),
    ).rejects.toThrow(/used twice/);
    const sandbox = await start();
    try {
      expect(() => sandbox.service.credits('nobody')).toThrow(/Unknown organization/);
      expect(() => sandbox.service.configure({ latencyMs: [10, 5] })).toThrow(/max is below min/);
    } finally {
      await sandbox.close();
    }
  });
});
