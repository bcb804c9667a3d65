/** Shared steps of the enrichment tests: drive a job to its end, read its rows, check results against the sandbox. */
import { predictLookup } from '../../../sandbox/profiles';
import type { LedgerEntry } from '../../../sandbox/service';
import type { Progress as ProgressView } from '../../../src/api';
import { CREDITS_SHEET } from '../../../src/core/propertyNames';
import { type Charge, parseChargeRow } from '../../../src/store/credits';
import { sentFor, url, type World } from '../../support/harness';

export type { Progress as ProgressView } from '../../../src/api';

/** The most the clock moves on in one drive: far under a window's lease (LEASE_MS), which it must not outlast. */
const IDLE_PAUSES_MS = 60_000;

/**
 * Calls continueEnrichment until the job leaves `running` (bounded). `idlePauseMs`: after a slice that moved
 * nothing, the emulator's clock moves on this much, as the sidebar pauses (src/sidebar/drive.ts) — under
 * LockService's rate quota (LOCK_QUOTA) back-to-back calls would keep a per-second quota spent however fast the
 * machine is.
 */
export async function drive(world: World, maxSlices = 400, idlePauseMs = 0): Promise<ProgressView> {
  let progress = (await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView;
  let paused = 0;
  for (let slice = 0; slice < maxSlices && progress.state === 'running'; slice++) {
    const before = progress.processed;
    progress = (await world.env.run('continueEnrichment', [], world.as())) as ProgressView;
    if (
      idlePauseMs &&
      progress.state === 'running' &&
      progress.processed === before &&
      paused < IDLE_PAUSES_MS
    ) {
      world.env.advanceClock(idlePauseMs);
      paused += idlePauseMs;
    }
  }
  return progress;
}

/**
 * `count` lanes as the sidebar drives them: continueEnrichment again while the run is running (200 calls a lane at
 * most). A call that moved nothing waits, as the sidebar pauses, for the next end of another lane's call or of
 * `alongside` (formulas evaluated meanwhile): the rows it could not take are theirs. Without the wait the 200 calls
 * are spent as fast as the machine makes them.
 */
export function lanes(
  world: World,
  started: ProgressView,
  count: number,
  alongside?: Promise<unknown>,
): Promise<ProgressView[]> {
  const busy = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    busy.add(work);
    work.then(
      () => busy.delete(work),
      () => busy.delete(work),
    );
  };
  if (alongside) track(alongside);
  const one = async () => {
    let progress = started;
    for (let call = 0; call < 200 && progress.state === 'running'; call++) {
      const before = progress.processed;
      const made = world.env.run('continueEnrichment', [], world.as()) as Promise<ProgressView>;
      track(made);
      progress = await made;
      busy.delete(made);
      if (progress.state === 'running' && progress.processed === before && busy.size > 0)
        await Promise.race(busy).catch(() => undefined);
    }
    return progress;
  };
  return Promise.all(Array.from({ length: count }, one));
}

/**
 * Selects the rows and starts a run the way a person does who accepts its plan: the price shown (a run above the
 * threshold asks first), and `request.placement` when the columns beside the URLs hold data.
 */
export async function start(
  world: World,
  a1: string,
  request: Record<string, unknown> = {},
): Promise<ProgressView> {
  world.env.select(world.ss.id, a1);
  const plan = (await world.env.run('getRunPlan', [request], world.as())) as { credits: number };
  const started = (await world.env.run(
    'startRun',
    [{ ...request, confirmedCredits: plan.credits }],
    world.as(),
  )) as { progress: ProgressView };
  return started.progress;
}

/** What the URL's row must show: [Email, Email status, Catch-all] from the sandbox's own rules. */
export function expectedCells(networkUrl: string): [string, string, boolean | ''] {
  if (/\/in\/[^/]*\bbroken\b/.test(networkUrl)) return ['', 'ERROR', '']; // always a 500 (sandbox/service.ts)
  const prediction = predictLookup(networkUrl);
  if (prediction.kind === 'found') return [prediction.email, 'VALID', prediction.isCatchAll];
  if (prediction.kind === 'not_found') return ['', 'NOT_FOUND', ''];
  return ['', 'UNPROCESSABLE', ''];
}

/** Every row of `values` (URL first, then Email, Email status, Catch-all) holds its own URL's result. */
export function mismatches(values: unknown[][]): string[] {
  const wrong: string[] = [];
  values.forEach((row, index) => {
    const link = String(row[0]);
    if (!link.includes('/in/')) return;
    const expected = expectedCells(link);
    const actual = [row[1], row[2], row[3]];
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      wrong.push(`row ${index}: ${link} -> ${JSON.stringify(actual)} (want ${JSON.stringify(expected)})`);
    }
  });
  return wrong;
}

export function chargedTwice(world: World): string[] {
  return Object.entries(world.charges())
    .filter(([, n]) => n > 1)
    .map(([key]) => key);
}

export function sheetOf(world: World) {
  return world.ss.sheets[0];
}

/** The sandbox's lookups that reached it and ended (the free key checks left out), in arrival order. */
export function lookups(w: World): LedgerEntry[] {
  return w.sandbox.service.ledger().filter((entry) => entry.networkUrl !== undefined && !entry.keyCheck);
}

/** The rows of the credits log sheet, as charges. */
export function logOf(w: World): Charge[] {
  const rows = w.ss.sheetByName(CREDITS_SHEET)?.maxRows ?? 0;
  if (rows === 0) return [];
  return w.env
    .values(w.ss.id, `A1:G${rows}`, CREDITS_SHEET)
    .slice(1)
    .flatMap((row) => parseChargeRow(row) ?? []);
}

function tally<T>(items: T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}

/** The credits log, row for row, is the ledger's charged lookups (a lost answer is its own "maybe charged" row). */
export function expectLogEqualsLedger(w: World): void {
  const charged = lookups(w).filter((entry) => entry.charged === 1 || entry.status === 'reset');
  expect(tally(logOf(w), (c) => sentFor(c.profile))).toEqual(tally(charged, (e) => e.networkUrl ?? ''));
}

/** Profile (as sent) -> credits the sandbox charged for it. */
export function chargesByProfile(w: World): Map<string, number> {
  return tally(
    lookups(w).filter((entry) => entry.charged === 1),
    (e) => e.networkUrl ?? '',
  );
}

/** `count` rows of one profile URL each, `<prefix>-0` onwards. */
export function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}
