/** Bulk enrichment when the user edits the sheet between slices, and when output columns hold data. */
import { FORMULA_EMAIL } from '../../../sandbox/profiles';
import { startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive, mismatches, type ProgressView, sheetOf, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SLOW_SLICES = { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '1' };

function names(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [
    url(`${prefix}-${String.fromCharCode(97 + (i % 26))}${i}`),
  ]);
}

async function slice(w: World): Promise<ProgressView> {
  return (await w.env.run('continueEnrichment', [], w.as())) as ProgressView;
}

describe('rows and columns moved during a run', () => {
  it('keeps every result beside its own URL through a sort and a row insertion between slices', async () => {
    world = await startWorld({
      data: [['Profile'], ...names(39, 'sam-cole'), [url('aa-broken')]],
      scriptProperties: SLOW_SLICES,
    });
    const first = await start(world, 'A1:A41');
    expect(first.state).toBe('running');
    await slice(world);
    const sheet = sheetOf(world);
    // Sort descending (written rows move to the bottom, pending ones come up), insert rows inside the range
    // with new URLs, and type something far below the job: it must not widen the job.
    sheet.sort(1, false, 2);
    sheet.insertRows(10, 2, world.ss.sheets);
    // The second inserted row's address is a formula: rows inserted later lack the plain-text format.
    world.env.enter(world.ss.id, 'A10:A11', [[url('new-row-one')], [url('new-formula-two')]]);
    world.env.enter(world.ss.id, 'A60', [[url('not-in-the-job')]]);
    await slice(world);
    sheet.deleteRows(70, 5, world.ss.sheets); // below the job: must not shrink it
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:E60');
    expect(mismatches(values.slice(1, 43))).toEqual([]);
    expect(values.slice(1, 43).every((row) => row[2] !== '')).toBe(true);
    const formulaRow = values.findIndex((row) => row[0] === url('new-formula-two'));
    expect(values[formulaRow][1]).toBe(FORMULA_EMAIL);
    expect(world.env.formulas(world.ss.id, `B${formulaRow + 1}`)).toEqual([['']]);
    // Row 60 (now 60: nothing deleted above it) was typed after the start: not part of the job.
    expect(values[59][0]).toBe(url('not-in-the-job'));
    expect(values[59][2]).toBe('');
    expect(world.charges()[url('not-in-the-job').replace('www.', '')]).toBeUndefined();
    expect(chargedTwice(world)).toEqual([]);
    expect(done.total).toBe(42);
    expect(done.processed).toBe(42);
    expect(done.alreadyDone).toBe(0);
    // The always-failing URL is an ERROR once: later passes do not send it again nor count it twice.
    expect(done.error).toBe(1);
    expect(done.found).toBe(41);
    const brokenRequests = world.sandbox.service.ledger().filter((e) => e.networkUrl?.includes('aa-broken'));
    expect(brokenRequests).toHaveLength(1); // a 1 ms budget leaves no time for retries
    expect(world.env.executions.filter((e) => e.fn === 'continueEnrichment').length).toBeGreaterThan(3);
  });

  it('counts rows that already had a result once, even when a sort brings them back under the cursor', async () => {
    const rows = names(30, 'tom-vale');
    world = await startWorld({ data: [['Profile'], ...rows], scriptProperties: SLOW_SLICES });
    await start(world, 'A1:A11');
    await drive(world);
    // Second run over all 30 rows: the first 10 have a result.
    const first = await start(world, 'A1:A31');
    expect(first.alreadyDone).toBe(10);
    sheetOf(world).sort(1, true, 2);
    await slice(world);
    sheetOf(world).sort(1, false, 2);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.alreadyDone).toBe(10);
    expect(done.processed).toBe(30);
    expect(done.found).toBe(20);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D31'))).toEqual([]);
    expect(chargedTwice(world)).toEqual([]);
  });

  it('follows rows inserted above the job and rows deleted inside it', async () => {
    world = await startWorld({ data: [['Profile'], ...names(30, 'deb-wu')], scriptProperties: SLOW_SLICES });
    await start(world, 'A1:A31');
    const sheet = sheetOf(world);
    sheet.insertRows(1, 3, world.ss.sheets); // above the header: everything moves down 3
    await slice(world);
    sheet.deleteRows(20, 4, world.ss.sheets); // inside the job's rows
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:E40');
    expect(values[3].slice(0, 2)).toEqual(['Profile', 'Email']);
    expect(mismatches(values.slice(4, 30))).toEqual([]);
    expect(values.slice(4, 30).every((row) => row[2] !== '')).toBe(true);
    expect(values.slice(30).every((row) => row.every((cell) => cell === ''))).toBe(true);
    expect(done.total).toBe(26);
    expect(chargedTwice(world)).toEqual([]);
  });

  it('follows a column inserted left of the URLs when the header identifies the columns', async () => {
    world = await startWorld({ data: [['Profile'], ...names(20, 'ida-ng')], scriptProperties: SLOW_SLICES });
    await start(world, 'A1:A21');
    sheetOf(world).insertColumns(1, 1);
    world.env.enter(
      world.ss.id,
      'A1:A21',
      Array.from({ length: 21 }, (_, i) => [`user note ${i}`]),
    );
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:F21');
    expect(values.every((row, i) => row[0] === `user note ${i}`)).toBe(true);
    expect(values.slice(1).every((row) => String(row[1]).includes('/in/') && row[3] === 'VALID')).toBe(true);
    expect(done.found).toBe(20);
    expect(mismatches(values.slice(1).map((row) => row.slice(1)))).toEqual([]);
  });

  it('stops without writing when columns move and no header identifies them', async () => {
    world = await startWorld({ data: names(20, 'ola-bo'), scriptProperties: SLOW_SLICES });
    await start(world, 'A1:A20');
    const before = world.env.values(world.ss.id, 'A1:E20');
    sheetOf(world).insertColumns(2, 1); // between the URLs and the results
    world.env.enter(
      world.ss.id,
      'B1:B20',
      Array.from({ length: 20 }, (_, i) => [`mine ${i}`]),
    );
    const stopped = await drive(world);
    expect(stopped.state).toBe('cancelled');
    expect(stopped.message).toMatch(/Columns were inserted or deleted/);
    const after = world.env.values(world.ss.id, 'A1:F20');
    expect(after.map((row) => row[1])).toEqual(Array.from({ length: 20 }, (_, i) => `mine ${i}`));
    expect(after.map((row) => [row[0], ...row.slice(2)])).toEqual(before);
    expect(world.env.triggers).toHaveLength(0);
  });
});

