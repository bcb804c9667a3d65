/**
 * Account-level failures of =FINDEMAIL (no key, 401, 402, no service address): an Error telling what to do,
 * never the key; the back-off after a 401/402; and whose key formulas spend (the owner's).
 */

import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  OWNER,
  OWNER_KEY,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { cellError, column, emailOf, fillDown, lookups, recalculateInWaves } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * The back-off window after a 401/402 as the bundle announces it in a cell ("… formulas call the service again after N minutes at the earliest"),
 * read from what it shows, not from its code (dist/Code.js is minified).
 */
function announcedHaltSeconds(w: World, a1: string): number {
  const minutes = /call the service again after (\d+) minutes?\b/.exec(cellError(w, a1) ?? '')?.[1];
  if (!minutes) throw new Error(`${a1} announces no back-off window: ${cellError(w, a1)}`);
  return Number(minutes) * 60;
}

const SETTINGS = /Extensions › Profile Email Finder › Settings & API key/;

/** Nothing the user can see or the logs hold contains `key`. */
function expectKeyNowhere(w: World, key: string): void {
  for (const line of w.env.logs) expect(line.message).not.toContain(key);
  for (const result of w.env.executions) {
    expect(result.error?.message ?? '').not.toContain(key);
    expect(JSON.stringify(result.value ?? null)).not.toContain(key);
  }
  const sheet = w.ss.activeSheet();
  for (const { cell } of sheet.formulaCells()) {
    expect(String(cell.value)).not.toContain(key);
    expect(cell.error ?? '').not.toContain(key);
  }
}

test('no key saved: the error tells the owner where to save one, and nothing is sent', async () => {
  world = await startWorld({
    ownerKey: false,
    data: [
      ['URL', 'x'],
      [url('jane-doe'), '=FINDEMAIL(A2)'],
    ],
  });
  await world.env.recalculate(world.ss.id);
  expect(world.env.values(world.ss.id, 'B2')).toEqual([['#ERROR!']]);
  const message = cellError(world, 'B2') ?? '';
  expect(message).toMatch(/No API key/);
  expect(message).toMatch(/owner/);
  expect(message).toMatch(SETTINGS);
  expect(lookups(world)).toHaveLength(0);
});

test('a rejected key (401): what to do, never the key; no request again during the back-off', async () => {
  const wrongKey = 'wrong-key-0123456789abcdef';
  world = await startWorld({
    data: [
      ['URL', 'x'],
      [url('jane-doe'), '=FINDEMAIL(A2)'],
    ],
  });
  world.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: wrongKey });
  await world.env.recalculate(world.ss.id);
  const message = cellError(world, 'B2') ?? '';
  expect(message).toMatch(/API key was rejected/);
  expect(message).toMatch(SETTINGS);
  expect(message).not.toContain(wrongKey);
  // The sandbox checks the key before the body: a 401 carries no profile URL in the ledger.
  const ledger = () => world?.sandbox.service.ledger() ?? [];
  expect(ledger().map((entry) => entry.status)).toEqual([401]);

  await world.env.recalculate(world.ss.id);
  expect(cellError(world, 'B2')).toBe(message);
  expect(ledger()).toHaveLength(1);
  expectKeyNowhere(world, wrongKey);
  expectKeyNowhere(world, OWNER_KEY);
});

test('no credits (402): the error says to add credits, never the key', async () => {
  world = await startWorld({
    credits: 0,
    data: [
      ['URL', 'x'],
      [url('jane-doe'), '=FINDEMAIL(A2)'],
    ],
  });
  await world.env.recalculate(world.ss.id);
  const message = cellError(world, 'B2') ?? '';
  expect(message).toMatch(/credits/i);
  // Whose credits, and what to do after a top-up: Check, then the refresh item (a formula does not run again alone).
  expect(message).toContain("Formulas spend the credits of the spreadsheet's owner (in a shared drive");
  expect(message).toContain(
    'press Check in Extensions › Profile Email Finder › Settings & API key (Settings tab)',
  );
  expect(message).toContain('then use Extensions › Profile Email Finder › Refresh =FINDEMAIL cells');
  expect(lookups(world).map((entry) => entry.status)).toEqual([402]);
  expectKeyNowhere(world, OWNER_KEY);
});

