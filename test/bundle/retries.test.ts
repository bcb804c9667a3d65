/**
 * Retries and fetchAll isolation through dist/Code.js and the sandbox: what is retried (500, 429, 5xx HTML), how
 * often (DEFAULT_RETRY.maxAttempts) and after which delays, and what one failing request of a fetchAll batch costs
 * the others: an answer lost on the way (a reset) may have been charged, so it is kept as lost and never sent again
 * unasked.
 */
import { buildLookupResponse } from '../../sandbox/profiles';
import { DEFAULT_RETRY } from '../../src/core/limits';
import { retryDelayMs } from '../../src/store/send';
import { startWorld, url, type World } from '../support/harness';
import { findEmail, findEmailRow, requestsFor } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The =FINDEMAIL row the sandbox's answer for `input` must give. */
function expectedRow(input: string): unknown[] {
  const answer = buildLookupResponse(input);
  if (answer.status !== 200 || answer.body.status !== 'success' || !answer.body.email_address)
    throw new Error(`${input} is not a found profile`);
  const body = answer.body;
  return [
    body.email_address,
    'VALID',
    body.is_catch_all,
    'professional',
    body.profile.name,
    body.profile.updated_at,
    '',
  ];
}

/** The note of a row whose answer was lost to a connection reset. */
const LOST_NOTE =
  'The answer was lost on the way: the service could not be reached (Address unavailable); the service may have charged a credit. It is not looked up again unless you ask: select its URL, choose Find e-mails for the selected column, then Retry failed rows (1 credit).';
const LOST_ROW = ['', 'ERROR', '', '', '', '', LOST_NOTE];

it('a 500, a 429 or a 502 HTML page once: found on the second request, charged once; a reset: lost, sent once, not again', async () => {
  world = await startWorld({
    faults: {
      latencyMs: [0, 20],
      failFirst: {
        'amy-lee': { kind: '500', times: 1 },
        'bob-ray': { kind: '429', times: 1 },
        'cy-twombly': { kind: 'html', times: 1 },
        'dora-maar': { kind: 'reset', times: 1 },
      },
    },
  });
  const w = world;
  const cases: Array<[string, string | number]> = [
    ['amy-lee', 500],
    ['bob-ray', 429],
    ['cy-twombly', 502],
  ];
  const slugs = [...cases.map(([slug]) => slug), 'dora-maar'];
  const rows = await Promise.all(slugs.map((slug) => findEmailRow(w, url(slug))));
  cases.forEach(([slug, firstStatus], index) => {
    expect(rows[index]).toEqual(expectedRow(url(slug)));
    expect(requestsFor(w, slug).map((e) => [e.status, e.charged])).toEqual([
      [firstStatus, 0],
      [200, 1],
    ]);
  });
  // The reset's answer may have been charged: ERROR saying it was lost, and not sent again (the reset would not
  // come a second time).
  expect(rows[3]).toEqual(LOST_ROW);
  expect(requestsFor(w, 'dora-maar').map((e) => [e.status, e.charged])).toEqual([['reset', 0]]);
  expect(await findEmailRow(w, url('dora-maar'))).toEqual(LOST_ROW);
  expect(requestsFor(w, 'dora-maar')).toHaveLength(1);
});

it('always 500 (`broken`): exactly maxAttempts requests, spaced by the growing backoff, then ERROR', async () => {
  world = await startWorld({ faults: { latencyMs: 0 } });
  const row = await findEmailRow(world, url('jane-broken'));
  expect(row[1]).toBe('ERROR');
  const entries = requestsFor(world, 'jane-broken');
  expect(entries).toHaveLength(DEFAULT_RETRY.maxAttempts);
  expect(DEFAULT_RETRY.maxAttempts).toBeGreaterThanOrEqual(2);
  for (let n = 1; n < entries.length; n++) {
    // Try n+1 starts at least the backoff delay after try n started (a lower bound: no timing race).
    const gap = entries[n].startedAt - entries[n - 1].startedAt;
    expect(gap).toBeGreaterThanOrEqual(retryDelayMs(n + 1) - 5);
  }
});

