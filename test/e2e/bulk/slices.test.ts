/**
 * Several slices of one bulk run at once, each on its own window of rows: two slices leasing at once, a slice
 * killed mid-window (its window leased again after its lease ends), Pause during three slices, another user's
 * executions beside them, a person sorting or inserting rows while slices hold windows, and the sidebar closed. Each
 * profile paid once (an answer lost with a killed slice is kept as lost, never bought again), the credits log equal to
 * the sandbox's ledger.
 */

import type { ExecutionResult } from '../../../emulator';
import type { Job } from '../../../src/bulk/job';
import { SIDEBAR_CLOSED_MESSAGE, STARTER_AWAY_MESSAGE } from '../../../src/bulk/job';
import { DEFAULT_STEP_BUDGET_MS, LEASE_MS, WAITING_AFTER_MS } from '../../../src/core/limits';
import { JOB_PROPERTY } from '../../../src/core/propertyNames';
import { waitFor } from '../../sandbox/helpers';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import {
  chargesByProfile,
  drive,
  expectLogEqualsLedger,
  lanes,
  lookups,
  mismatches,
  type ProgressView,
  sheetOf,
  start,
  urls,
} from './helpers';

let world: World | undefined;
let releaseHold: (() => void) | undefined;
afterEach(async () => {
  releaseHold?.();
  releaseHold = undefined;
  await world?.close();
  world = undefined;
});

const BATCH = 10;

async function warmWorkers(w: World, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => w.env.run('getEnrichmentProgress', [], w.as())));
}

function storedJob(w: World): Job {
  return JSON.parse(String(w.env.documentProperties(w.ss.id).get(JOB_PROPERTY))) as Job;
}

/** The windows slices hold now, sorted; each pair disjoint. */
function liveWindows(w: World): Array<{ from: number; to: number }> {
  const now = w.env.now();
  return (storedJob(w).windows ?? [])
    .filter((window) => window.until > now && window.from <= window.to)
    .map(({ from, to }) => ({ from, to }))
    .sort((a, b) => a.from - b.from);
}

function overlapping(windows: Array<{ from: number; to: number }>): boolean {
  return windows.some((window, index) => index > 0 && window.from <= windows[index - 1].to);
}

/** Rows holding a result that is not their own URL's (rows without a result yet are left out). */
function writtenWrong(values: unknown[][]): string[] {
  return mismatches(values.filter((row) => row[2] !== ''));
}

/** Prepares a run of `rows` rows (the plan asked for, no lookup sent) and starts it as an execution. */
async function startHeld(w: World, rows: number): Promise<{ first: Promise<ExecutionResult> }> {
  w.env.select(w.ss.id, `A1:A${rows + 1}`);
  const plan = (await w.env.run('getRunPlan', [{}], w.as())) as { credits: number };
  const started = (await w.env.run('startRun', [{ confirmedCredits: plan.credits }], w.as())) as {
    progress: { state: string; processed: number };
  };
  // More lookups than one batch: Start answers at once, sending nothing; the sidebar's first slice sends.
  expect(started.progress).toMatchObject({ state: 'running', processed: 0 });
  expect(w.sandbox.service.ledger()).toHaveLength(1);
  releaseHold = w.sandbox.service.hold();
  return { first: w.env.execute('continueEnrichment', [], w.as()) };
}

function release(): void {
  releaseHold?.();
  releaseHold = undefined;
}

/** Starts a run of `rows` rows and two more slices beside it, each holding its first batch at the sandbox. */
async function startThreeHeld(
  w: World,
  rows: number,
): Promise<{ first: Promise<ExecutionResult>; others: Array<Promise<ExecutionResult>> }> {
  const { first } = await startHeld(w, rows);
  await waitFor(() => w.sandbox.service.held === BATCH, 10_000);
  const others = [
    w.env.execute('continueEnrichment', [], w.as()),
    w.env.execute('continueEnrichment', [], w.as()),
  ];
  await waitFor(() => w.sandbox.service.held === 3 * BATCH, 10_000);
  return { first, others };
}

