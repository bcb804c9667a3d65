/**
 * LockService's rate quota (reported: "There are too many LockService operations against the same script.",
 * googleworkspace/apps-script-oauth2#207): a refused lock is "busy", never a crash. No cell shows Apps Script's
 * text, nothing paid is lost or paid twice, no claim is left for a bulk run to wait on; a cached evaluation takes
 * no lock at all.
 */
import { TOO_MANY_LOCK_OPERATIONS, TOO_MANY_SIMULTANEOUS_MESSAGE } from '../../../emulator';
import { LOCK_BUSY } from '../../../src/formula/messages';
import { START_AT_ONCE, startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive, mismatches } from '../bulk/helpers';
import { column, emailOf, fillDown } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** What a menu action refused by LockService (not by another execution's hold) says. */
const REFUSED =
  /^Apps Script refused the spreadsheet's lock for a moment \(too many lock requests at once\)\. Nothing was done; try again in a moment\.$/;

/** Refused at its start, the menu action says so: the person tries again a moment later. */
async function startThroughBusy(w: World): Promise<void> {
  let started = await w.env.execute('enrichSelection', [], w.as());
  for (let attempt = 0; attempt < 5 && !started.ok; attempt++) {
    expect(started.error?.message).toMatch(REFUSED);
    w.env.advanceClock(2_000);
    started = await w.env.execute('enrichSelection', [], w.as());
  }
  expect(started.ok).toBe(true);
}

/** The sidebar's polling, a moment apart (the quota's window passes between slices). */
async function driveAMomentApart(w: World): Promise<{ state: string }> {
  let progress = (await w.env.run('getEnrichmentProgress', [], w.as())) as { state: string };
  for (let i = 0; i < 200 && progress.state === 'running'; i++) {
    w.env.advanceClock(1_000);
    progress = (await w.env.run('continueEnrichment', [], w.as())) as { state: string };
  }
  return progress;
}

const ROWS = 120;
const profiles = () => Array.from({ length: ROWS }, (_, i) => [url(`lou-quota-${i}`)]);

/** Lock calls of an execution (tryLock, waitLock, releaseLock, hasLock). */
function lockCalls(counts: Record<string, number>): number {
  return Object.entries(counts)
    .filter(([name]) => name.startsWith('Lock.') || name.startsWith('LockService.'))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('a menu action under the lock rate quota', () => {
  it('says Apps Script refused the lock, not that another execution holds it; a moment later it starts', async () => {
    world = await startWorld({ data: [['Profile'], ...profiles().slice(0, 3)] });
    world.env.select(world.ss.id, 'A1:A4');
    const lift = world.env.refuseLockCalls();
    const refused = await world.env.execute('enrichSelection', [], world.as());
    lift();
    expect(refused.error?.message).toMatch(REFUSED);
    expect(world.sandbox.service.ledger()).toEqual([]);
    await startThroughBusy(world);
    expect((await drive(world)).state).toBe('done');
    expect(mismatches(world.env.values(world.ss.id, 'A2:D4'))).toEqual([]);
  });
});

describe('=FINDEMAIL under the lock rate quota', () => {
  it('120 cells: no Apps Script lock error in any cell, each profile paid once at most, a bulk run after completes', async () => {
    world = await startWorld({
      data: [['Profile'], ...profiles()],
      env: { lockRateLimit: { calls: 20, windowMs: 1_000 } },
      // A cell left waiting gives up after 3 s of its budget (the 30 s limit's, scaled down).
      scriptProperties: { FINDEMAIL_BUDGET_MS: '3000' },
    });
    fillDown(world, 'H', 'A', 2, ROWS + 1);
    const report = await world.env.recalculate(world.ss.id);
    expect(report.evaluated).toBe(ROWS);
    expect(world.env.lockCallsRefused).toBeGreaterThan(0);
    const shown = column(world, `H2:H${ROWS + 1}`).map(String);
    const notes = Array.from(
      { length: ROWS },
      (_, i) => world?.env.cell(world.ss.id, `H${i + 2}`)?.error ?? '',
    );
    for (const text of [...shown, ...notes]) {
      expect(text).not.toContain(TOO_MANY_LOCK_OPERATIONS);
      expect(text).not.toMatch(/LockService|lockBean/);
    }
    // A cell without a result shows one of the add-on's messages, never a crash; or, past 30 cells running at once
    // for one person, the platform's own refusal (its code never ran; Refresh =FINDEMAIL cells enters it again).
    const found = new Set(profiles().map(([link]) => emailOf(link)));
    shown.forEach((text, index) => {
      if (found.has(text)) return;
      if (text === '#ERROR!') expect(notes[index]).toBe(TOO_MANY_SIMULTANEOUS_MESSAGE);
      else expect(text).toMatch(/^ERROR: /);
    });
    expect(chargedTwice(world)).toEqual([]);

    // The bulk run started right after (the quota's window passed) finds every claim released and pays no
    // profile a formula paid.
    world.env.advanceClock(2_000);
    world.env.select(world.ss.id, `A1:A${ROWS + 1}`);
    world.env.userProperties(world.ss.owner).set({ PEF_SETTINGS: START_AT_ONCE });
    await startThroughBusy(world);
    // Its slices treat a refused lock as busy: no slice fails, the next one goes on.
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(ROWS);
    expect(mismatches(world.env.values(world.ss.id, `A2:D${ROWS + 1}`))).toEqual([]);
  }, 240_000);

  it('a cell whose lookup found the lock refused says so, and a cached evaluation takes no lock', async () => {
    world = await startWorld({
      data: [['Profile'], [url('lia-busy')]],
      env: { lockRateLimit: { calls: 0, windowMs: 60_000 } },
      scriptProperties: { FINDEMAIL_BUDGET_MS: '3000' },
    });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2)']]);
    await world.env.recalculate(world.ss.id);
    expect(String(column(world, 'H2')[0])).toContain(LOCK_BUSY.message);
    expect(LOCK_BUSY.message).toContain('Extensions › Profile Email Finder › Refresh =FINDEMAIL cells');
    expect(LOCK_BUSY.message).not.toMatch(/recalculate/i);
    expect(Object.keys(world.charges())).toHaveLength(0);
  });
});

describe('the bulk run under the lock rate quota', () => {
  it('treats a refused lock as busy: no slice fails or pauses, every row is done, no profile paid twice', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => [url(`bo-quota-${i}`)]);
    world = await startWorld({
      data: [['Profile'], ...rows],
      env: { lockRateLimit: { calls: 6, windowMs: 1_000 } },
      scriptProperties: { ENRICH_BATCH_SIZE: '5' },
    });
    world.env.select(world.ss.id, 'A1:A31');
    world.env.userProperties(world.ss.owner).set({ PEF_SETTINGS: START_AT_ONCE });
    await startThroughBusy(world);
    const done = await driveAMomentApart(world);
    expect(world.env.lockCallsRefused).toBeGreaterThan(0);
    expect(done.state).toBe('done');
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(30);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D31'))).toEqual([]);
  }, 120_000);
});

describe('a cached evaluation', () => {
  it('takes no lock', async () => {
    world = await startWorld({ data: [['Profile'], [url('kit-cached')]] });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2)']]);
    const first = await world.env.recalculate(world.ss.id);
    expect(lockCalls(first.results[0].counts)).toBeGreaterThan(0);
    world.env.enter(world.ss.id, 'H3', [['=FINDEMAIL(A2)']]);
    const cached = await world.env.recalculate(world.ss.id, { cells: [{ a1: 'H3' }] });
    expect(column(world, 'H3')).toEqual([emailOf(url('kit-cached'))]);
    expect(lockCalls(cached.results[0].counts)).toBe(0);
  });
});
