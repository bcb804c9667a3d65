/**
 * =FINDEMAIL through dist/Code.js, evaluated by the emulator's recalculation against the sandbox:
 * a single URL, a 2-D range, output fields, the result markers, and the JSDoc Sheets shows for autocomplete.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { customFunctionNames, DIST_DIR } from '../../../emulator';
import { normalizeProfileUrl, UNPROCESSABLE_MESSAGE } from '../../../sandbox/profiles';
import { sentFor, startWorld, url, type World } from '../../support/harness';
import { cellError, emailOf, lookups } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

test('=FINDEMAIL(url) shows the address and charges one credit', async () => {
  const jane = url('jane-doe');
  world = await startWorld({
    data: [
      ['Profile URL', 'Email'],
      [jane, '=FINDEMAIL(A2)'],
    ],
  });
  const report = await world.env.recalculate(world.ss.id);
  expect(report.evaluated).toBe(1);
  expect(report.results[0].ok).toBe(true);
  expect(world.env.values(world.ss.id, 'B2')).toEqual([[emailOf(jane)]]);
  expect(world.charges()).toEqual({ [normalizeProfileUrl(jane)]: 1 });
});

test('a 2-D range keeps its shape; blank cells give "" and send no request', async () => {
  const a = url('ann-lee');
  const b = url('bob-ray');
  const c = url('cy-twombly');
  world = await startWorld({
    data: [
      ['URL', 'URL'],
      [a, ''],
      ['', b],
      [c, ''],
    ],
  });
  world.env.enter(world.ss.id, 'D2', [['=FINDEMAIL(A2:B4)']]);
  await world.env.recalculate(world.ss.id);
  expect(world.env.values(world.ss.id, 'D2:E4')).toEqual([
    [emailOf(a), ''],
    ['', emailOf(b)],
    [emailOf(c), ''],
  ]);
  expect(world.env.cell(world.ss.id, 'D2')?.spill).toEqual({ rows: 3, cols: 2 });
  expect(
    lookups(world)
      .map((entry) => entry.networkUrl)
      .sort(),
  ).toEqual([a, b, c].map(sentFor).sort());

  // A range of blanks only: the same shape of "", no request at all.
  world.env.enter(world.ss.id, 'G2', [['=FINDEMAIL(H2:I3)']]);
  const before = lookups(world).length;
  await world.env.recalculate(world.ss.id, { cells: [{ a1: 'G2' }] });
  expect(world.env.values(world.ss.id, 'G2:H3')).toEqual([
    ['', ''],
    ['', ''],
  ]);
  expect(lookups(world)).toHaveLength(before);
});

test('fields: one row per URL with the named outputs, in the order given', async () => {
  const jane = url('jane-doe');
  const mary = url('mary-ann-smith-7');
  world = await startWorld({ data: [['URL'], [jane], [''], [mary]] });
  world.env.enter(world.ss.id, 'C2', [['=FINDEMAIL(A2, "status, email ,catch_all,name")']]);
  world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A4, "email,name,updated_at")']]);
  await world.env.recalculate(world.ss.id);

  const single = world.env.values(world.ss.id, 'C2:F2')[0];
  expect(single).toEqual(['VALID', emailOf(jane), expect.any(Boolean), 'Jane Doe']);
  const rows = world.env.values(world.ss.id, 'H2:J4');
  expect(rows[0].slice(0, 2)).toEqual([emailOf(jane), 'Jane Doe']);
  expect(rows[1]).toEqual(['', '', '']);
  expect(rows[2].slice(0, 2)).toEqual([emailOf(mary), 'Mary Ann Smith']);
  for (const row of [rows[0], rows[2]]) expect(String(row[2])).toMatch(/^\d{4}-\d\d-\d\dT/);
  // jane looked up once for both formulas.
  expect(world.charges()).toEqual({ [normalizeProfileUrl(jane)]: 1, [normalizeProfileUrl(mary)]: 1 });
});

test('=FINDEMAIL() with no argument says how to use it; an empty cell stays empty; nothing is sent', async () => {
  world = await startWorld({
    data: [
      ['URL', 'x'],
      ['', '=FINDEMAIL()'],
      ['', '=FINDEMAIL(A3)'],
    ],
  });
  await world.env.recalculate(world.ss.id);
  expect(world.env.values(world.ss.id, 'B2')).toEqual([['#ERROR!']]);
  expect(cellError(world, 'B2')).toBe(
    'Give =FINDEMAIL a profile URL or the cell holding one, e.g. =FINDEMAIL(A2), or a column: =FINDEMAIL(A2:A200).',
  );
  expect(world.env.values(world.ss.id, 'B3')).toEqual([['']]);
  expect(lookups(world)).toHaveLength(0);
});

test('unknown field names give an error listing the valid ones, and spend nothing', async () => {
  world = await startWorld({
    data: [
      ['URL', 'x'],
      [url('jane-doe'), '=FINDEMAIL(A2, "email,phone")'],
    ],
  });
  await world.env.recalculate(world.ss.id);
  expect(world.env.values(world.ss.id, 'B2')).toEqual([['#ERROR!']]);
  const message = cellError(world, 'B2') ?? '';
  expect(message).toContain('"phone"');
  for (const field of ['email', 'status', 'catch_all', 'account_type', 'name', 'updated_at']) {
    expect(message).toContain(field);
  }
  expect(lookups(world)).toHaveLength(0);
});

test('found, NOT_FOUND, UNPROCESSABLE, INVALID_URL, empty and ERROR are told apart', async () => {
  const found = url('jane-doe');
  const notFound = url('noemail-jim-beam');
  const unprocessable = url('anonymous-x');
  const broken = url('broken-kim-possible');
  world = await startWorld({
    data: [['URL'], [found], [notFound], [unprocessable], ['not a profile url'], [''], [broken]],
  });
  world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2:A7)']]);
  world.env.enter(world.ss.id, 'D2', [['=FINDEMAIL(A2:A7, "status,note")']]);
  await world.env.recalculate(world.ss.id);

  const plain = world.env.values(world.ss.id, 'B2:B7').map((row) => row[0]);
  expect(plain[0]).toBe(emailOf(found));
  expect(plain[1]).toBe('NOT_FOUND');
  expect(plain[2]).toBe(
    `UNPROCESSABLE: The service could not process this profile (HTTP 422). The service said: "${UNPROCESSABLE_MESSAGE}".`,
  );
  expect(plain[3]).toMatch(/^INVALID_URL: /);
  expect(plain[4]).toBe('');
  expect(plain[5]).toMatch(/^ERROR: /);
  expect(new Set(plain).size).toBe(plain.length);

  const status = world.env.values(world.ss.id, 'D2:D7').map((row) => row[0]);
  expect(status).toEqual(['VALID', 'NOT_FOUND', 'UNPROCESSABLE', 'INVALID_URL', '', 'ERROR']);

  // Invalid input spends nothing and is never sent; the 500s of `broken` charge nothing.
  const sent = lookups(world).map((entry) => entry.networkUrl);
  expect(sent).not.toContain('not a profile url');
  expect(world.charges()).toEqual({
    [normalizeProfileUrl(found)]: 1,
    [normalizeProfileUrl(notFound)]: 1,
    [normalizeProfileUrl(unprocessable)]: 1,
  });

  // Errors are not cached as results: a recalculation asks again for `broken`, and for nothing else.
  const before = lookups(world).length;
  await world.env.recalculate(world.ss.id, { cells: [{ a1: 'B2' }] });
  const again = lookups(world).slice(before);
  expect(again.length).toBeGreaterThan(0);
  expect(again.every((entry) => entry.networkUrl === sentFor(broken))).toBe(true);
});

test('dist/Code.js declares FINDEMAIL with its JSDoc, @customfunction and parameter examples', () => {
  const code = readFileSync(join(DIST_DIR, 'Code.js'), 'utf8');
  expect(customFunctionNames(code)).toContain('FINDEMAIL');
  const doc = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*function\s+FINDEMAIL\s*\(\s*url\s*,\s*fields\s*\)/.exec(code);
  expect(doc).not.toBeNull();
  const text = doc?.[1] ?? '';
  expect(text).toMatch(/@customfunction/);
  expect(text).toMatch(/@param\s+\{[^}]+\}\s+url\b[^\n]*A2/);
  expect(text).toMatch(/@param\s+\{[^}]+\}\s+fields\b[^\n]*"email,status,catch_all"/);
  expect(text).toMatch(/API key of the spreadsheet's owner \(in a shared drive, the file's creator\)/);
  expect(text).toContain('Extensions › Profile Email Finder › Refresh =FINDEMAIL cells');
  expect(text).not.toMatch(/recalculat/i);
  expect(text).toMatch(/@return/);
});