/** Every one of `rows` profiles charged exactly once, the credits log equal to the ledger, each result beside its URL. */
function expectEachPaidOnce(w: World, rows: number): void {
  const charges = chargesByProfile(w);
  expect(charges.size).toBe(rows);
  expect([...charges.values()].every((count) => count === 1)).toBe(true);
  expectLogEqualsLedger(w);
  expect(mismatches(w.env.values(w.ss.id, `A2:D${rows + 1}`))).toEqual([]);
}

describe('several slices of one run at once', () => {
  it('two slices leasing at once beside the first get disjoint windows; each profile is paid once', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(50, 'ann-slice')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 4);
    const { first } = await startHeld(world, 50);
    await waitFor(() => world?.sandbox.service.held === BATCH, 10_000);
    const second = world.env.execute('continueEnrichment', [], world.as());
    const third = world.env.execute('continueEnrichment', [], world.as());
    // Three slices hold a window each, and no row is in two of them.
    await waitFor(() => world !== undefined && liveWindows(world).length === 3, 10_000);
    expect(overlapping(liveWindows(world))).toBe(false);
    // Each slice sends its own window's lookups: three windows of rows, none of them twice.
    await waitFor(() => world?.sandbox.service.held === 3 * BATCH, 10_000);
    const windows = liveWindows(world);
    expect(windows).toHaveLength(3);
    expect(overlapping(windows)).toBe(false);
    expect(windows.every((window) => window.to - window.from + 1 === BATCH)).toBe(true);
    release();
    const results = await Promise.all([first, second, third]);
    expect(results.every((result) => result.ok)).toBe(true);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.processed).toBe(50);
    expect(done.creditsUsed).toBe(50);
    expectEachPaidOnce(world, 50);
  });

  it("a slice killed mid-window: after its lease ends its window's rows say their answers were lost, and none of its profiles is paid again", async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(30, 'bo-killed')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 4);
    const { first } = await startHeld(world, 30);
    await waitFor(() => world?.sandbox.service.held === BATCH, 10_000);
    // Killed by the platform while its lookups are on their way (a short time limit stands for the 6 minutes).
    const killed = world.env.execute('continueEnrichment', [], world.as(undefined, { timeLimitMs: 3_000 }));
    await waitFor(() => world?.sandbox.service.held === 2 * BATCH, 10_000);
    const killedWindow = liveWindows(world)[1];
    expect(killedWindow).toEqual({ from: 12, to: 21 });
    const third = world.env.execute('continueEnrichment', [], world.as());
    await waitFor(() => world?.sandbox.service.held === 3 * BATCH, 10_000);
    expect((await killed).timedOut).toBe(true);
    // Before its lease ends the killed slice's window is nobody else's: another slice finds nothing to lease.
    const idle = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    expect(idle.state).toBe('running');
    expect(overlapping(liveWindows(world))).toBe(false);
    release();
    expect((await first).ok && (await third).ok).toBe(true);
    const beforeExpiry = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    expect(beforeExpiry.processed).toBe(20);
    world.env.advanceClock(LEASE_MS + 60_000);
    const done = await drive(world, 20);
    expect(done.state).toBe('done');
    // The killed slice's lookups reached the service, which charged them; their answers never reached the sheet.
    const values = world.env.values(world.ss.id, 'A2:E31');
    const killedRows = values.slice(killedWindow.from - 2, killedWindow.to - 1);
    expect(killedRows).toHaveLength(BATCH);
    for (const row of killedRows)
      expect(row.slice(1)).toEqual([
        '',
        'ERROR',
        '',
        'The answer was lost on the way: its execution ended before the answer came; the service may have charged a credit. To look it up again (1 credit): Extensions › Profile Email Finder › Retry failed rows in the selected column.',
      ]);
    expect(mismatches(values.filter((row) => !killedRows.includes(row)))).toEqual([]);
    // Each profile sent and paid once: the killed window's are not bought again.
    expect(lookups(world)).toHaveLength(30);
    const charges = chargesByProfile(world);
    expect(charges.size).toBe(30);
    expect([...charges.values()].every((count) => count === 1)).toBe(true);
    expect({ creditsUsed: done.creditsUsed, creditsMaybeLost: done.creditsMaybeLost }).toEqual({
      creditsUsed: 30 - BATCH,
      creditsMaybeLost: BATCH,
    });
    expectLogEqualsLedger(world);
  });

  it('Pause during three slices: each finishes its batch and writes it, none takes another window', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(60, 'cy-paused')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 5);
    const { first, others } = await startThreeHeld(world, 60);
    const paused = (await world.env.run('pauseEnrichment', [], world.as())) as ProgressView;
    expect(paused.state).toBe('paused');
    release();
    const results = await Promise.all([first, ...others]);
    expect(results.every((result) => result.ok)).toBe(true);
    const after = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(after.state).toBe('paused');
    // The three batches answered are written and counted; nothing more was sent.
    expect(after.processed).toBe(3 * BATCH);
    expect(after.creditsUsed).toBe(3 * BATCH);
    expect(lookups(world)).toHaveLength(3 * BATCH);
    expect(liveWindows(world)).toEqual([]);
    const written = world.env.values(world.ss.id, 'A2:D61').filter((row) => row[2] !== '');
    expect(written).toHaveLength(3 * BATCH);
    expect(mismatches(written)).toEqual([]);
    // Thirty rows left, more than a batch: Resume answers at once, sending nothing, and says how many slices the
    // sidebar opens (its run's pace: a batch each); they send.
    const resumed = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(resumed).toMatchObject({ state: 'running', processed: 3 * BATCH });
    expect(resumed.slices).toBeGreaterThanOrEqual(1);
    expect(lookups(world)).toHaveLength(3 * BATCH);
    expect(liveWindows(world)).toEqual([]);
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.creditsUsed).toBe(60);
    expect([...chargesByProfile(world).values()].every((count) => count === 1)).toBe(true);
    expect(chargesByProfile(world).size).toBe(60);
    expectLogEqualsLedger(world);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D61'))).toEqual([]);
  });

  it("another editor's executions beside the starter's slices lease nothing and spend nothing of theirs", async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(40, 'di-owner')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    await warmWorkers(world, 5);
    const { first } = await startHeld(world, 40);
    await waitFor(() => world?.sandbox.service.held === BATCH, 10_000);
    const second = world.env.execute('continueEnrichment', [], world.as());
    await waitFor(() => world?.sandbox.service.held === 2 * BATCH, 10_000);
    // The editor's sidebar, open on the same spreadsheet, asks for slices too.
    const editors = await Promise.all([
      world.env.run('continueEnrichment', [], world.as(EDITOR)),
      world.env.run('continueEnrichment', [], world.as(EDITOR)),
    ]);
    expect(editors.every((progress) => (progress as ProgressView).readOnly)).toBe(true);
    expect(world.sandbox.service.held).toBe(2 * BATCH);
    const third = world.env.execute('continueEnrichment', [], world.as());
    await waitFor(() => world?.sandbox.service.held === 3 * BATCH, 10_000);
    expect(overlapping(liveWindows(world))).toBe(false);
    release();
    expect((await Promise.all([first, second, third])).every((result) => result.ok)).toBe(true);
    const done = await drive(world);
    expect(done.state).toBe('done');
    const ledger = lookups(world);
    expect(ledger.filter((entry) => entry.organization === EDITOR_ORG)).toEqual([]);
    expect(ledger.every((entry) => entry.organization === ORG)).toBe(true);
    expectEachPaidOnce(world, 40);
  });

  it('a sort and rows inserted while three slices hold windows: no row written beside another URL, none left empty, each profile paid once', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(60, 'ed-sorted')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    await warmWorkers(world, 5);
    const { first, others } = await startThreeHeld(world, 60);
    const leased = liveWindows(world);
    expect(leased).toHaveLength(3);
    // The slices' 30 URLs were read from rows 2..31; an editor sorts the sheet (Data › Sort range, Z → A) and
    // inserts two rows with new URLs in the middle of the range while their answers are on the way.
    const sent = new Set(world.env.values(world.ss.id, 'A2:A31').map((row) => String(row[0])));
    const sheet = sheetOf(world);
    sheet.sort(1, false, 2);
    sheet.insertRows(30, 2, world.ss.sheets);
    const added = [url('ed-sorted-new-a'), url('ed-sorted-new-b')];
    expect(
      (await world.env.edit(world.ss.id, 'A30:A31', [[added[0]], [added[1]]], { user: EDITOR })).ok,
    ).toBe(true);
    // The sort brought URLs not yet sent up to rows 2..31: none of the slices' answers belongs there.
    const movedUp = world.env.values(world.ss.id, 'A2:A31').map((row) => String(row[0]));
    expect(movedUp.filter((link) => sent.has(link)).length).toBeLessThan(30);
    // The editor's sidebar, open meanwhile, asks for a slice: it spends nothing of theirs.
    const editors = (await world.env.run('continueEnrichment', [], world.as(EDITOR))) as ProgressView;
    expect(editors.readOnly).toBe(true);
    release();
    expect((await Promise.all([first, ...others])).every((result) => result.ok)).toBe(true);
    // Each slice wrote only rows still holding the URL it had read there.
    expect(writtenWrong(world.env.values(world.ss.id, 'A2:D63'))).toEqual([]);
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A2:D63');
    expect(mismatches(values)).toEqual([]);
    expect(values.filter((row) => String(row[0]).includes('/in/') && row[2] === '')).toEqual([]);
    expect(done.total).toBe(62);
    expect(done.processed).toBe(62);
    expect(done.creditsUsed).toBe(62);
    const charges = chargesByProfile(world);
    expect(charges.size).toBe(62);
    expect([...charges.values()].every((count) => count === 1)).toBe(true);
    expect(lookups(world).filter((entry) => entry.organization === EDITOR_ORG)).toEqual([]);
    expectLogEqualsLedger(world);
  });

  it('rows inserted above the header while two slices hold windows: every answer lands beside its own URL after the move', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(40, 'fa-shifted')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 4);
    const { first } = await startHeld(world, 40);
    await waitFor(() => world?.sandbox.service.held === BATCH, 10_000);
    const second = world.env.execute('continueEnrichment', [], world.as());
    await waitFor(() => world?.sandbox.service.held === 2 * BATCH, 10_000);
    expect(liveWindows(world)).toHaveLength(2);
    // Three rows inserted above the header: every URL moves down three rows under the slices' windows.
    sheetOf(world).insertRows(1, 3, world.ss.sheets);
    release();
    expect((await Promise.all([first, second])).every((result) => result.ok)).toBe(true);
    const afterSlices = world.env.values(world.ss.id, 'A1:D44');
    expect(afterSlices.slice(0, 3).every((row) => row.every((cell) => cell === ''))).toBe(true);
    expect(writtenWrong(afterSlices)).toEqual([]);
    const done = await drive(world);
    expect(done.state).toBe('done');
    const values = world.env.values(world.ss.id, 'A1:D44');
    expect(values[3][0]).toBe('Profile');
    expect(values.slice(0, 3).every((row) => row.every((cell) => cell === ''))).toBe(true);
    expect(mismatches(values)).toEqual([]);
    expect(values.slice(4).every((row) => row[2] !== '')).toBe(true);
    expect(done.processed).toBe(40);
    expect(done.creditsUsed).toBe(40);
    const charges = chargesByProfile(world);
    expect(charges.size).toBe(40);
    expect([...charges.values()].every((count) => count === 1)).toBe(true);
    expectLogEqualsLedger(world);
  });

  it('the sidebar closed during three slices (its close reaching the server): each writes its batch and takes no other window; opened again, the run goes on', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(60, 'gu-closed')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 5);
    const { first, others } = await startThreeHeld(world, 60);
    // The sidebar's page goes away: its pagehide calls sidebarClosed. Another editor's closing sidebar changes nothing.
    const editors = (await world.env.run('sidebarClosed', [], world.as(EDITOR))) as ProgressView;
    expect(editors).toMatchObject({ state: 'running', readOnly: true });
    const closed = (await world.env.run('sidebarClosed', [], world.as())) as ProgressView;
    expect(closed).toMatchObject({
      state: 'paused',
      reason: 'sidebar_closed',
      message: SIDEBAR_CLOSED_MESSAGE,
    });
    release();
    expect((await Promise.all([first, ...others])).every((result) => result.ok)).toBe(true);
    // The three batches answered are written and counted; nothing more was sent, no window is held.
    const after = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(after).toMatchObject({ state: 'paused', reason: 'sidebar_closed', processed: 3 * BATCH });
    expect(lookups(world)).toHaveLength(3 * BATCH);
    expect(liveWindows(world)).toEqual([]);
    const seen = (await world.env.run('getEnrichmentProgress', [], world.as(EDITOR))) as ProgressView;
    expect(seen).toMatchObject({ state: 'paused', readOnly: true, message: STARTER_AWAY_MESSAGE });
    // A slice asked for by a sidebar still closing does nothing.
    expect(((await world.env.run('continueEnrichment', [], world.as())) as ProgressView).state).toBe(
      'paused',
    );
    expect(lookups(world)).toHaveLength(3 * BATCH);
    // The sidebar open again resumes it (src/sidebar/drive.ts follow) and drives it to the end.
    const resumed = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(resumed.state).not.toBe('paused');
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.creditsUsed).toBe(60);
    expectEachPaidOnce(world, 60);
  });

  it('the sidebar closed during three slices without a word to the server: once their time is up the run reads as paused, spends nothing, and goes on when the sidebar opens', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(80, 'hy-gone')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 5);
    const { first, others } = await startThreeHeld(world, 80);
    // The sidebar is closed and its pagehide call is lost: nobody calls again. The slices' time is up while their
    // lookups are on the way (the emulator's clock): each writes its window and ends.
    world.env.advanceClock(DEFAULT_STEP_BUDGET_MS);
    release();
    expect((await Promise.all([first, ...others])).every((result) => result.ok)).toBe(true);
    expect(liveWindows(world)).toEqual([]);
    const spent = lookups(world).length;
    expect(spent).toBe(3 * BATCH);
    const atOnce = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(atOnce.state).toBe('running');
    expect(atOnce.waiting).toBeUndefined();
    world.env.advanceClock(WAITING_AFTER_MS);
    const later = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(later).toMatchObject({ state: 'running', waiting: true, processed: 3 * BATCH });
    expect(later.message).toBe(SIDEBAR_CLOSED_MESSAGE);
    const theirs = (await world.env.run('getEnrichmentProgress', [], world.as(EDITOR))) as ProgressView;
    expect(theirs).toMatchObject({ waiting: true, readOnly: true, message: STARTER_AWAY_MESSAGE });
    expect(lookups(world)).toHaveLength(spent);
    // The sidebar open again drives it to the end.
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(done.creditsUsed).toBe(80);
    expectEachPaidOnce(world, 80);
  });

  it('Cancel during three slices: each writes its batch and stops; the run reports their sum and the credits log equals the ledger', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(60, 'iv-cancelled')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 5);
    const { first, others } = await startThreeHeld(world, 60);
    const cancelled = (await world.env.run('cancelEnrichment', [], world.as())) as ProgressView;
    expect(cancelled.state).toBe('cancelled');
    release();
    expect((await Promise.all([first, ...others])).every((result) => result.ok)).toBe(true);
    const after = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
    expect(after).toMatchObject({ state: 'cancelled', processed: 3 * BATCH, creditsUsed: 3 * BATCH });
    expect(after.message).toMatch(new RegExp(`^Cancelled: .*${3 * BATCH} credits`));
    expect(lookups(world)).toHaveLength(3 * BATCH);
    expect(liveWindows(world)).toEqual([]);
    const written = world.env.values(world.ss.id, 'A2:D61').filter((row) => row[2] !== '');
    expect(written).toHaveLength(3 * BATCH);
    expect(mismatches(written)).toEqual([]);
    // A slice the sidebar asked for before the Cancel landed changes nothing.
    expect(((await world.env.run('continueEnrichment', [], world.as())) as ProgressView).state).toBe(
      'cancelled',
    );
    expect(lookups(world)).toHaveLength(3 * BATCH);
    expect([...chargesByProfile(world).values()].every((count) => count === 1)).toBe(true);
    expectLogEqualsLedger(world);
  });

  it('with fetchAll running 10 requests at once, every slice ends inside its budget; the run finishes, each profile paid once', async () => {
    const BUDGET_MS = 5_000;
    world = await startWorld({
      data: [['Profile'], ...urls(200, 'sly-ten')],
      faults: { latencyMs: 500 },
      env: { fetchAllAtOnce: 10 },
      scriptProperties: { ENRICH_STEP_BUDGET_MS: String(BUDGET_MS) },
    });
    const first = await start(world, 'A1:A201');
    const done = first.state === 'running' ? await drive(world) : first;
    expect(done.state).toBe('done');
    const slices = world.env.executions.filter((execution) => execution.fn === 'continueEnrichment');
    expect(slices.length).toBeGreaterThan(1);
    // A batch's time is the service's (10 at once at 500 ms), the margin one batch's loading and writing.
    for (const slice of slices) expect(slice.durationMs).toBeLessThanOrEqual(BUDGET_MS + 1_500);
    expectEachPaidOnce(world, 200);
  });
});

