/**
 * Never billed twice, proven by the sandbox's ledger: a mixed 200-row range, recalculation, a reload,
 * duplicates, =FINDEMAIL after the bulk menu action, and many cells evaluating the same URL at once.
 */
import { normalizeProfileUrl, UNPROCESSABLE_MESSAGE } from '../../../sandbox/profiles';
import { LOCK_QUOTA, sentFor, startWorld, url, type World } from '../../support/harness';
import { column, emailOf, fillDown, lookups } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

const NAMES = ['alice', 'bruno', 'chen', 'dana', 'emeka', 'fatima', 'goran', 'hana', 'ivan', 'julia'];

type Kind = 'valid' | 'duplicate' | 'blank' | 'invalid' | 'unprocessable' | 'flaky' | 'notFound';
const PATTERN: Kind[] = [
  'valid',
  'valid',
  'duplicate',
  'blank',
  'invalid',
  'unprocessable',
  'valid',
  'notFound',
];

/** 200 rows: the kind of each row, the cell value, and what =FINDEMAIL must show for it. */
function mixedRows(): Array<{ kind: Kind; value: unknown; expected: string | RegExp }> {
  const rows: Array<{ kind: Kind; value: unknown; expected: string | RegExp }> = [];
  const valid: string[] = [];
  for (let i = 0; i < 200; i++) {
    const name = `${NAMES[i % NAMES.length]}-${NAMES[(i * 7) % NAMES.length]}-${i}`;
    const kind: Kind = i % 40 === 9 ? 'flaky' : PATTERN[i % PATTERN.length];
    switch (kind) {
      case 'valid': {
        const u = url(name);
        valid.push(u);
        rows.push({ kind, value: u, expected: emailOf(u) });
        break;
      }
      case 'duplicate': {
        // The same profile as an earlier row, written differently (case, www, trailing slash, query).
        const earlier = valid[(i * 3) % valid.length];
        const variant = `${earlier.replace('https://www.', 'http://WWW.').replace('network.com', 'Network.com')}/?utm_source=x`;
        rows.push({ kind, value: variant, expected: emailOf(earlier) });
        break;
      }
      case 'blank':
        rows.push({ kind, value: i % 16 === 3 ? '   ' : '', expected: '' });
        break;
      case 'invalid':
        rows.push({
          kind,
          value: i % 8 === 4 && i % 16 === 4 ? 12345 : `not a url ${i}`,
          expected: /^INVALID_URL: /,
        });
        break;
      case 'unprocessable':
        rows.push({
          kind,
          value: url(`anonymous-${name}`),
          expected: `UNPROCESSABLE: The service could not process this profile (HTTP 422). The service said: "${UNPROCESSABLE_MESSAGE}".`,
        });
        break;
      case 'flaky': {
        const u = url(`flaky-${name}`);
        rows.push({ kind, value: u, expected: emailOf(u) });
        break;
      }
      case 'notFound':
        rows.push({ kind, value: url(`noemail-${name}`), expected: 'NOT_FOUND' });
        break;
    }
  }
  return rows;
}

test('a mixed 200-row range: every cell right, each profile charged once, recalculation and reload free', async () => {
  const rows = mixedRows();
  world = await startWorld({
    env: LOCK_QUOTA,
    faults: { latencyMs: [0, 60] },
    data: [['URL'], ...rows.map((r) => [r.value])],
  });
  world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2:A201)']]);
  const first = await world.env.recalculate(world.ss.id);
  expect(first.results[0].ok).toBe(true);

  const shown = column(world, 'B2:B201');
  rows.forEach((row, i) => {
    if (row.expected instanceof RegExp) expect(shown[i]).toMatch(row.expected);
    else expect(shown[i]).toBe(row.expected);
  });

  const chargeable = new Set(
    rows
      .filter((r) => ['valid', 'unprocessable', 'flaky', 'notFound'].includes(r.kind))
      .map((r) => normalizeProfileUrl(String(r.value))),
  );
  expect(Object.keys(world.charges()).sort()).toEqual([...chargeable].sort());
  expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
  // Blanks and invalid rows were never sent; each flaky profile failed once (no charge), then passed.
  const sent = lookups(world);
  for (const row of rows.filter((r) => r.kind === 'blank' || r.kind === 'invalid')) {
    expect(sent.some((entry) => entry.networkUrl === row.value)).toBe(false);
  }
  for (const row of rows.filter((r) => r.kind === 'flaky')) {
    const canonical = sentFor(String(row.value));
    expect(sent.filter((entry) => entry.networkUrl === canonical).map((entry) => entry.status)).toEqual([
      500, 200,
    ]);
  }
  // Requests went out in parallel batches.
  expect(world.sandbox.service.maxConcurrent).toBeGreaterThan(1);

  // A second evaluation of the same sheet: no request.
  const count = sent.length;
  await world.env.recalculate(world.ss.id);
  expect(column(world, 'B2:B201')).toEqual(shown);
  expect(lookups(world)).toHaveLength(count);

  // A "reload": new executions, and the document cache gone too (claims, markers): still no request.
  world.env.documentCache(world.ss.id).entries.clear();
  world.env.userCache('owner@example.com').entries.clear();
  await world.env.recalculate(world.ss.id);
  expect(column(world, 'B2:B201')).toEqual(shown);
  expect(lookups(world)).toHaveLength(count);
});

