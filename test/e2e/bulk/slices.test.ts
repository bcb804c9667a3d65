/**
 * Several slices of one bulk run at once, each on its own window of rows: two slices leasing at once, a slice
 * killed mid-window (its window leased again after its lease ends), Pause during three slices, and another user's
 * executions beside them. Each profile paid once (at most once more after a lost answer), the credits log equal to
 * the sandbox's ledger.
 */

import type { ExecutionResult } from '../../../emulator';
import type { LedgerEntry } from '../../../sandbox/service';
import type { Job } from '../../../src/bulk/job';
import { LEASE_MS } from '../../../src/core/limits';
import { CREDITS_SHEET, JOB_PROPERTY } from '../../../src/core/propertyNames';
import { type Charge, parseChargeRow } from '../../../src/store/credits';
import { waitFor } from '../../sandbox/helpers';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  sentFor,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { drive, mismatches, type ProgressView } from './helpers';

let world: World | undefined;
let releaseHold: (() => void) | undefined;
afterEach(async () => {
  releaseHold?.();
  releaseHold = undefined;
  await world?.close();
  world = undefined;
});

const BATCH = 10;

function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

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

function lookups(w: World): LedgerEntry[] {
  return w.sandbox.service.ledger().filter((entry) => entry.networkUrl !== undefined && !entry.keyCheck);
}

function logOf(w: World): Charge[] {
  const rows = w.env.values(w.ss.id, 'A1:G1000', CREDITS_SHEET);
  return rows.slice(1).flatMap((row) => parseChargeRow(row) ?? []);
}

function tally<T>(items: T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}

/** The credits log, row for row, is the ledger's charged lookups (a lost answer is its own "maybe charged" row). */
function expectLogEqualsLedger(w: World): void {
  const charged = lookups(w).filter((entry) => entry.charged === 1 || entry.status === 'reset');
  expect(tally(logOf(w), (c) => sentFor(c.profile))).toEqual(tally(charged, (e) => e.networkUrl ?? ''));
}

function chargesByProfile(w: World): Map<string, number> {
  return tally(
    lookups(w).filter((entry) => entry.charged === 1),
    (e) => e.networkUrl ?? '',
  );
}

/** Prepares a run of `rows` rows (the plan asked for, no lookup sent) and starts it as an execution. */
async function startHeld(w: World, rows: number): Promise<{ first: Promise<ExecutionResult> }> {
  w.env.select(w.ss.id, `A1:A${rows + 1}`);
  const plan = (await w.env.run('getRunPlan', [{}], w.as())) as { credits: number };
  releaseHold = w.sandbox.service.hold();
  return { first: w.env.execute('startRun', [{ confirmedCredits: plan.credits }], w.as()) };
}

function release(): void {
  releaseHold?.();
  releaseHold = undefined;
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
    const charges = chargesByProfile(world);
    expect(charges.size).toBe(50);
    expect([...charges.values()].every((count) => count === 1)).toBe(true);
    expectLogEqualsLedger(world);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D51'))).toEqual([]);
  });

  it('a slice killed mid-window leaves its window to be leased again after its lease ends; its profiles paid at most once more', async () => {
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
    expect(mismatches(world.env.values(world.ss.id, 'A2:D31'))).toEqual([]);
    const charges = chargesByProfile(world);
    expect(charges.size).toBe(30);
    const killedProfiles = new Set(
      world.env
        .values(world.ss.id, `A${killedWindow.from}:A${killedWindow.to}`)
        .map((row) => sentFor(String(row[0]))),
    );
    for (const [profile, count] of charges)
      expect(count).toBeLessThanOrEqual(killedProfiles.has(profile) ? 2 : 1);
    expectLogEqualsLedger(world);
  });

  it('Pause during three slices: each finishes its batch and writes it, none takes another window', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(60, 'cy-paused')],
      scriptProperties: { ENRICH_BATCH_SIZE: String(BATCH) },
    });
    await warmWorkers(world, 5);
    const { first } = await startHeld(world, 60);
    await waitFor(() => world?.sandbox.service.held === BATCH, 10_000);
    const others = [
      world.env.execute('continueEnrichment', [], world.as()),
      world.env.execute('continueEnrichment', [], world.as()),
    ];
    await waitFor(() => world?.sandbox.service.held === 3 * BATCH, 10_000);
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
    const resumed = (await world.env.run('resumeEnrichment', [], world.as())) as ProgressView;
    expect(resumed.state).not.toBe('paused');
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
    const charges = chargesByProfile(world);
    expect(charges.size).toBe(40);
    expect([...charges.values()].every((count) => count === 1)).toBe(true);
    expectLogEqualsLedger(world);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D41'))).toEqual([]);
  });
});