it('the backoff grows exponentially and is capped by maxDelayMs', () => {
  const delays = Array.from({ length: 12 }, (_, i) => retryDelayMs(i + 2));
  expect(delays[1]).toBe(delays[0] * 2);
  expect(Math.max(...delays)).toBe(DEFAULT_RETRY.maxDelayMs);
  // The worst case a custom function can spend sleeping stays far inside its 30 s limit.
  const sleeping = delays.slice(0, DEFAULT_RETRY.maxAttempts - 1).reduce((a, b) => a + b, 0);
  expect(sleeping).toBeLessThan(10_000);
});

describe('fetchAll: one reset in a batch of 10 loses every answer of it', () => {
  const slugs = [
    'ann-able',
    'ben-baker',
    'cat-cole',
    'dan-dunn',
    'eve-east',
    'fred-ford',
    'gil-gray',
    'hal-hunt',
    'ivy-ince',
    'jon-jury',
  ];
  const failing = 'ivy-ince';
  const inputs = slugs.map((slug) => url(slug));

  /** The lookups, without key checks (free; none is sent at a fixed batch size). */
  function paidRequests(w: World) {
    const ledger = w.sandbox.service.ledger();
    for (const check of ledger.filter((entry) => entry.keyCheck)) expect(check.charged).toBe(0);
    return ledger.filter((entry) => !entry.keyCheck);
  }

  async function runBatch(times: number) {
    // Batches of 10 at most (FETCH_MAX_CONCURRENCY).
    world = await startWorld({
      faults: { latencyMs: [0, 30], failFirst: { [failing]: { kind: 'reset', times } } },
      scriptProperties: { FETCH_MAX_CONCURRENCY: '10' },
    });
    // A first formula proves the account works, so the range's 10 URLs then go out in one fetchAll
    // (on a cold account =FINDEMAIL checks it with a single request first).
    await findEmailRow(world, url('zed-zane'));
    world.sandbox.service.resetLedger();
    const result = await findEmail(
      world,
      inputs.map((input) => [input]),
    );
    if (!result.ok) throw new Error(result.error?.message);
    return { w: world, rows: result.value as unknown[][], counts: result.counts };
  }

  it.each([
    ['once', 1],
    ['every time', 99],
  ])(
    'a reset %s: the batch is sent once, every answer of it lost, the 9 charged once, nothing sent again',
    async (_name, times) => {
      const { w, rows, counts } = await runBatch(times);
      // fetchAll threw for the whole batch: no answer of it arrived, each may have been charged.
      expect(rows).toEqual(slugs.map(() => LOST_ROW));
      expect(counts['UrlFetchApp.fetchAll']).toBe(1);
      expect(counts['UrlFetchApp.fetch'] ?? 0).toBe(0);
      const charges = w.charges();
      for (const slug of slugs.filter((s) => s !== failing))
        expect(charges[`https://network.com/in/${slug}`]).toBe(1);
      expect(charges[`https://network.com/in/${failing}`]).toBeUndefined();
      expect(requestsFor(w, failing).map((e) => [e.status, e.charged])).toEqual([['reset', 0]]);
      expect(paidRequests(w)).toHaveLength(10);
      // A recalculation shows the same rows and costs nothing: the lost answers are kept, not bought again.
      const before = w.sandbox.service.ledger().length;
      const again = await findEmail(
        w,
        inputs.map((input) => [input]),
      );
      expect(again.ok).toBe(true);
      expect(again.value).toEqual(rows);
      expect(again.counts['UrlFetchApp.fetchAll'] ?? 0).toBe(0);
      expect(w.sandbox.service.ledger()).toHaveLength(before);
    },
  );
});