test('the same URL in several cells and spellings is charged once', async () => {
  const jane = url('jane-doe');
  const spellings = [
    jane,
    'http://network.com/in/jane-doe/',
    'HTTPS://WWW.NETWORK.COM/in/jane-doe?x=1',
    jane,
  ];
  world = await startWorld({ env: LOCK_QUOTA, data: [['URL'], ...spellings.map((s) => [s])] });
  fillDown(world, 'B', 'A', 2, 5);
  world.env.enter(world.ss.id, 'C2', [['=FINDEMAIL(A2:A5)']]);
  await world.env.recalculate(world.ss.id);
  expect(column(world, 'B2:B5')).toEqual(new Array(4).fill(emailOf(jane)));
  expect(column(world, 'C2:C5')).toEqual(new Array(4).fill(emailOf(jane)));
  expect(world.charges()).toEqual({ [normalizeProfileUrl(jane)]: 1 });
  expect(lookups(world)).toHaveLength(1);
});

test('=FINDEMAIL after the bulk menu action enriched the same URLs: no request, no credit', async () => {
  const urls = [url('ada-lovelace'), url('alan-turing'), url('noemail-grace-hopper'), url('anonymous-z')];
  world = await startWorld({ env: LOCK_QUOTA, data: [['Profile URL'], ...urls.map((u) => [u])] });
  world.env.select(world.ss.id, 'A1:A5');
  let progress = (await world.env.run('enrichSelection', [], world.as())) as { state: string };
  for (let i = 0; i < 20 && progress.state !== 'done'; i++) {
    progress = (await world.env.run('continueEnrichment', [], world.as())) as { state: string };
  }
  expect(progress.state).toBe('done');
  const afterMenu = lookups(world).length;
  expect(afterMenu).toBe(4);

  world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A5)']]);
  fillDown(world, 'I', 'A', 2, 5);
  await world.env.recalculate(world.ss.id);
  const expected = [
    emailOf(urls[0]),
    emailOf(urls[1]),
    'NOT_FOUND',
    `UNPROCESSABLE: The service could not process this profile (HTTP 422). The service said: "${UNPROCESSABLE_MESSAGE}".`,
  ];
  expect(column(world, 'H2:H5')).toEqual(expected);
  expect(column(world, 'I2:I5')).toEqual(expected);
  expect(lookups(world)).toHaveLength(afterMenu);
  expect(Object.values(world.charges())).toEqual([1, 1, 1, 1]);
});

// 30 cells: Apps Script runs no more custom functions at once for one user (test/e2e/formula/refresh.test.ts: more).
test('a cold-cache stampede: 30 cells with the same URL evaluated at once send it once', async () => {
  const jane = url('jane-doe');
  const bob = url('bob-marley');
  // Every row holds jane; odd rows also ask for bob in a two-cell range that overlaps its neighbours.
  const data: unknown[][] = [['URL', 'Other']];
  for (let i = 0; i < 30; i++) data.push([i % 3 === 0 ? 'http://network.com/in/jane-doe/' : jane, bob]);
  world = await startWorld({ env: LOCK_QUOTA, faults: { latencyMs: 100 }, data });
  const formulas: string[][] = [];
  for (let row = 2; row <= 31; row++)
    formulas.push([row % 2 ? `=FINDEMAIL(A${row}:B${row})` : `=FINDEMAIL(A${row})`]);
  world.env.enter(world.ss.id, 'D2:D31', formulas);
  const report = await world.env.recalculate(world.ss.id);
  expect(report.evaluated).toBe(30);
  expect(report.results.every((r) => r.ok)).toBe(true);
  for (let row = 2; row <= 31; row++) {
    const expected = row % 2 ? [emailOf(jane), emailOf(bob)] : [emailOf(jane), ''];
    expect(world.env.values(world.ss.id, `D${row}:E${row}`)[0]).toEqual(expected);
  }
  expect(world.charges()).toEqual({ [normalizeProfileUrl(jane)]: 1, [normalizeProfileUrl(bob)]: 1 });
  expect(lookups(world)).toHaveLength(2);
});