describe('sheet writes applied as they are made (the emulator option liveWrites)', () => {
  it('four slices at once and formula cells beside them, half of all writes seen by others before any flush: every row written, each profile paid once, the log equal to the ledger', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(200, 'liv-run')],
      faults: { latencyMs: 200 },
      env: { liveWrites: { probability: 0.5, seed: 3 } },
      scriptProperties: { BULK_SLICES: '4', FETCH_MAX_CONCURRENCY: '20', ENRICH_STEP_BUDGET_MS: '1500' },
    });
    const w = world;
    // Ten cells over profiles the run also holds.
    w.env.enter(
      w.ss.id,
      'H2:H11',
      Array.from({ length: 10 }, (_, i) => [`=FINDEMAIL(A${i + 2})`]),
    );
    const started = await start(w, 'A1:A201');
    expect(started.state).toBe('running');
    const evaluation = w.env.recalculate(w.ss.id);
    const [, ends] = await Promise.all([evaluation, lanes(w, started, 4, evaluation)]);
    expect(ends.map((end) => end.state)).toEqual(['done', 'done', 'done', 'done']);
    expect(w.env.executions.some((e) => e.fn === 'continueEnrichment' && !e.ok)).toBe(false);
    w.env.select(w.ss.id, 'H2:H11');
    await w.env.run('refreshFormulas', [], w.as());
    await w.env.formulasSettled();
    expect(w.env.values(w.ss.id, 'H2:H11').every(([value]) => String(value).includes('@'))).toBe(true);
    expectEachPaidOnce(w, 200);
  });
});
