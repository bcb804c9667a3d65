/**
 * Every row of the contract's status table (shared/service-spec.md §7) through dist/Code.js, the emulator and the
 * real sandbox over HTTP: the exact cells of =FINDEMAIL(url, all fields), the errors that stop a formula, and
 * checkApiKey, which must spend no credit.
 */

import type { ExecutionResult } from '../../emulator';
import { buildLookupResponse, UNPROCESSABLE_MESSAGE } from '../../sandbox/profiles';
import { MESSAGES } from '../../sandbox/service';
import { DEFAULT_RETRY, RATE_LIMITED_ATTEMPTS } from '../../src/core/limits';
import { withoutStop } from '../../src/core/text';
import {
  API_KEY_PROPERTY,
  ORG,
  OWNER,
  OWNER_KEY,
  startWorld,
  url,
  type World,
  type WorldOptions,
} from '../support/harness';
import { findEmail, findEmailRow, requestsFor, type Stub, startStub, visibleText } from './helpers';

let world: World | undefined;
let stub: Stub | undefined;

afterEach(async () => {
  try {
    await world?.close();
  } finally {
    world = undefined;
    await stub?.close();
    stub = undefined;
  }
});

async function open(options: WorldOptions = {}): Promise<World> {
  world = await startWorld({ ...options, faults: { latencyMs: [0, 20], ...options.faults } });
  return world;
}

/** A world whose API_BASE_URL points at a stub answering `status` with `body` to every request. */
async function openStub(status: number, body: string, headers?: Record<string, string>): Promise<World> {
  stub = await startStub(() => ({ status, body, headers }));
  return open({ scriptProperties: { API_BASE_URL: stub.baseUrl } });
}

/** The cells of a row that is not a result: only status and note are filled. */
function errorRow(status: string, note: string): unknown[] {
  return ['', status, '', '', '', '', note];
}

describe('200 with an address (found)', () => {
  it('fills every field from the answer and sends the contract request once', async () => {
    const w = await open();
    const input = url('jane-doe');
    const answer = buildLookupResponse(input);
    if (answer.status !== 200 || answer.body.status !== 'success')
      throw new Error('the sandbox should find jane-doe');
    const body = answer.body;
    expect(await findEmailRow(w, input)).toEqual([
      body.email_address,
      'VALID',
      body.is_catch_all,
      'professional',
      'Jane Doe',
      body.profile.updated_at,
      '',
    ]);
    expect(body.email_address).toMatch(/^jane\.doe@/);
    const ledger = w.sandbox.service.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({
      method: 'POST',
      path: '/api/v1/network_finder',
      organization: ORG,
      // The canonical spelling of the profile (src/core/url.ts): the network's own form, with its slash.
      networkUrl: `${input}/`,
      status: 200,
      charged: 1,
    });
    expect(w.env.fetches[0]).toMatchObject({ method: 'post', headers: { 'X-KEY': OWNER_KEY } });
    expect(JSON.parse(w.env.fetches[0].payload ?? '')).toEqual({ network_url: `${input}/` });
  });

  it('returns a catch-all domain as the boolean TRUE', async () => {
    const w = await open();
    // The sandbox picks the domain by hash: find a slug that lands on a catch-all domain.
    const slug = ['amy-lee', 'bob-ray', 'cy-twombly', 'dora-maar', 'ed-ruscha', 'fay-ray', 'gus-van']
      .map((s) => ({ s, r: buildLookupResponse(url(s)) }))
      .find(({ r }) => r.status === 200 && r.body.is_catch_all === true)?.s;
    if (!slug) throw new Error('no catch-all slug among the candidates');
    const row = await findEmailRow(w, url(slug));
    expect(row[2]).toBe(true);
    expect(row[1]).toBe('VALID');
  });
});

it('200 without an address: NOT_FOUND with the profile name, one credit', async () => {
  const w = await open();
  const input = url('jane-noemail');
  const answer = buildLookupResponse(input);
  if (answer.status !== 200 || answer.body.status !== 'success')
    throw new Error('the sandbox should answer 200 for jane-noemail');
  expect(await findEmailRow(w, input)).toEqual([
    '',
    'NOT_FOUND',
    '',
    '',
    'Jane',
    answer.body.profile.updated_at,
    'No address found for this profile.',
  ]);
  expect(w.charges()).toEqual({ 'https://network.com/in/jane-noemail': 1 });
});