describe('output columns and repeated runs', () => {
  it('never overwrites a value the user typed into an output cell during the run', async () => {
    world = await startWorld({ data: [['Profile'], ...names(20, 'uma-ray')], scriptProperties: SLOW_SLICES });
    await start(world, 'A1:A21');
    world.env.enter(world.ss.id, 'B18', [['typed@by.hand']]);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(world.env.values(world.ss.id, 'B18:C18')).toEqual([['typed@by.hand', '']]);
    expect(done.message).toMatch(/no result/);
    expect(done.processed).toBe(19);
  });

  it('inserts columns when the user has data right of the URL column, leaving it untouched', async () => {
    world = await startWorld({
      // The user's own Email column carries one of the add-on's titles: not enough to reuse the columns.
      data: [
        ['Profile', 'Email', '', '', '', 'Phone'],
        [url('amy-ash'), 'amy@home.test', '', '', '', '555-1'],
        [url('bob-birch'), '', '', '', '', '555-2'],
      ],
    });
    // The plan offers a choice (the columns beside hold data): the person chooses to insert columns.
    await start(world, 'A1:A3', { placement: 'insert' });
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:J3');
    expect(values[0]).toEqual([
      'Profile',
      'Email',
      'Email status',
      'Catch-all',
      'Note',
      'Email',
      '',
      '',
      '',
      'Phone',
    ]);
    expect(values.slice(1).map((row) => row.slice(5))).toEqual([
      ['amy@home.test', '', '', '', '555-1'],
      ['', '', '', '', '555-2'],
    ]);
    expect(mismatches(values.slice(1))).toEqual([]);
  });

  it('a second run without a header reuses its own columns and retries ERROR rows in place', async () => {
    world = await startWorld({
      data: [[url('cy-dale')], [url('dora-elm')], [url('eve-fir')], [url('fay-gum')]],
      faults: { failFirst: { 'eve-fir': { kind: '500', times: 3 } } },
    });
    await start(world, 'A1:A4');
    const first = await drive(world);
    expect(first.state).toBe('done');
    expect(first.error).toBe(1);
    expect(world.env.values(world.ss.id, 'C3')).toEqual([['ERROR']]);
    await start(world, 'A1:A4');
    const second = await drive(world);
    expect(second.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:I4');
    expect(values.every((row) => row.slice(5).every((cell) => cell === ''))).toBe(true);
    expect(mismatches(values)).toEqual([]);
    expect(second.alreadyDone).toBe(3);
    expect(second.error).toBe(0);
    expect(second.found).toBe(1);
    expect(Object.values(world.charges())).toEqual([1, 1, 1, 1]);
  });

  it('answers a second start while a job is active, and two quick starts create one job', async () => {
    world = await startWorld({ data: [['Profile'], ...names(20, 'gil-hay')], scriptProperties: SLOW_SLICES });
    world.env.select(world.ss.id, 'A1:A21');
    const [a, b] = await Promise.all([
      world.env.run('enrichSelection', [], world.as()),
      world.env.run('enrichSelection', [], world.as()),
    ]);
    const messages = [a, b].map((p) => (p as ProgressView).message);
    expect(messages.filter((m) => /already under way/.test(m))).toHaveLength(1);
    expect(world.env.values(world.ss.id, 'A1:I1')[0]).toEqual([
      'Profile',
      'Email',
      'Email status',
      'Catch-all',
      'Note',
      '',
      '',
      '',
      '',
    ]);
    await world.env.run('pauseEnrichment', [], world.as());
    const third = await start(world, 'A1:A21');
    expect(third.message).toMatch(/Resume or cancel/);
    expect(third.state).toBe('paused');
  });

  it('stops at the last row for a whole-column selection', async () => {
    world = await startWorld({
      data: [['Profile'], ...names(12, 'ivy-jo')],
      scriptProperties: { ENRICH_BATCH_SIZE: '4' },
    });
    const first = await start(world, 'A:A');
    const done = first.state === 'running' ? await drive(world) : first;
    expect(done.state).toBe('done');
    expect(done.total).toBe(12);
    // 12 rows are 3 batches of 4; a job running on to the sheet's 1,000th row would read 250 batches.
    const reads = world.env.executions.reduce((sum, e) => sum + (e.counts['Range.getValues'] ?? 0), 0);
    // The job's first read, one per batch, and per execution its first window and the final pass.
    expect(reads).toBeLessThanOrEqual(1 + 3 + 2 * world.env.executions.length);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D13'))).toEqual([]);
    expect(world.env.values(world.ss.id, 'C14:C20').every((row) => row[0] === '')).toBe(true);
  });
});
