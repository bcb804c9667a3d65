/**
 * "Freeze results" (freezeResults on the selection) through dist/Code.js: =FINDEMAIL formulas become their values,
 * whole spilled results included; the user's other formulas and formulas showing an error stay; an address
 * starting with "=" stays text; a formula still computing (Loading...) or showing an error is never made text.
 */
import { FORMULA_EMAIL } from '../../../sandbox/profiles';
import { waitFor } from '../../sandbox/helpers';
import { startWorld, url, type World } from '../../support/harness';
import { emailOf, lookups } from './helpers';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

test('freezes =FINDEMAIL formulas in the selection and nothing else; they never run again', async () => {
  const jane = url('jane-doe');
  const evil = url('formula-eve-smith');
  const nobody = url('noemail-no-one');
  world = await startWorld({
    data: [
      ['URL', 'Email', 'Other', 'Range', 'Fields', '', 'Bad'],
      [jane, '=FINDEMAIL(A2)', '=LEN(A2)', '=FINDEMAIL(A2:A4)', '=FINDEMAIL(A3, "email,status")', '', ''],
      [evil, '=FINDEMAIL(A3)', '', '', '', '', ''],
      [nobody, '=FINDEMAIL(A4)', '', '', '', '', ''],
    ],
  });
  world.env.enter(world.ss.id, 'G2', [['=FINDEMAIL(A2, "nope")']]);
  await world.env.recalculate(world.ss.id);
  const expected = [emailOf(jane), FORMULA_EMAIL, 'NOT_FOUND'];
  expect(world.env.values(world.ss.id, 'B2:B4').map((r) => r[0])).toEqual(expected);
  expect(world.env.values(world.ss.id, 'G2')).toEqual([['#ERROR!']]);
  const requests = lookups(world).length;

  // Selected: B2:E2 and G2 (row 2 only). D2's result spills to D3:D4, outside the selection; E2's to F2.
  world.env.select(world.ss.id, 'B2:G2');
  const message = String(await world.env.run('freezeResults', [], world.as()));
  expect(message).toMatch(/Froze 3 =FINDEMAIL formulas/);
  expect(message).toMatch(/1 formula showing an error was left/);
  expect(world.env.ui.toasts.map((t) => t.message)).toContain(message);

  expect(world.env.formulas(world.ss.id, 'B2:G2')).toEqual([
    ['', '=LEN(A2)', '', '', '', '=FINDEMAIL(A2, "nope")'],
  ]);
  expect(world.env.values(world.ss.id, 'B2')).toEqual([[emailOf(jane)]]);
  // The whole spilled result is frozen, not only the selected anchor.
  expect(world.env.values(world.ss.id, 'D2:D4').map((r) => r[0])).toEqual(expected);
  expect(world.env.cell(world.ss.id, 'D3')?.spilledFrom).toBeUndefined();
  // The "=…" address stays text, in the anchor's area and in its spill.
  expect(world.env.formulas(world.ss.id, 'D3')).toEqual([['']]);
  expect(world.env.values(world.ss.id, 'D3')).toEqual([[FORMULA_EMAIL]]);
  expect(world.env.values(world.ss.id, 'E2:F2')).toEqual([[FORMULA_EMAIL, 'VALID']]);
  expect(world.env.formulas(world.ss.id, 'E2:F2')).toEqual([['', '']]);
  // Rows 3 and 4 of column B were not selected: still formulas.
  expect(world.env.formulas(world.ss.id, 'B3:B4')).toEqual([['=FINDEMAIL(A3)'], ['=FINDEMAIL(A4)']]);

  // Freezing the rest: B3 (an address starting with "=") stays text, not a formula.
  world.env.select(world.ss.id, 'B3:B4');
  expect(String(await world.env.run('freezeResults', [], world.as()))).toMatch(/Froze 2 /);
  expect(world.env.formulas(world.ss.id, 'B3:B4')).toEqual([[''], ['']]);
  expect(world.env.values(world.ss.id, 'B3:B4')).toEqual([[FORMULA_EMAIL], ['NOT_FOUND']]);

  // Frozen cells never run again: only G2 (the error) is still a custom function, and it sends nothing.
  const report = await world.env.recalculate(world.ss.id);
  expect(report.evaluated).toBe(1);
  expect(lookups(world)).toHaveLength(requests);
});

test('a selection without =FINDEMAIL formulas changes nothing', async () => {
  world = await startWorld({
    data: [
      ['URL', 'x'],
      [url('jane-doe'), '=LEN(A2)'],
    ],
  });
  world.env.select(world.ss.id, 'A1:B2');
  expect(await world.env.run('freezeResults', [], world.as())).toBe(
    'No =FINDEMAIL formulas in the selection.',
  );
  expect(world.env.formulas(world.ss.id, 'B2')).toEqual([['=LEN(A2)']]);
  expect(world.env.values(world.ss.id, 'A2')).toEqual([[url('jane-doe')]]);
});

test('a formula still computing (Loading...) or showing an error stays a formula; frozen once it shows its result', async () => {
  const kim = url('kim-lund');
  const lee = url('lee-moss');
  world = await startWorld({
    data: [
      ['URL', 'Email', 'Range', ''],
      [kim, '=FINDEMAIL(A2)', '=FINDEMAIL(A2:A3)', ''],
      [lee, '', 'in the way', ''],
    ],
  });
  const service = world.sandbox.service;
  // The lookups are held by the test: the cells read Loading... until the freeze has run, however slow the machine.
  const release = service.hold();
  let recalculation: Promise<unknown> = Promise.resolve();
  try {
    recalculation = world.env.recalculate(world.ss.id);
    await waitFor(() => service.held > 0, 20_000);
    expect(world.env.values(world.ss.id, 'B2:C2')).toEqual([['Loading...', 'Loading...']]);
    world.env.select(world.ss.id, 'B2:C2');
    const during = String(await world.env.run('freezeResults', [], world.as()));
    expect(during).toMatch(/No =FINDEMAIL formula was frozen/);
    expect(during).toMatch(/2 formulas still computing \(Loading\.\.\.\) were left as formulas/);
    expect(world.env.formulas(world.ss.id, 'B2:C2')).toEqual([['=FINDEMAIL(A2)', '=FINDEMAIL(A2:A3)']]);
  } finally {
    release();
  }
  await recalculation;
  // B2 shows its address; C2's result cannot spill over "in the way": #REF!, an error, left as a formula.
  expect(world.env.values(world.ss.id, 'B2:C2')).toEqual([[emailOf(kim), '#REF!']]);
  const after = String(await world.env.run('freezeResults', [], world.as()));
  expect(after).toMatch(/Froze 1 =FINDEMAIL formula:/);
  expect(after).toMatch(/1 formula showing an error was left/);
  expect(world.env.formulas(world.ss.id, 'B2:C2')).toEqual([['', '=FINDEMAIL(A2:A3)']]);
  expect(world.env.values(world.ss.id, 'B2')).toEqual([[emailOf(kim)]]);
  expect(world.env.values(world.ss.id, 'C3')).toEqual([['in the way']]);
});