describe('422 unprocessable', () => {
  it('shows the message and the partial profile name, one request, one credit', async () => {
    const w = await open();
    expect(await findEmailRow(w, url('jane-nodomain'))).toEqual([
      '',
      'UNPROCESSABLE',
      '',
      '',
      'Jane',
      '',
      `The service could not process this profile of Jane (HTTP 422). The service said: "${UNPROCESSABLE_MESSAGE}".`,
    ]);
    expect(requestsFor(w, 'jane-nodomain')).toHaveLength(1);
    expect(w.charges()).toEqual({ 'https://network.com/in/jane-nodomain': 1 });
  });

  it('without a name in the partial profile', async () => {
    const w = await open();
    expect(await findEmailRow(w, url('anonymous-42'))).toEqual(
      errorRow(
        'UNPROCESSABLE',
        `The service could not process this profile (HTTP 422). The service said: "${UNPROCESSABLE_MESSAGE}".`,
      ),
    );
  });
});

describe('failures retried up to the bound (one world, executions at once)', () => {
  // The emulator's fetch time-out applies to every request of this world: 2 s leaves ordinary requests ample
  // room on a loaded machine, and two timed-out tries (about 4.5 s) fit in the 26 s budget.
  const TIMEOUT_MS = 2000;
  let shared: World;
  const runs = new Map<string, Promise<ExecutionResult>>();
  const slugs = ['jane-broken', 'pat-rate', 'hal-html', 'rex-reset', 'tim-slow'];

  beforeAll(async () => {
    shared = await startWorld({
      env: { fetchTimeoutMs: TIMEOUT_MS },
      faults: {
        latencyMs: [0, 20],
        failFirst: {
          'pat-rate': { kind: '429', times: 99 },
          'hal-html': { kind: 'html', times: 99 },
          'rex-reset': { kind: 'reset', times: 99 },
          'tim-slow': { kind: 'slow', times: 99, delayMs: 6 * TIMEOUT_MS },
        },
      },
    });
    // A first formula proves the account works; then each URL's formula runs at once with the others.
    await findEmailRow(shared, url('zed-zane'));
    for (const slug of slugs) runs.set(slug, findEmail(shared, url(slug)));
    await Promise.all(runs.values());
  });

  afterAll(() => shared?.close());

  async function rowOf(slug: string): Promise<unknown[]> {
    const result = await runs.get(slug);
    if (!result?.ok) throw new Error(`FINDEMAIL failed: ${result?.error?.message}`);
    return (result.value as unknown[][])[0];
  }

  const endpoint = () => `${shared.sandbox.baseUrl}network_finder`;

  it('500 with a cause text: ERROR with the body text, retried up to the bound, no credit', async () => {
    expect(await rowOf('jane-broken')).toEqual(
      errorRow('ERROR', `The service failed (HTTP 500). The service said: "${MESSAGES.internalError}".`),
    );
    expect(requestsFor(shared, 'jane-broken').map((e) => [e.status, e.charged])).toEqual(
      new Array(DEFAULT_RETRY.maxAttempts).fill([500, 0]),
    );
  });

  it('429: ERROR after the retries, with the body text; every retry waits for the Retry-After', async () => {
    expect(await rowOf('pat-rate')).toEqual(
      errorRow('ERROR', `Too many requests (HTTP 429). The service said: "${MESSAGES.tooManyRequests}".`),
    );
    const entries = requestsFor(shared, 'pat-rate');
    // A refusal is never charged: a 429 gets more tries than other failures, each after its Retry-After (1 s).
    expect(entries).toHaveLength(RATE_LIMITED_ATTEMPTS);
    for (let n = 1; n < entries.length; n++)
      expect(entries[n].startedAt - entries[n - 1].endedAt).toBeGreaterThanOrEqual(1000 - 5);
  });

  it("non-JSON body (a proxy's 502 HTML page): ERROR that says so, retried", async () => {
    expect(await rowOf('hal-html')).toEqual(
      errorRow(
        'ERROR',
        'The service answered HTTP 502 with a body that is not JSON (a proxy or gateway error page?).',
      ),
    );
    expect(requestsFor(shared, 'hal-html')).toHaveLength(DEFAULT_RETRY.maxAttempts);
  });

  // An answer lost on the way (reset, time-out) may have been charged: sent once, kept as lost, never sent again
  // unasked (only Retry failed rows buys it again).
  const lost = (cause: string) =>
    `The answer was lost on the way: ${cause}; the service may have charged a credit. It is not looked up again unless you ask: select its URL, choose Find e-mails for the selected column, then Retry failed rows (1 credit).`;

  /** A second evaluation of `slug`'s formula: the same cell from the store, and no web request at all. */
  async function expectKept(slug: string, row: unknown[]): Promise<void> {
    const fetches = shared.env.fetches.length;
    expect(await findEmailRow(shared, url(slug))).toEqual(row);
    expect(shared.env.fetches).toHaveLength(fetches);
  }

  it('transport failure (connection reset): ERROR saying the answer was lost, sent once, not sent again', async () => {
    const row = errorRow('ERROR', lost('the service could not be reached (Address unavailable)'));
    expect(await rowOf('rex-reset')).toEqual(row);
    expect(requestsFor(shared, 'rex-reset').map((e) => [e.status, e.charged])).toEqual([['reset', 0]]);
    await expectKept('rex-reset', row);
    expect(requestsFor(shared, 'rex-reset')).toHaveLength(1);
  });

  it('time-out: ERROR saying the answer was lost (the service did not answer in time), sent once', async () => {
    const row = errorRow('ERROR', lost('the service did not answer in time (Timeout)'));
    expect(await rowOf('tim-slow')).toEqual(row);
    const timedOut = shared.env.fetches.filter((f) => f.error === `Timeout: ${endpoint()}`);
    expect(timedOut).toHaveLength(1);
    // The time-out and the reset: the only failed fetches.
    expect(shared.env.fetches.filter((f) => f.error)).toHaveLength(2);
    await expectKept('tim-slow', row);
    expect(shared.env.fetches.filter((f) => f.error)).toHaveLength(2);
  });
});

