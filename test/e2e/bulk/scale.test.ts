/** Bulk enrichment at scale: thousands of rows through many slices, spreadsheet calls per batch, the store's limits. */

import { spreadsheetCalls } from '../../../emulator';
import { LOG_COMPACT_AT } from '../../../src/core/limits';
import { OWNER, START_AT_ONCE, startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive, mismatches, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('bulk enrichment at scale', () => {
  it('finishes 2,500 rows through many slices, each row once, duplicates free', async () => {
    // 2,000 distinct profiles, then 500 rows repeating the first 500 in another spelling (their results read back
    // from the results sheet).
    const distinct = Array.from({ length: 2000 }, (_, i) => [url(`kay-${i}-lund`)]);
    const repeats = Array.from({ length: 500 }, (_, i) => [`http://network.com/in/kay-${i}-lund/`]);
    world = await startWorld({
      credits: 10000,
      scriptProperties: { ENRICH_BATCH_SIZE: '100', ENRICH_STEP_BUDGET_MS: '1' },
    });
    world.ss.sheets[0].insertRows(1000, 1600, world.ss.sheets);
    world.env.enter(world.ss.id, 'A1:A2501', [['Profile'], ...distinct, ...repeats]);
    await start(world, 'A1:A2501');
    const done = await drive(world, 200);
    expect(done.state).toBe('done');
    const slices = world.env.executions.filter((e) => e.fn === 'continueEnrichment').length;
    // One batch of 100 lookups per slice: the 2,000 new profiles; the repeats, known by then, need none.
    expect(slices).toBeGreaterThanOrEqual(20);
    expect(done.total).toBe(2500);
    expect(done.processed).toBe(2500);
    expect(done.found).toBe(2500);
    expect(done.creditsUsed).toBe(2000);
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(2000);
    // 2,000 lookups and the free key check at Start.
    expect(world.sandbox.service.ledger()).toHaveLength(2001);
    // The cache was trimmed on the way (the job's state always fit in the store).
    expect(world.env.documentProperties(world.ss.id).bytes()).toBeLessThan(400 * 1024);
    const values = world.env.values(world.ss.id, 'A2:D2501');
    expect(mismatches(values)).toEqual([]);
    // Every repeat shows the same address as its first occurrence.
    for (let i = 0; i < 500; i++) expect(values[2000 + i][1]).toBe(values[i][1]);
  }, 180_000);

  it('makes two reads and one write per batch in steady state', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [url(`lee-${i}-moss`)]);
    world = await startWorld({
      scriptProperties: { ENRICH_BATCH_SIZE: '50', ENRICH_STEP_BUDGET_MS: '120000' },
    });
    world.ss.sheets[0].insertRows(1000, 100, world.ss.sheets);
    world.env.enter(world.ss.id, 'A1:A1001', [['Profile'], ...rows]);
    world.env.select(world.ss.id, 'A1:A1001');
    // The owner starts runs of any price without being asked (the sidebar's setting), as from the menu.
    world.env.userProperties(OWNER).set({ PEF_SETTINGS: START_AT_ONCE });
    await world.env.run('enrichSelection', [], world.as());
    const progress = await drive(world);
    expect(progress.state).toBe('done');
    // Every execution of the job (the start with its short first slice, then continuations if any).
    const counts: Record<string, number> = {};
    for (const execution of world.env.executions) {
      for (const [name, n] of Object.entries(execution.counts)) counts[name] = (counts[name] ?? 0) + n;
    }
    const batches = 1000 / 50;
    const reads = counts['Range.getValues'] ?? 0;
    const writes = counts['Range.setValues'] ?? 0;
    const executions = world.env.executions.length;
    // One write per batch into the user's sheet, + the header titles, + one per batch into the results sheet
    // (a log append, or the compaction that merges the log into the buckets: src/store/table.ts), + one per batch
    // into the credits log (src/store/creditsLog.ts) and its header.
    expect(writes).toBe(3 * batches + 2);
    // Two reads per batch (its rows when planned, and again right before they are written: a person's edit
    // meanwhile is kept), plus per execution the slice's checks and one read of the results sheet; once the job's
    // first read; one read per compaction (every LOG_COMPACT_AT results).
    const compactions = Math.floor(1000 / LOG_COMPACT_AT);
    expect(reads).toBeLessThanOrEqual(2 * batches + 1 + 3 * executions + compactions);
    // Each read brings its formulas with it (a formula in an output cell is the user's data): one call per read.
    const formulaReads = counts['Range.getFormulas'] ?? 0;
    expect(formulaReads).toBeLessThanOrEqual(reads);
    // Besides reads and writes: Sheet.getRange for each, and a few calls per execution (sheet size, job ends).
    const others = spreadsheetCalls(counts) - reads - formulaReads - writes - (counts['Sheet.getRange'] ?? 0);
    // The results sheet adds three per batch (the spreadsheet, the sheet by name, its last row: where the log
    // ends) and about ten once (creating the hidden sheet); the credits log one per batch (its last row) and
    // about fifteen once (creating it, then growing it past its first 1,000 rows).
    // The sheet's size (rows and columns) before each window is leased: rows inserted meanwhile are followed.
    // And one SpreadsheetApp.flush() before each release of the document lock.
    const flushes = counts['SpreadsheetApp.flush'] ?? 0;
    expect(flushes).toBeLessThanOrEqual(counts['Lock.releaseLock'] ?? 0);
    expect(others - flushes).toBeLessThanOrEqual(20 * executions + 6 * batches + 25);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D1001'))).toEqual([]);
  });
});
