/**
 * A person's own table that merely looks like the add-on's output (Name | Email | Status | Phone | Notes, with
 * ACTIVE, VALID, ERROR, NOT_FOUND) comes through every edit untouched: on another sheet, beside the add-on's columns,
 * and in the columns the add-on wrote before columns were inserted before them. Only the add-on's recorded cells
 * change: an edited URL loses the old person's address, another spelling of it keeps its result.
 */
import { EDITOR, EDITOR_KEY, OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, expectedCells, mismatches, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TABLE = [
  ['Name', 'Email', 'Status', 'Phone', 'Notes'],
  ['Ann Lee', 'ann@acme.test', 'ACTIVE', '555-0101', 'met at fair'],
  ['Bob Ray', 'bob@acme.test', 'VALID', '555-0102', ''],
  ['Cy Dunn', '', 'ERROR', '555-0103', 'bounced'],
  ['Di Fox', '', 'NOT_FOUND', '555-0104', 'ask Bob'],
  ['Ed Gum', 'ed@acme.test', 'VALID', '555-0105', 'VIP'],
];

/** Every cell of the person's table, found by its Phone cell wherever its row went. */
function tableIntact(w: World, sheetName: string, left: string): void {
  const values = w.env.values(w.ss.id, 'A1:Z40', sheetName);
  const column = left.charCodeAt(0) - 64;
  for (const row of TABLE) {
    const at = values.findIndex((line) => line[column + 2] === row[3]);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(values[at].slice(column - 1, column + 4)).toEqual(row);
  }
}

it('edits, pastes, sorts and row inserts by two editors leave a look-alike table untouched wherever it is', async () => {
  const leads = [url('amy-oak'), url('ben-ash'), url('cat-elm'), url('dan-fir'), url('eve-gum')];
  world = await startWorld({ data: [['Profile'], ...leads.map((link) => [link])] });
  world.env.userProperties(EDITOR).set({ PEF_API_KEY: EDITOR_KEY });
  await start(world, 'A1:A6');
  expect((await drive(world)).state).toBe('done');
  const sheet = world.ss.sheets[0];
  // The table beside the add-on's columns (G:K), and on a sheet of its own.
  world.env.enter(world.ss.id, 'G1:K6', TABLE);
  const people = world.ss.addSheet('People');
  world.env.enter(world.ss.id, 'A1:E6', TABLE, people.name);
  // Four columns inserted before B: the add-on's results move to F:I, and the person's table goes into B:E.
  sheet.insertColumns(2, 4);
  world.env.enter(world.ss.id, 'B1:E1', [['Name', 'Email', 'Status', 'Phone']]);
  world.env.enter(
    world.ss.id,
    'B2:E6',
    TABLE.slice(1).map((row) => row.slice(0, 4)),
  );

  for (const user of [OWNER, EDITOR]) {
    // Single-cell edits of the person's cells, in every table.
    await world.env.edit(world.ss.id, 'B3', [['Bob Ray Jr']], { user });
    await world.env.edit(world.ss.id, 'O4', [['bounced twice']], { user });
    await world.env.edit(world.ss.id, 'A2', [['Ann Lee']], { user, sheetName: people.name });
    await world.env.edit(world.ss.id, 'B3', [['Bob Ray']], { user });
    await world.env.edit(world.ss.id, 'O4', [['bounced']], { user });
    // Pastes over several of the person's cells, the same values again.
    await world.env.edit(
      world.ss.id,
      'K2:L3',
      TABLE.slice(1, 3).map((row) => row.slice(0, 2)),
      { user },
    );
    await world.env.edit(
      world.ss.id,
      'A4:C5',
      TABLE.slice(3, 5).map((row) => row.slice(0, 3)),
      {
        user,
        sheetName: people.name,
      },
    );
  }
  // A sort of the whole sheet by the person's Phone column, and rows inserted above and inside.
  sheet.sort(5, false, 2);
  sheet.insertRows(2, 1, world.ss.sheets);
  sheet.insertRows(5, 2, world.ss.sheets);
  people.sort(4, false, 2);
  people.insertRows(3, 1, world.ss.sheets);
  // More edits after the moves: a person's cell, and the header row.
  await world.env.edit(world.ss.id, 'N1', [['Phone']], { user: EDITOR });
  await world.env.edit(world.ss.id, 'C1', [['Email']], { user: OWNER });

  tableIntact(world, people.name, 'A');
  // Four columns were inserted before B: the table that was in G:K is in K:O now.
  tableIntact(world, sheet.name, 'K');
  const inserted = world.env.values(world.ss.id, 'B1:E12');
  for (const row of TABLE.slice(1)) {
    const found = inserted.find((line) => line[3] === row[3]);
    expect(found).toEqual(row.slice(0, 4));
  }
  // The add-on's own results moved with the sheet and still sit beside their URLs.
  const values = world.env.values(world.ss.id, 'A1:I12');
  const results = values
    .filter((row) => String(row[0]).includes('/in/'))
    .map((row) => [row[0], ...row.slice(5)]);
  expect(results).toHaveLength(5);
  expect(mismatches(results)).toEqual([]);
});

it('after columns moved, an edited URL loses the old address beside it and another spelling keeps it', async () => {
  world = await startWorld({ data: [['Profile'], [url('fay-gil')], [url('gus-hay')], [url('hal-ivy')]] });
  await start(world, 'A1:A4');
  expect((await drive(world)).state).toBe('done');
  world.ss.sheets[0].insertColumns(2, 1);
  await world.env.edit(world.ss.id, 'A2', [[url('ivo-jay')]], { user: EDITOR });
  expect(world.env.values(world.ss.id, 'C2:F2')).toEqual([['', '', '', '']]);
  await world.env.edit(world.ss.id, 'A3', [[`${url('GUS-HAY')}/`]], { user: OWNER });
  expect(world.env.values(world.ss.id, 'C3:E3')[0]).toEqual(expectedCells(url('gus-hay')));
  // A paste of two URLs: the changed one loses its result, the same profile keeps its own.
  await world.env.edit(world.ss.id, 'A3:A4', [[url('gus-hay')], [url('jo-kim')]]);
  expect(world.env.values(world.ss.id, 'C3:E3')[0]).toEqual(expectedCells(url('gus-hay')));
  expect(world.env.values(world.ss.id, 'C4:F4')).toEqual([['', '', '', '']]);
});