describe('answers the sandbox never gives (stub server)', () => {
  it('400 to a lookup: INVALID_URL with the body text, not retried, and the request is the contract one', async () => {
    const w = await openStub(400, JSON.stringify({ error: MESSAGES.badRequest }));
    const input = `  ${url('jane-doe')} `;
    expect(await findEmailRow(w, input)).toEqual(
      errorRow(
        'INVALID_URL',
        `The service did not accept this profile URL (HTTP 400). The service said: "${withoutStop(MESSAGES.badRequest)}".`,
      ),
    );
    expect(stub?.requests).toHaveLength(1);
    const request = stub!.requests[0];
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/api/v1/network_finder');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-key']).toBe(OWNER_KEY);
    expect(JSON.parse(request.body)).toEqual({ network_url: `${url('jane-doe')}/` });
  });

  it('an unexpected status (418): ERROR with status and text, not retried', async () => {
    const w = await openStub(418, JSON.stringify({ error: "I'm a teapot" }));
    expect(await findEmailRow(w, url('jane-doe'))).toEqual(
      errorRow('ERROR', `Unexpected answer HTTP 418. The service said: "I'm a teapot".`),
    );
    expect(stub?.requests).toHaveLength(1);
  });

  it('a redirect (a login page in front of the service) is not followed: a configuration error, as a 404', async () => {
    const w = await openStub(302, '', { Location: 'http://127.0.0.1:9/login', 'Content-Type': 'text/html' });
    const result = await findEmail(w, url('jane-doe'));
    expect(result.error?.message).toBe(
      "The service address redirects (HTTP 302 to another address). Check API_BASE_URL: it must be the service's own address.",
    );
    expect(stub?.requests).toHaveLength(1);
  });

  it('a 200 with an HTML body: ERROR saying it may have charged, kept, not sent again', async () => {
    const w = await openStub(200, '<html><body>Sign in</body></html>', { 'Content-Type': 'text/html' });
    const row = errorRow(
      'ERROR',
      'The service answered HTTP 200 without a usable result (its body is not JSON); it may have charged a credit. It is not looked up again unless you ask: select its URL, choose Find e-mails for the selected column, then Retry failed rows (1 credit).',
    );
    expect(await findEmailRow(w, url('jane-doe'))).toEqual(row);
    expect(stub?.requests).toHaveLength(1);
    // Kept like a result: the next evaluation shows it again without asking the service.
    expect(await findEmailRow(w, url('jane-doe'))).toEqual(row);
    expect(stub?.requests).toHaveLength(1);
  });

  it("a web server's HTML 404 (API_BASE_URL on the wrong host or path) still stops with the 404 advice", async () => {
    const w = await openStub(404, '<html><body><h1>Not Found</h1></body></html>', {
      'Content-Type': 'text/html',
    });
    const result = await findEmail(w, url('jane-doe'));
    expect(result.error?.message).toBe('The service address is wrong (HTTP 404). Check API_BASE_URL.');
    expect(await w.env.run('checkApiKey', [], w.as())).toEqual({
      ok: false,
      message: 'Could not check the API key: The service address is wrong (HTTP 404). Check API_BASE_URL.',
    });
    expect(stub?.requests).toHaveLength(2);
  });

  it('a 401 whose body echoes the key: the message shows the key masked only', async () => {
    stub = await startStub((request) => ({
      status: 401,
      body: JSON.stringify({ error: `Unauthorized: key ${String(request.headers['x-key'])} is unknown` }),
    }));
    const w = await open({ scriptProperties: { API_BASE_URL: stub.baseUrl } });
    const result = await findEmail(w, url('jane-doe'));
    expect(result.ok).toBe(false);
    expect(result.error?.message).toContain(`key ••••••••${OWNER_KEY.slice(-4)} is unknown`);
    const check = await w.env.run('checkApiKey', [], w.as());
    expect(check).toEqual({
      ok: false,
      message: `The service rejected this API key. Get a valid key in Account › API settings in the service's dashboard, then save it here. The service said: "Unauthorized: key ••••••••${OWNER_KEY.slice(-4)} is unknown".`,
    });
    expect(visibleText(w, [result])).not.toContain(OWNER_KEY);
  });
});