test('service not configured: the error names the setting, and nothing is sent', async () => {
  world = await startWorld({
    scriptProperties: { API_BASE_URL: 'http://example.com/api/v1' },
    data: [
      ['URL', 'x'],
      [url('jane-doe'), '=FINDEMAIL(A2)'],
    ],
  });
  await world.env.recalculate(world.ss.id);
  const message = cellError(world, 'B2') ?? '';
  expect(message).toMatch(/misconfigured/);
  expect(message).toMatch(/https:\/\//);
  expect(lookups(world)).toHaveLength(0);
  expect(world.env.fetches).toHaveLength(0);
});

test("an editor's recalculation spends the owner's key; without one the error says it is the owner's", async () => {
  const jane = url('jane-doe');
  world = await startWorld({
    data: [
      ['URL', 'x'],
      [jane, '=FINDEMAIL(A2)'],
    ],
  });
  world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
  await world.env.recalculate(world.ss.id, { user: EDITOR });
  expect(world.env.values(world.ss.id, 'B2')).toEqual([[emailOf(jane)]]);
  expect(lookups(world).map((entry) => entry.organization)).toEqual([ORG]);
  expect(world.sandbox.service.credits(EDITOR_ORG)).toBe(1000);

  // The owner removes their key: the editor's own key is not used, and the message says why.
  world.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: '' });
  world.env.enter(world.ss.id, 'A3:B3', [[url('mary-ann-smith'), '=FINDEMAIL(A3)']]);
  await world.env.recalculate(world.ss.id, { user: EDITOR, cells: [{ a1: 'B3' }] });
  const message = cellError(world, 'B3') ?? '';
  expect(message).toMatch(/No API key is saved for the formulas of this spreadsheet/);
  expect(message).toMatch(
    /the spreadsheet's owner \(in a shared drive, where no one owns the file, the person who created it; after a transfer of ownership, the new owner\)/,
  );
  expect(message).toContain('Extensions › Profile Email Finder › Refresh =FINDEMAIL cells');
  expect(lookups(world)).toHaveLength(1);
  expectKeyNowhere(world, EDITOR_KEY);
});

test('after a 402, 200 formula cells send nothing until the back-off window passes, then at most one wave', async () => {
  const urls = Array.from({ length: 200 }, (_, i) =>
    url(`person-${String.fromCharCode(97 + (i % 26))}-${i}`),
  );
  world = await startWorld({ credits: 0, data: [['URL'], ...urls.map((u) => [u])] });
  fillDown(world, 'B', 'A', 2, 201);

  // 30 at once (Apps Script runs no more for one user), as a person gets the column done with Refresh.
  const first = await recalculateInWaves(world, 'B', 2, 201);
  expect(first).toBe(200);
  expect(column(world, 'B2:B201').every((value) => value === '#ERROR!')).toBe(true);
  for (let row = 2; row <= 201; row++) expect(cellError(world, `B${row}`)).toMatch(/credits/i);
  const haltSeconds = announcedHaltSeconds(world, 'B2');
  const afterFirst = lookups(world).length;
  expect(afterFirst).toBeGreaterThanOrEqual(1);
  expect(afterFirst).toBeLessThanOrEqual(5);

  // Inside the window: 200 more evaluations, not one request.
  await recalculateInWaves(world, 'B', 2, 201);
  expect(lookups(world)).toHaveLength(afterFirst);

  // Past the window it tries again: the cells of the first wave that claimed before the first 402 came back (a 402
  // is free), then nothing more while credits are missing.
  world.env.advanceClock((haltSeconds + 5) * 1000);
  await recalculateInWaves(world, 'B', 2, 201);
  const afterWindow = lookups(world).length - afterFirst;
  expect(afterWindow).toBeGreaterThanOrEqual(1);
  expect(afterWindow).toBeLessThanOrEqual(30);
  expect(world.sandbox.service.totalCharged()).toBe(0);

  // With credits again (and the window over), every cell resolves, each URL charged once.
  world.sandbox.service.setCredits(ORG, 1000);
  world.env.advanceClock((haltSeconds + 5) * 1000);
  await recalculateInWaves(world, 'B', 2, 201);
  expect(column(world, 'B2:B201')).toEqual(urls.map(emailOf));
  expect(Object.values(world.charges())).toEqual(new Array(200).fill(1));
  expect(lookups(world).every((entry) => entry.status === 402 || entry.status === 200)).toBe(true);
});

test('credits running out during a recalculation: failing requests stop, and re-evaluation sends none', async () => {
  const urls = Array.from({ length: 120 }, (_, i) =>
    url(`runner-${String.fromCharCode(97 + (i % 26))}-${i}`),
  );
  world = await startWorld({
    credits: 40,
    data: [['URL'], ...urls.map((u) => [u])],
    env: { maxConcurrent: 16 },
  });
  fillDown(world, 'B', 'A', 2, 121);
  await recalculateInWaves(world, 'B', 2, 121);
  const found = column(world, 'B2:B121').filter((value) => value !== '#ERROR!');
  expect(found).toHaveLength(40);
  const failing = lookups(world).filter((entry) => entry.status === 402).length;
  // At most one failing request per cell evaluating at once (16 at a time here).
  expect(failing).toBeGreaterThanOrEqual(1);
  expect(failing).toBeLessThanOrEqual(16);

  const before = lookups(world).length;
  await recalculateInWaves(world, 'B', 2, 121);
  expect(lookups(world)).toHaveLength(before);
  // The 40 paid results stay visible from the cache; the rest show the credits error.
  expect(column(world, 'B2:B121').filter((value) => value !== '#ERROR!')).toEqual(found);
});
