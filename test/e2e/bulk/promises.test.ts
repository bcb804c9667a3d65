/**
 * The money promises of a bulk run that issue 39 found broken, each shown from outside the add-on: the requests that
 * reached the sandbox (its ledger, and what it holds now), the credits it charged per profile, the credits log equal
 * to the ledger, the rows written, the run's progress as the sidebar reads it. A person's click, another slice, a
 * lock refused (env.refuseLockCalls) or the platform's time limit (env.endByTimeLimit) arrive as other executions
 * while a slice's batch is at the service, held there by the sandbox, or while the slice is held at one of its
 * service calls (env.onServiceCall): no assertion rests on the machine's speed. Each test names the promise it
 * holds the add-on to; none reads the add-on's stored records.
 */

import type { FetchRecord, ServiceCall } from '../../../emulator';
import { ODD_SLUGS } from '../../../sandbox/profiles';
import { DEFAULT_STEP_BUDGET_MS } from '../../../src/core/limits';
import { findEmail } from '../../bundle/helpers';
import { waitFor } from '../../sandbox/helpers';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  sentFor,
  startWorld,
  url,
  type World,
  type WorldOptions,
} from '../../support/harness';
import { emailOf } from '../formula/helpers';
import {
  chargesByProfile,
  drive,
  expectLogEqualsLedger,
  logOf,
  lookups,
  mismatches,
  type ProgressView,
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

const WAIT_MS = 10_000;
/** The longest test evaluates a thousand =FINDEMAIL cells (about 20 s here); a lock refused costs 15 s of pauses. */
jest.setTimeout(300_000);

function isLookup(fetch: FetchRecord): boolean {
  return fetch.payload?.includes('network_url') === true;
}

/** Lookup requests the emulator has sent and not seen answered. */
function unanswered(w: World): FetchRecord[] {
  return w.env.fetches.filter((fetch) => isLookup(fetch) && fetch.endedAt === 0);
}

/** Lookups sent so far: answered (in the ledger) and under way. */
function sentSoFar(w: World): number {
  return lookups(w).length + unanswered(w).length;
}

/**
 * Waits until `executions` executions each have a batch of lookups at the sandbox, every request of them held there.
 */
async function batchesHeld(w: World, executions: number): Promise<void> {
  await waitFor(() => {
    const open = unanswered(w);
    return (
      open.length > 0 &&
      w.sandbox.service.held === open.length &&
      new Set(open.map((fetch) => fetch.execId)).size === executions
    );
  }, WAIT_MS);
}

function hold(w: World): void {
  releaseHold = w.sandbox.service.hold();
}

function release(): void {
  releaseHold?.();
  releaseHold = undefined;
}

function progressOf(w: World, user?: string): Promise<ProgressView> {
  return w.env.run('getEnrichmentProgress', [], w.as(user)) as Promise<ProgressView>;
}

/** Rows of `a1` (URL, Email, Email status, Catch-all) with a status written. */
function rowsWritten(w: World, a1: string): unknown[][] {
  return w.env.values(w.ss.id, a1).filter((row) => row[2] !== '');
}

/** A world whose first sheet holds `data` under a header, the editor's key saved too. */
async function worldWith(data: string[][], options: WorldOptions = {}): Promise<World> {
  const w = await startWorld({
    data: [['Profile'], ...data],
    rows: data.length + 10,
    credits: 10_000,
    ...options,
  });
  w.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
  return w;
}

/**
 * A run of this spreadsheet before the one a test watches, driven to its end: its slices learned that the service
 * answers fast, so the next run's slices send whole batches side by side (the run's pace is kept per spreadsheet).
 */
async function runBefore(w: World, a1: string): Promise<void> {
  await start(w, a1);
  expect((await drive(w)).state).toBe('done');
}

type Click = 'pauseEnrichment' | 'cancelEnrichment';

/**
 * Starts the run of `a1` (more rows than one batch: Start sends nothing, the sidebar's slices send), opens `slices`
 * slices one after the other as the sidebar does, each holding its batch at the sandbox; the editor's sidebar asks
 * for a slice meanwhile; then the starter clicks. Returns, once every slice has ended, the lookups sent when the click
 * was made (`sentAtClick`, all runs) and those of this run (`sentByRun`).
 */
async function clickWhileBatchesHeld(w: World, a1: string, slices: number, click: Click) {
  const before = sentSoFar(w);
  const started = await start(w, a1);
  expect(started).toMatchObject({ state: 'running', processed: 0 });
  hold(w);
  const running = [];
  for (let slice = 1; slice <= slices; slice++) {
    running.push(w.env.execute('continueEnrichment', [], w.as()));
    await batchesHeld(w, slice);
  }
  const editors = (await w.env.run('continueEnrichment', [], w.as(EDITOR))) as ProgressView;
  expect(editors.readOnly).toBe(true);
  const sentAtClick = sentSoFar(w);
  const clicked = (await w.env.run(click, [], w.as())) as ProgressView;
  expect(clicked.state).toBe(click === 'pauseEnrichment' ? 'paused' : 'cancelled');
  release();
  const ended = await Promise.all(running);
  expect(ended.map((result) => result.error?.message)).toEqual(ended.map(() => undefined));
  return { sentAtClick, sentByRun: sentAtClick - before };
}

/** What a click during batches at the service promises, once the slices have ended. */
async function expectBatchesWrittenNothingMore(
  w: World,
  a1: string,
  sent: { sentAtClick: number; sentByRun: number },
  state: 'paused' | 'cancelled',
): Promise<void> {
  const { sentAtClick, sentByRun } = sent;
  expect({ lookupsSentAfterTheClick: lookups(w).length - sentAtClick }).toEqual({
    lookupsSentAfterTheClick: 0,
  });
  const after = await progressOf(w);
  expect(after).toMatchObject({ state, processed: sentByRun, creditsUsed: sentByRun });
  const written = rowsWritten(w, a1);
  expect(written).toHaveLength(sentByRun);
  expect(mismatches(written)).toEqual([]);
  expect([...chargesByProfile(w).values()].every((count) => count === 1)).toBe(true);
  expect(lookups(w).filter((entry) => entry.organization === EDITOR_ORG)).toEqual([]);
  expectLogEqualsLedger(w);
}

/**
 * Drives the run as its sidebar does until it leaves `running` (bounded): after a slice that moved nothing, the
 * emulator's clock moves on a minute (at most `maxClockMs` in all), as time passes while the sidebar waits.
 */
async function driveOn(w: World, maxClockMs = 15 * 60_000): Promise<ProgressView> {
  let progress = await progressOf(w);
  let moved = 0;
  for (let slice = 0; slice < 300 && progress.state === 'running'; slice++) {
    const before = progress.processed;
    progress = (await w.env.run('continueEnrichment', [], w.as())) as ProgressView;
    if (progress.state === 'running' && progress.processed === before && moved < maxClockMs) {
      w.env.advanceClock(60_000);
      moved += 60_000;
    }
  }
  return progress;
}

/** Every one of `profiles` profiles charged exactly once, the credits log equal to the ledger. */
function expectEachPaidOnce(w: World, profiles: number): void {
  const charges = chargesByProfile(w);
  const paidMore = [...charges.values()].filter((count) => count > 1).length;
  expect({
    profilesCharged: charges.size,
    profilesChargedTwice: paidMore,
    credits: lookups(w).filter((e) => e.charged === 1).length,
  }).toEqual({
    profilesCharged: profiles,
    profilesChargedTwice: 0,
    credits: profiles,
  });
  expectLogEqualsLedger(w);
}

/** Holds the first service call matching `matches` in its execution (env.onServiceCall) until `go` is called. */
function holdCall(w: World, matches: (call: ServiceCall) => boolean) {
  let reached: ServiceCall | undefined;
  let go = () => {};
  const gate = new Promise<void>((resolve) => {
    go = resolve;
  });
  const remove = w.env.onServiceCall((call) => {
    if (reached || !matches(call)) return;
    reached = call;
    remove();
    return gate;
  });
  return { reached: () => reached, go };
}

/**
 * One slice of the run that runs out of time while its batch is at the service (the emulator's clock moves past its
 * budget): it writes that batch and ends, as on a slow service.
 */
async function sliceOutOfTime(w: World): Promise<void> {
  hold(w);
  const slice = w.env.execute('continueEnrichment', [], w.as());
  await batchesHeld(w, 1);
  w.env.advanceClock(DEFAULT_STEP_BUDGET_MS);
  release();
  expect((await slice).ok).toBe(true);
}

function sendsLookups(call: ServiceCall): boolean {
  return call.op.startsWith('UrlFetchApp.') && JSON.stringify(call.args).includes('network_url');
}

/** The service takes this many requests in flight and answers the rest 429 with a Retry-After of a second. */
const SERVICE_LIMIT = { maxInFlight: 25, retryAfterSeconds: 1 };

/**
 * A world whose service takes SERVICE_LIMIT's requests in flight, where a run of 50 rows before the watched one met
 * that limit (at a second a lookup, a batch's requests are all in flight at once) and so learned it. The lookups
 * are then answered at once again.
 */
async function worldThatLearnedTheLimit(prefix: string, rows: number): Promise<World> {
  const w = await worldWith([...urls(50, `${prefix}-before`), ...urls(rows, prefix)], {
    faults: { rateLimit: SERVICE_LIMIT, latencyMs: 1000 },
  });
  await runBefore(w, 'A1:A51');
  expect(w.sandbox.service.ledger().filter((entry) => entry.status === 429).length).toBeGreaterThan(0);
  w.sandbox.service.configure({ rateLimit: SERVICE_LIMIT });
  return w;
}

/** Requests the service refused since ledger entry `from` for being over its limit of requests in flight. */
function overTheLimit(w: World, from: number): number {
  return w.sandbox.service
    .ledger()
    .slice(from)
    .filter((entry) => entry.faultSource === 'inFlightLimit').length;
}

/** Execution `execId` has its batch at the sandbox (every request held), waits (sleeping), or has ended. */
function settled(w: World, execId: number | undefined, ended: () => boolean, sleepsBefore: number): boolean {
  if (ended()) return true;
  if (execId === undefined) return false;
  if (w.env.sleeps.slice(sleepsBefore).some((sleep) => sleep.execId === execId)) return true;
  const open = unanswered(w);
  return open.some((fetch) => fetch.execId === execId) && w.sandbox.service.held === open.length;
}

function tracked<T>(promise: Promise<T>): { promise: Promise<T>; ended: () => boolean } {
  let done = false;
  void promise.finally(() => {
    done = true;
  });
  return { promise, ended: () => done };
}

describe('Pause and Cancel: the batch at the service is written and nothing more is sent', () => {
  it('Pause while a batch is at the service: nothing more is sent, the batch is written', async () => {
    world = await worldWith(urls(300, 'pa-one'));
    const sent = await clickWhileBatchesHeld(world, 'A1:A301', 1, 'pauseEnrichment');
    await expectBatchesWrittenNothingMore(world, 'A2:D301', sent, 'paused');
  });

  it('Cancel while a batch is at the service: nothing more is sent, the batch is written', async () => {
    world = await worldWith(urls(300, 'ca-one'));
    const sent = await clickWhileBatchesHeld(world, 'A1:A301', 1, 'cancelEnrichment');
    await expectBatchesWrittenNothingMore(world, 'A2:D301', sent, 'cancelled');
  });

  it('Pause while three slices have their batches at the service: nothing more is sent, the three batches are written', async () => {
    world = await worldWith([...urls(500, 'pt-before'), ...urls(1200, 'pt-three')]);
    await runBefore(world, 'A1:A501');
    const sent = await clickWhileBatchesHeld(world, 'A502:A1701', 3, 'pauseEnrichment');
    await expectBatchesWrittenNothingMore(world, 'A502:D1701', sent, 'paused');
  });

  it('Cancel while three slices have their batches at the service: nothing more is sent, the three batches are written', async () => {
    world = await worldWith([...urls(500, 'ct-before'), ...urls(1200, 'ct-three')]);
    await runBefore(world, 'A1:A501');
    const sent = await clickWhileBatchesHeld(world, 'A502:A1701', 3, 'cancelEnrichment');
    await expectBatchesWrittenNothingMore(world, 'A502:D1701', sent, 'cancelled');
  });
});

describe('a lock refused: a paid answer is never bought again', () => {
  it('A slice whose every lock call is refused from the moment its batch is at the service: once the refusal lifts, the run ends with each profile paid once and the credits log equal to the ledger', async () => {
    world = await worldWith(urls(300, 'lr-refused'), { scriptProperties: { ENRICH_BATCH_SIZE: '50' } });
    const w = world;
    await start(w, 'A1:A301');
    hold(w);
    const first = w.env.execute('continueEnrichment', [], w.as());
    await batchesHeld(w, 1);
    // From now LockService refuses every lock call of this slice (its rate quota, spent by the script's others).
    const lift = w.env.refuseLockCalls({ execId: unanswered(w)[0].execId });
    // Another slice of the run beside it, its locks granted; the editor's sidebar asks for one too.
    const second = w.env.execute('continueEnrichment', [], w.as());
    await batchesHeld(w, 2);
    expect(((await w.env.run('continueEnrichment', [], w.as(EDITOR))) as ProgressView).readOnly).toBe(true);
    release();
    await Promise.all([first, second]);
    lift();
    // The sidebar drives the run to its end, minutes passing while it waits.
    const done = await driveOn(w);
    expect(done.state).toBe('done');
    expectEachPaidOnce(w, 300);
    expect(rowsWritten(w, 'A2:D301')).toHaveLength(300);
    expect(mismatches(w.env.values(w.ss.id, 'A2:D301'))).toEqual([]);
    // What the run reports spending is what the service charged.
    const charged = lookups(w).filter((entry) => entry.charged === 1).length;
    expect(done.creditsUsed + done.creditsMaybeLost).toBe(charged);
    expect(lookups(w).filter((entry) => entry.organization === EDITOR_ORG)).toEqual([]);
  });
});

describe('killed and stranded slices', () => {
  it("A slice killed by the platform during its window's second batch: once its 6 minutes are over, the run ends with no row left empty, each profile paid at most once: the killed batch's rows ERROR, its answers lost, not bought again", async () => {
    world = await worldWith(urls(300, 'ki-killed'));
    const w = world;
    await start(w, 'A1:A301');
    hold(w);
    const killed = w.env.execute('continueEnrichment', [], w.as());
    await batchesHeld(w, 1);
    const slice = unanswered(w)[0].execId;
    const startedAt = w.env.now();
    // Ten seconds pass while the first batch is at the service (the emulator's clock): the next still fits the slice.
    w.env.advanceClock(10_000);
    // Its next batch (the window's second) is held in the slice right before it leaves, then at the service.
    const next = holdCall(
      w,
      (call) => call.execId === slice && call.phase === 'before' && sendsLookups(call),
    );
    release();
    await waitFor(() => next.reached() !== undefined, WAIT_MS);
    hold(w);
    next.go();
    await batchesHeld(w, 1);
    // The profiles of the batch at the service when the platform ends the slice.
    const atService = new Set(
      unanswered(w)
        .filter((fetch) => fetch.execId === slice)
        .map((fetch) => (JSON.parse(fetch.payload ?? '{}') as { network_url: string }).network_url),
    );
    expect(atService.size).toBeGreaterThan(0);
    // The platform ends the slice at its time limit while its second batch is at the service.
    expect(w.env.endByTimeLimit('execution')).toBe(1);
    expect((await killed).timedOut).toBe(true);
    release();
    // The killed execution's 6 minutes are over: its window is free again.
    w.env.advanceClock(startedAt + 6 * 60_000 + 5_000 - w.env.now());
    const done = await drive(w, 100);
    expect(done.state).toBe('done');
    expect({ rowsLeftEmpty: 300 - rowsWritten(w, 'A2:D301').length }).toEqual({ rowsLeftEmpty: 0 });
    // The service charged the killed batch, whose answers never reached a sheet: its rows say so, the others hold
    // their results.
    const values = w.env.values(w.ss.id, 'A2:E301');
    const lostRows = values.filter((row) => atService.has(sentFor(String(row[0]))));
    expect(lostRows).toHaveLength(atService.size);
    for (const row of lostRows)
      expect(row.slice(1)).toEqual([
        '',
        'ERROR',
        '',
        'The answer was lost on the way: its execution ended before the answer came; the service may have charged a credit. To look it up again (1 credit): Extensions › Profile Email Finder › Retry failed rows in the selected column.',
      ]);
    expect(mismatches(values.filter((row) => !atService.has(sentFor(String(row[0])))))).toEqual([]);
    // Nothing sent twice: a lost answer is not bought again.
    expect(lookups(w)).toHaveLength(300);
    expect([...chargesByProfile(w).values()].filter((count) => count > 1)).toEqual([]);
    expect(done.creditsMaybeLost).toBe(atService.size);
    expect(done.creditsUsed + done.creditsMaybeLost).toBe(300);
    expectLogEqualsLedger(w);
  });

  it("A refused release: every row written, the last slice's lock refused from then on; once the refusal lifts, the run is Done within seconds", async () => {
    world = await worldWith(urls(150, 're-release'), { scriptProperties: { ENRICH_BATCH_SIZE: '50' } });
    const w = world;
    await start(w, 'A1:A151');
    // The first 100 lookups are answered; the last batch is held at the service.
    releaseHold = w.sandbox.service.hold(100);
    const last = w.env.execute('continueEnrichment', [], w.as());
    await batchesHeld(w, 1);
    const slice = unanswered(w)[0].execId;
    const sheetId = w.ss.sheets[0].id;
    // Once the slice has written the last batch's rows (the Email column), LockService refuses its lock calls.
    const written = holdCall(w, (call) => {
      const range = call.args[0] as { sheet?: number; col?: number };
      return (
        call.execId === slice &&
        call.phase === 'after' &&
        call.op === 'Range.setValues' &&
        range.sheet === sheetId &&
        range.col === 2
      );
    });
    release();
    await waitFor(() => written.reached() !== undefined, WAIT_MS);
    const lift = w.env.refuseLockCalls({ execId: slice });
    written.go();
    await last;
    expect(rowsWritten(w, 'A2:D151')).toHaveLength(150);
    lift();
    // Ten seconds later the sidebar drives the run on.
    w.env.advanceClock(10_000);
    const done = await drive(w, 20);
    expect({ state: done.state, processed: done.processed }).toEqual({ state: 'done', processed: 150 });
    expectEachPaidOnce(w, 150);
    expect(mismatches(w.env.values(w.ss.id, 'A2:D151'))).toEqual([]);
  });
});

describe('an answer lost after its charge', () => {
  it('A formula and a bulk slice at once, then two formulas at once, three times over, the document cache forgetting: an answer lost after its charge is not bought again', async () => {
    const inputs = [
      url(`${ODD_SLUGS.lostAnswer}la-one`),
      url(`${ODD_SLUGS.lostAnswer}la-two`),
      ...urls(4, 'la-other').map(([input]) => input),
    ];
    world = await worldWith(
      inputs.map((input) => [input]),
      { env: { maxConcurrent: 8, cacheEviction: { probability: 1, seed: 3 } } },
    );
    const w = world;
    const evaluate = async (values: string[]) => {
      const result = await findEmail(
        w,
        values.map((value) => [value]),
      );
      expect(result.error?.message).toBeUndefined();
    };
    for (let round = 0; round < 3; round++) {
      w.env.documentCache(w.ss.id).entries.clear();
      w.env.select(w.ss.id, 'A1:A7');
      const other =
        round === 0 ? w.env.execute('enrichSelection', [], w.as()) : evaluate([...inputs].reverse());
      await Promise.all([evaluate(inputs), other]);
    }
    expect((await drive(w)).state).not.toBe('running');
    const sent = new Map<string, number>();
    for (const entry of lookups(w))
      sent.set(entry.networkUrl ?? '', (sent.get(entry.networkUrl ?? '') ?? 0) + 1);
    expect({ sentTwice: [...sent].filter(([, count]) => count > 1) }).toEqual({ sentTwice: [] });
    expect(sent.get(sentFor(inputs[0]))).toBe(1);
    expect(sent.get(sentFor(inputs[1]))).toBe(1);
    expect([...chargesByProfile(w).values()].filter((count) => count > 1)).toEqual([]);
    // The run's rows of the two say ERROR, their answers lost (as does any row whose answer was in the same
    // fetchAll: every answer of it was lost); the others hold their results.
    const values = w.env.values(w.ss.id, 'A2:E7');
    expect(values.slice(0, 2).map((row) => row[2])).toEqual(['ERROR', 'ERROR']);
    const failed = values.filter((row) => row[2] === 'ERROR');
    for (const row of failed) expect(String(row[4])).toMatch(/^The answer was lost on the way: /);
    expect(mismatches(values.filter((row) => row[2] !== 'ERROR'))).toEqual([]);
    expectLogEqualsLedger(w);
  });
});

describe('re-check', () => {
  it('Re-check over rows with duplicate profiles, three slices at once: at Done no row keeps its old address and none is empty', async () => {
    // Rows 2..31: two profiles appear three times each, ten rows apart (in three slices' windows at once).
    const data = urls(30, 'rc-row');
    for (const row of [3, 13, 23]) data[row - 2] = [url('rc-dup-a')];
    for (const row of [5, 15, 25]) data[row - 2] = [url('rc-dup-b')];
    world = await worldWith(data, { scriptProperties: { ENRICH_BATCH_SIZE: '10' } });
    const w = world;
    await start(w, 'A1:A31');
    expect((await drive(w)).state).toBe('done');
    expect(mismatches(w.env.values(w.ss.id, 'A2:D31'))).toEqual([]);
    // Last month's addresses, which the service no longer gives.
    w.env.enter(
      w.ss.id,
      'B2:B31',
      data.map(() => ['old@example.com']),
    );
    const started = await start(w, 'A1:A31', { recheck: true });
    expect(started).toMatchObject({ state: 'running', processed: 0 });
    hold(w);
    const slices = [];
    for (let slice = 1; slice <= 3; slice++) {
      slices.push(w.env.execute('continueEnrichment', [], w.as()));
      await batchesHeld(w, slice);
    }
    release();
    expect((await Promise.all(slices)).every((result) => result.ok)).toBe(true);
    const done = await drive(w);
    expect(done.state).toBe('done');
    const values = w.env.values(w.ss.id, 'A2:D31');
    expect(values.filter((row) => row[1] === 'old@example.com').map((row) => row[0])).toEqual([]);
    expect(values.filter((row) => row[2] === '')).toEqual([]);
    expect(mismatches(values)).toEqual([]);
  });
});

describe('the document property store', () => {
  it('A bulk run with no formula result waiting never writes the whole document property store anew', async () => {
    world = await worldWith(urls(40, 'ws-rewrite'), { scriptProperties: { ENRICH_BATCH_SIZE: '10' } });
    const w = world;
    await start(w, 'A1:A41');
    // Three slices one after the other, each out of time once its batch is answered (a slow service).
    for (let slice = 0; slice < 3; slice++) await sliceOutOfTime(w);
    expect((await drive(w)).state).toBe('done');
    const rewrites = w.env.storeRewrites.filter((rewrite) => rewrite.store === 'document');
    expect({ wholeStoreRewrites: rewrites.length, by: [...new Set(rewrites.map((r) => r.fn))] }).toEqual({
      wholeStoreRewrites: 0,
      by: [],
    });
    expectEachPaidOnce(w, 40);
  });

  it("A formula's paid answer that lands while a slice starts is kept, even when the document cache forgets: the profile is never paid again", async () => {
    world = await worldWith(urls(30, 'fk-bulk'), {
      scriptProperties: { ENRICH_BATCH_SIZE: '10' },
      // "Be prepared to get back null from all reads" (apps-script/reference/cache/cache).
      env: { cacheEviction: { probability: 1, seed: 1 } },
    });
    const w = world;
    const typed = url('fk-typed');
    w.env.enter(w.ss.id, 'H2:H3', [[typed], [typed]]);
    await start(w, 'A1:A31');
    await sliceOutOfTime(w);
    // A person enters =FINDEMAIL beside a profile: its request is at the service.
    hold(w);
    w.env.enter(w.ss.id, 'I2', [['=FINDEMAIL(H2)']]);
    const formula = w.env.recalculate(w.ss.id, { cells: [{ a1: 'I2' }] });
    await batchesHeld(w, 1);
    // The sidebar's next slice starts; it is held right before it writes the document's properties anew, if it does.
    const rewrite = holdCall(
      w,
      (call) => call.phase === 'before' && call.op === 'Properties.setProperties' && call.args[2] === true,
    );
    let sliceEnded = false;
    const slice = w.env.execute('continueEnrichment', [], w.as());
    void slice.then(() => {
      sliceEnded = true;
    });
    await waitFor(() => rewrite.reached() !== undefined || sliceEnded || unanswered(w).length > 1, WAIT_MS);
    // The formula's answer comes back and is kept (no lock needed); then the slice goes on.
    release();
    await formula;
    expect(w.env.values(w.ss.id, 'I2')).toEqual([[emailOf(typed)]]);
    rewrite.go();
    expect((await slice).ok).toBe(true);
    // Later, the same profile in another cell: its answer was paid for already.
    w.env.advanceClock(60_000);
    w.env.enter(w.ss.id, 'I3', [['=FINDEMAIL(H3)']]);
    await w.env.recalculate(w.ss.id, { cells: [{ a1: 'I3' }] });
    expect(w.env.values(w.ss.id, 'I3')).toEqual([[emailOf(typed)]]);
    expect({ creditsForTheTypedProfile: chargesByProfile(w).get(sentFor(typed)) }).toEqual({
      creditsForTheTypedProfile: 1,
    });
    expect((await drive(w)).state).toBe('done');
    // The person opens the Credits tab: what formulas paid for is in the log by then.
    await w.env.run('getCreditsSummary', [], w.as());
    expectLogEqualsLedger(w);
  });
});

describe('the run never has more requests in flight than the service takes', () => {
  it("Slices at once never have more requests in flight than the run's pace: whichever of its document-cache reads the first slice is slow after, a second slice beside it is never refused for too many requests in flight", async () => {
    const refusedAt: Array<{ slowAfterRead: number; refused: number; held: number }> = [];
    for (let read = 1; read <= 30; read++) {
      world = await worldThatLearnedTheLimit(`sp${read}`, 200);
      const w = world;
      const from = w.sandbox.service.ledger().length;
      await start(w, 'A52:A251');
      hold(w);
      let first: number | undefined;
      let second: number | undefined;
      let reads = 0;
      let sent = false;
      let slow = false;
      let go = () => {};
      const gate = new Promise<void>((resolve) => {
        go = resolve;
      });
      const stop = w.env.onServiceCall((call) => {
        if (call.fn !== 'continueEnrichment') return;
        first ??= call.execId;
        if (call.execId !== first) {
          second ??= call.execId;
          return;
        }
        if (call.phase === 'before' && sendsLookups(call)) sent = true;
        const documentRead =
          call.op === 'Cache.getAll' && (call.args[0] as { kind?: string }).kind === 'document';
        if (sent || call.phase !== 'after' || !documentRead) return;
        reads++;
        if (reads !== read) return;
        slow = true;
        return gate;
      });
      const sleeps = w.env.sleeps.length;
      const a = tracked(w.env.execute('continueEnrichment', [], w.as()));
      await waitFor(() => slow || settled(w, first, a.ended, sleeps), WAIT_MS);
      const explored = slow;
      if (slow) {
        // The first slice is slow right after this read; the sidebar's second slice goes on meanwhile.
        const b = tracked(w.env.execute('continueEnrichment', [], w.as()));
        await waitFor(() => settled(w, second, b.ended, sleeps), WAIT_MS);
        go();
        await waitFor(() => settled(w, first, a.ended, sleeps), WAIT_MS);
        const refused = overTheLimit(w, from);
        if (refused > 0 || w.sandbox.service.held > SERVICE_LIMIT.maxInFlight)
          refusedAt.push({ slowAfterRead: read, refused, held: w.sandbox.service.held });
        release();
        await b.promise;
      }
      release();
      await a.promise;
      stop();
      await world.close();
      world = undefined;
      // Past the last read before the first slice's batch leaves: every point was tried.
      if (!explored) break;
    }
    expect(refusedAt).toEqual([]);
  });
});

describe('a run replaced, the add-on data removed', () => {
  it("A cancelled run's slice whose batch comes back after a new run has started sends nothing more, and the new run ends with every row written and counted", async () => {
    world = await worldWith(urls(300, 'nr-new'), { scriptProperties: { ENRICH_BATCH_SIZE: '50' } });
    const w = world;
    await start(w, 'A1:A301');
    hold(w);
    const old = w.env.execute('continueEnrichment', [], w.as());
    await batchesHeld(w, 1);
    const oldSlice = unanswered(w)[0].execId;
    const sentByOld = () =>
      w.env.fetches.filter((fetch) => isLookup(fetch) && fetch.execId === oldSlice).length;
    const atCancel = sentByOld();
    expect(((await w.env.run('cancelEnrichment', [], w.as())) as ProgressView).state).toBe('cancelled');
    // A new run of the same rows, started while the cancelled run's batch is still at the service.
    const fresh = await start(w, 'A1:A301');
    expect(fresh).toMatchObject({ state: 'running', processed: 0, total: 300 });
    release();
    expect((await old).ok).toBe(true);
    // The new run's counts are its own.
    expect(await progressOf(w)).toMatchObject({ runId: fresh.runId, processed: 0, creditsUsed: 0 });
    expect({ sentByTheCancelledSliceAfterTheClick: sentByOld() - atCancel }).toEqual({
      sentByTheCancelledSliceAfterTheClick: 0,
    });
    const done = await drive(w);
    expect(done).toMatchObject({ state: 'done', runId: fresh.runId, total: 300, processed: 300 });
    expect(rowsWritten(w, 'A2:D301')).toHaveLength(300);
    expect(mismatches(w.env.values(w.ss.id, 'A2:D301'))).toEqual([]);
    expectEachPaidOnce(w, 300);
  });

  it("Remove this spreadsheet's add-on data while a lookup is still on its way to the service: refused until it has ended; afterwards the credits log holds every charge made since", async () => {
    world = await worldWith([[url('dr-typed')]]);
    const w = world;
    // A =FINDEMAIL cell whose request is at the service when the cell reaches its 30 s limit: the request is not
    // recalled (the service answers and charges it; UrlFetchApp gives up only after about a minute).
    hold(w);
    w.env.enter(w.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
    const cell = w.env.recalculate(w.ss.id, { cells: [{ a1: 'B2' }] });
    await batchesHeld(w, 1);
    expect(w.env.endByTimeLimit('custom')).toBe(1);
    await cell;
    w.env.advanceClock(40_000);
    const removal = (await w.env.run('removeSpreadsheetData', [], w.as())) as {
      removed: boolean;
      message: string;
    };
    const removedWhileOnItsWay = removal.removed;
    release();
    await waitFor(() => unanswered(w).length === 0, WAIT_MS);
    expect({ removedWhileALookupWasOnItsWay: removedWhileOnItsWay }).toEqual({
      removedWhileALookupWasOnItsWay: false,
    });
    w.env.advanceClock(60_000);
    const from = lookups(w).length;
    expect(((await w.env.run('removeSpreadsheetData', [], w.as())) as { removed: boolean }).removed).toBe(
      true,
    );
    // The cell evaluated again after the removal: its charge is in the log, which holds nothing else.
    await w.env.recalculate(w.ss.id, { cells: [{ a1: 'B2' }] });
    await w.env.run('getCreditsSummary', [], w.as());
    const chargedSince = lookups(w)
      .slice(from)
      .filter((entry) => entry.charged === 1 || entry.status === 'reset');
    expect(logOf(w).map((charge) => sentFor(charge.profile))).toEqual(
      chargedSince.map((entry) => entry.networkUrl),
    );
  });
});