describe('account-level failures stop the formula with an Error that never shows the key', () => {
  async function expectThrows(w: World, pattern: RegExp): Promise<string> {
    const result = await findEmail(w, url('jane-doe'));
    expect(result.ok).toBe(false);
    const message = result.error?.message ?? '';
    expect(message).toMatch(pattern);
    expect(message).not.toContain(OWNER_KEY);
    expect(visibleText(w, [result])).not.toContain(OWNER_KEY);
    return message;
  }

  it('401 (a wrong key saved): says the key was rejected and whose key it is; one request', async () => {
    const w = await open();
    w.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: `${OWNER_KEY}-wrong` });
    const message = await expectThrows(
      w,
      /^The API key was rejected \(HTTP 401\)\. .*The service said: "Unauthorized: Invalid API Key/,
    );
    expect(message).toContain("uses the API key of the spreadsheet's owner");
    expect(message).not.toContain(`${OWNER_KEY}-wrong`);
    expect(w.sandbox.service.ledger().map((e) => e.status)).toEqual([401]);
  });

  it('402 (no credits): says so, one request, nothing charged', async () => {
    const w = await open({ credits: 0 });
    await expectThrows(
      w,
      /^Out of credits \(HTTP 402\)\. .*The service said: "Insufficient credits: 1 credit is needed/,
    );
    expect(w.sandbox.service.ledger().map((e) => e.status)).toEqual([402]);
    expect(w.sandbox.service.totalCharged()).toBe(0);
  });

  it('404 (API_BASE_URL points at a wrong path): says to check API_BASE_URL, one request', async () => {
    const w = await open();
    // Each execution reads the script properties once, so the formula uses the wrong path set here
    // (test/e2e/store/scriptConfig.test.ts: a change reaches formulas, sidebar and run at once).
    w.env.scriptProperties.set({ API_BASE_URL: `${w.sandbox.origin}/api/v2/` });
    await expectThrows(
      w,
      /^The service address is wrong \(HTTP 404\)\. Check API_BASE_URL\. The service said: "Not Found"\.$/,
    );
    expect(w.sandbox.service.ledger().map((e) => [e.path, e.status])).toEqual([
      ['/api/v2/network_finder', 404],
    ]);
  });

  it('no key saved: tells the owner where to save one; no request', async () => {
    const w = await open({ ownerKey: false });
    await expectThrows(w, /^No API key is saved for the formulas of this spreadsheet\./);
    expect(w.sandbox.service.ledger()).toHaveLength(0);
  });

  it('a non-https base URL: a configuration error; no request', async () => {
    const w = await open({ scriptProperties: { API_BASE_URL: 'http://api.example.com/api/v1/' } });
    await expectThrows(w, /must be an https:\/\/ URL/);
    expect(w.env.fetches).toHaveLength(0);
  });

  it('shows the error on the formula cell (#ERROR!, message on hover)', async () => {
    const w = await open({ credits: 0 });
    w.env.enter(w.ss.id, 'A1:B1', [[url('jane-doe'), '=FINDEMAIL(A1)']]);
    await w.env.recalculate(w.ss.id);
    expect(w.env.values(w.ss.id, 'B1')).toEqual([['#ERROR!']]);
    expect(w.env.cell(w.ss.id, 'B1')?.error).toMatch(/^Out of credits/);
  });
});

describe('checkApiKey spends no credit', () => {
  it('a good key: works, one request answered 400, nothing charged', async () => {
    const w = await open({ credits: 7 });
    expect(await w.env.run('checkApiKey', [], w.as())).toEqual({
      ok: true,
      message: 'The API key works. Checking it spent no credit.',
    });
    expect(w.sandbox.service.ledger().map((e) => [e.status, e.charged])).toEqual([[400, 0]]);
    expect(w.sandbox.service.credits(ORG)).toBe(7);
  });

  it('a good key on an account without credits still checks as working', async () => {
    const w = await open({ credits: 0 });
    expect(await w.env.run('checkApiKey', [], w.as())).toMatchObject({ ok: true });
  });

  it('a wrong key: rejected with the service text, never the key', async () => {
    const w = await open();
    w.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: 'not-the-right-key-123' });
    const result = await w.env.run('checkApiKey', [], w.as());
    expect(result).toEqual({
      ok: false,
      message: `The service rejected this API key. Get a valid key in Account › API settings in the service's dashboard, then save it here. The service said: "${MESSAGES.unauthorized}".`,
    });
    expect(JSON.stringify(result)).not.toContain('not-the-right-key-123');
    expect(w.sandbox.service.totalCharged()).toBe(0);
  });

  it('a wrong base path: says so', async () => {
    const w = await open();
    w.env.scriptProperties.set({ API_BASE_URL: `${w.sandbox.origin}/wrong/` });
    expect(await w.env.run('checkApiKey', [], w.as())).toEqual({
      ok: false,
      message:
        'Could not check the API key: The service address is wrong (HTTP 404). Check API_BASE_URL. The service said: "Not Found".',
    });
  });

  it('no key, or no valid base URL: no request at all', async () => {
    const w = await open({ ownerKey: false });
    expect(await w.env.run('checkApiKey', [], w.as())).toEqual({
      ok: false,
      message: "No API key is saved yet. Get one in Account › API settings in the service's dashboard.",
    });
    w.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: OWNER_KEY });
    w.env.scriptProperties.set({ API_BASE_URL: 'ftp://api.example.com/' });
    const misconfigured = (await w.env.run('checkApiKey', [], w.as())) as { ok: boolean; message: string };
    expect(misconfigured.ok).toBe(false);
    expect(misconfigured.message).toMatch(/misconfigured.*must be an https:\/\/ URL/);
    expect(w.env.fetches).toHaveLength(0);
  });
});
