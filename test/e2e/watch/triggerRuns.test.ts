/**
 * The watch of a column (src/watch/) in the emulator with the sandbox: installable triggers running as the watch's
 * creator, rows from an automation tool (no event) found at the next opening, a person's paste and a form response
 * answered in their own executions, the daily limit, a 402, another editor who sees who pays and stops it, and
 * nothing paid twice with runs and formulas.
 */
import type { Environment, ExecutionResult } from '../../../emulator';
import type { CreditsSummary, WatchStart, WatchView } from '../../../src/api';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  ORG,
  OWNER,
  OWNER_KEY,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { expectedCells, start } from '../bulk/helpers';
import { lookups } from '../formula/helpers';

jest.setTimeout(120_000);

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Distinct profiles the sandbox answers (found, no address or unprocessable: each one credit). */
const profile = (prefix: string, i: number) => url(`${prefix}-${i}-lead`);

async function watchWorld(options: Parameters<typeof startWorld>[0] = {}): Promise<World> {
  const w = await startWorld({ data: [['Profile URL']], ...options });
  w.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
  return w;
}

async function startWatch(w: World, limit: unknown = 100, a1 = 'A1'): Promise<WatchStart> {
  w.env.select(w.ss.id, a1);
  return (await w.env.run('startWatch', [{ limit }], w.as(OWNER))) as WatchStart;
}

async function view(w: World, user = OWNER): Promise<WatchView> {
  return (await w.env.run('getWatchState', [], w.as(user))) as WatchView;
}

/** Lookups (requests with a profile URL) the sandbox charged. */
const charged = (w: World) => lookups(w).filter((entry) => entry.charged === 1);

/** No request ever carried a key other than the watch creator's. */
function onlyOwnerKey(env: Environment): void {
  const keys = new Set(
    env.fetches.flatMap((f) => Object.values(f.headers).filter((v) => v.includes('-key-'))),
  );
  expect([...keys]).toEqual([OWNER_KEY]);
  expect(env.fetches.some((f) => JSON.stringify(f).includes(EDITOR_KEY))).toBe(false);
}

function rowsOf(w: World, first: number, last: number): unknown[][] {
  return w.env.values(w.ss.id, `A${first}:D${last}`);
}

function expectResults(values: unknown[][]): void {
  for (const row of values) expect([row[1], row[2], row[3]]).toEqual(expectedCells(String(row[0])));
}

function okAs(results: ExecutionResult[], user: string): void {
  expect(results.length).toBeGreaterThan(0);
  for (const r of results) {
    expect(r.error).toBeUndefined();
    expect(r.user).toBe(user);
  }
}

describe('the watch', () => {
  it('finds 30 rows an automation tool appended one at a time (no event) at the next opening, each charged once', async () => {
    world = await watchWorld();
    const started = await startWatch(world);
    expect(started.started).toBe(true);
    expect(world.env.triggers.map((t) => t.eventType).sort()).toEqual([
      'ON_CHANGE',
      'ON_FORM_SUBMIT',
      'ON_OPEN',
    ]);
    expect(world.env.triggers.every((t) => t.user === OWNER)).toBe(true);
    const executions = world.env.executions.length;
    for (let i = 0; i < 30; i++) world.env.appendRowsThroughApi(world.ss.id, [[profile('api', i)]]);
    // The Sheets API fires no trigger: nothing ran, nothing was sent.
    expect(world.env.executions.length).toBe(executions);
    expect(lookups(world)).toHaveLength(0);
    const opened = await world.env.open(world.ss.id, { user: EDITOR });
    expect(opened.simple?.user).toBe(EDITOR);
    okAs(opened.installable, OWNER);
    expect(opened.installable.map((r) => r.value)).toEqual(['up to date']);
    expectResults(rowsOf(world, 2, 31));
    const charges = world.charges();
    expect(Object.keys(charges)).toHaveLength(30);
    expect(Object.values(charges).every((n) => n === 1)).toBe(true);
    expect(charged(world).every((entry) => entry.organization === ORG)).toBe(true);
    // Opening again sends nothing: every row has its result.
    await world.env.open(world.ss.id, { user: OWNER });
    expect(charged(world)).toHaveLength(30);
    onlyOwnerKey(world.env);
  });

  it("looks up 20 rows another editor pastes in the change event's execution, on the creator's key", async () => {
    world = await watchWorld();
    await startWatch(world);
    const rows = Array.from({ length: 20 }, (_, i) => [profile('paste', i)]);
    const fired = await world.env.change(world.ss.id, 'A2:A21', rows, { user: EDITOR });
    expect(fired.simple?.user).toBe(EDITOR);
    okAs(fired.installable, OWNER);
    expect(fired.installable).toHaveLength(1);
    expectResults(rowsOf(world, 2, 21));
    expect(charged(world)).toHaveLength(20);
    expect(charged(world).every((entry) => entry.organization === ORG)).toBe(true);
    onlyOwnerKey(world.env);
    const log = (await world.env.run('getCreditsSummary', [], world.as(EDITOR))) as CreditsSummary;
    expect(log.sources).toEqual([expect.objectContaining({ source: 'watch', payer: OWNER, credits: 20 })]);
  });

  it('answers a form submission in its own execution, beside the form', async () => {
    world = await watchWorld({ data: [['Timestamp', 'Name', 'Profile URL']] });
    expect((await startWatch(world, 100, 'C1')).started).toBe(true);
    const fired = await world.env.submitForm(world.ss.id, ['11/27/2026 9:00:00', 'Jane', profile('form', 1)]);
    expect(fired.row).toBe(2);
    okAs(fired.installable, OWNER);
    expect(fired.installable).toHaveLength(1);
    const [cells] = world.env.values(world.ss.id, 'C2:F2');
    expect([cells[1], cells[2], cells[3]]).toEqual(expectedCells(String(cells[0])));
    expect(world.env.values(world.ss.id, 'D1:F1')[0]).toEqual(['Email', 'Email status', 'Catch-all']);
    expect(charged(world)).toHaveLength(1);
  });

  it('stops at its daily limit of 10 credits with a message, and goes on the next day', async () => {
    world = await watchWorld();
    await startWatch(world, 10);
    const rows = Array.from({ length: 15 }, (_, i) => [profile('limit', i)]);
    await world.env.change(world.ss.id, 'A2:A16', rows, { user: OWNER });
    expect(charged(world)).toHaveLength(10);
    const limited = await view(world, EDITOR);
    expect(limited).toMatchObject({ state: 'watching', usedToday: 10, limit: 10, limitReached: true });
    // The rows that wait are named: the first by its address.
    expect(limited.message).toMatch(
      /limit of 10 credits is reached: A12 and 4 more rows below it wait until tomorrow/,
    );
    // More rows the same day: nothing sent; the credits log noted the limit once.
    await world.env.change(world.ss.id, 'A17', [[profile('limit', 15)]], { user: EDITOR });
    expect(charged(world)).toHaveLength(10);
    const notes = world.env
      .values(world.ss.id, 'A2:G20', '_pef_credits')
      .filter((row) => row[1] === 'watch' && row[4] === '');
    expect(notes.map((row) => row[5])).toEqual([
      "watch paused until tomorrow: today's limit of 10 credits reached",
    ]);
    expect(
      world.env
        .values(world.ss.id, 'B12:B17')
        .flat()
        .filter((v) => v !== ''),
    ).toHaveLength(0);
    world.env.advanceClock(24 * 3600_000);
    await world.env.open(world.ss.id, { user: EDITOR });
    expect(charged(world)).toHaveLength(16);
    expectResults(rowsOf(world, 2, 17));
    expect(await view(world)).toMatchObject({ usedToday: 6, state: 'watching' });
  });

  it('stops on a 402 after one lookup, says so, and sends nothing more', async () => {
    world = await watchWorld({ credits: 0 });
    expect((await startWatch(world)).started).toBe(true);
    const first = await world.env.change(world.ss.id, 'A2', [[profile('poor', 1)]], { user: OWNER });
    okAs(first.installable, OWNER);
    expect(first.installable[0].value).toBe('stopped');
    expect(lookups(world)).toHaveLength(1);
    expect(lookups(world)[0].status).toBe(402);
    const stopped = await view(world, EDITOR);
    expect(stopped.state).toBe('stopped');
    expect(stopped.message).toMatch(
      /^Stopped by itself: Out of credits \(HTTP 402\)\..* Add credits to your account, then start the watch again in the Watch tab\./,
    );
    expect(stopped.message).not.toMatch(/Resume/);
    // Its creator's triggers went with it: later rows fire nothing that sends.
    expect(world.env.triggers).toHaveLength(0);
    const requests = world.sandbox.service.ledger().length;
    await world.env.change(world.ss.id, 'A3:A5', [
      [profile('poor', 2)],
      [profile('poor', 3)],
      [profile('poor', 4)],
    ]);
    await world.env.open(world.ss.id);
    expect(world.sandbox.service.ledger()).toHaveLength(requests);
  });

  it('shows every editor who pays; another editor stops it (logged); its triggers then go', async () => {
    world = await watchWorld();
    await startWatch(world, 50);
    const seen = await view(world, EDITOR);
    expect(seen.status).toMatch(
      /^Watching Sheet1!A:A for new rows — paid by owner@example.com, up to 50 credits a day, 0 used today/,
    );
    expect(seen.mine).toBe(false);
    expect((await view(world, OWNER)).status).toMatch(/paid by owner@example.com \(you\)/);
    // The editor cannot start a second watch.
    world.env.select(world.ss.id, 'A1');
    const second = (await world.env.run('startWatch', [{ limit: 5 }], world.as(EDITOR))) as WatchStart;
    expect(second.started).toBe(false);
    expect(second.message).toMatch(/already watched, paid by owner@example.com/);
    const stopped = (await world.env.run('stopWatch', [], world.as(EDITOR))) as WatchView;
    expect(stopped.state).toBe('stopped');
    expect(stopped.message).toMatch(/^Stopped by editor@example.com at /);
    // The editor cannot delete the owner's triggers; the owner's next trigger run does, and sends nothing.
    expect(world.env.triggers).toHaveLength(3);
    const fired = await world.env.change(world.ss.id, 'A2', [[profile('after', 1)]], { user: EDITOR });
    expect(fired.installable.map((r) => r.value)).toEqual(['not watching']);
    expect(world.env.triggers).toHaveLength(0);
    expect(lookups(world)).toHaveLength(0);
    const log = world.env.values(world.ss.id, 'A2:G2', '_pef_credits')[0];
    expect(log.slice(1, 6)).toEqual([
      'watch',
      OWNER,
      expect.any(String),
      '',
      'watch stopped: stopped by editor@example.com',
    ]);
    const summary = (await world.env.run('getCreditsSummary', [], world.as(EDITOR))) as CreditsSummary;
    expect(summary.unreadable).toBe(0);
  });

  it('stops by itself when its column is gone (the header there is another), and says so', async () => {
    world = await watchWorld();
    await startWatch(world);
    await world.env.change(world.ss.id, 'A1:A2', [['Company'], [profile('gone', 1)]], { user: EDITOR });
    const seen = await view(world, EDITOR);
    expect(seen.state).toBe('stopped');
    expect(seen.message).toMatch(
      /^Stopped by itself: the watched column's header "Profile URL" is no longer there/,
    );
    expect(lookups(world)).toHaveLength(0);
  });

  it('does not look at a change that adds no row (a formatting, a removal)', async () => {
    world = await watchWorld();
    await startWatch(world);
    world.env.enter(world.ss.id, 'A2', [[profile('fmt', 1)]]);
    const formatted = await world.env.installableTriggers.fire(world.ss.id, 'ON_CHANGE', {
      changeType: 'FORMAT',
    });
    expect(formatted.installable.map((r) => r.value)).toEqual(['ignored']);
    expect(formatted.installable[0].counts['Range.getValues'] ?? 0).toBe(0);
    expect(lookups(world)).toHaveLength(0);
    const inserted = await world.env.installableTriggers.fire(world.ss.id, 'ON_CHANGE', {
      changeType: 'INSERT_ROW',
    });
    expect(inserted.installable.map((r) => r.value)).toEqual(['up to date']);
    expect(charged(world)).toHaveLength(1);
  });

  it('shows as stopped when its triggers were removed outside the add-on', async () => {
    world = await watchWorld();
    await startWatch(world);
    world.env.triggers.splice(0, world.env.triggers.length);
    const seen = await view(world, OWNER);
    expect(seen).toMatchObject({ state: 'stopped', triggersMissing: true });
  });

  it('pays nothing twice with a bulk run and formulas over the same rows; the log equals the ledger', async () => {
    world = await watchWorld();
    await startWatch(world);
    // Formulas first on two rows, then the rows arrive: the watch finds those two paid for.
    world.env.enter(world.ss.id, 'F2:F3', [
      [`=FINDEMAIL("${profile('mix', 0)}")`],
      [`=FINDEMAIL("${profile('mix', 1)}")`],
    ]);
    await world.env.recalculate(world.ss.id);
    expect(charged(world)).toHaveLength(2);
    const rows = Array.from({ length: 8 }, (_, i) => [profile('mix', i)]);
    await world.env.change(world.ss.id, 'A2:A9', rows, { user: EDITOR });
    expect(charged(world)).toHaveLength(8);
    expectResults(rowsOf(world, 2, 9));
    // A bulk run over the column, and formulas over the same URLs: free.
    const run = await start(world, 'A1:A9');
    expect(run.creditsUsed).toBe(0);
    world.env.enter(world.ss.id, 'G2', [['=FINDEMAIL(A2:A9)']]);
    await world.env.recalculate(world.ss.id);
    expect(charged(world)).toHaveLength(8);
    // Later the same day: a bulk run of new profiles in another column (4 credits), then more watched rows.
    world.env.advanceClock(3 * 3600_000);
    world.env.enter(world.ss.id, 'I1:I5', [
      ['Profile URL'],
      ...Array.from({ length: 4 }, (_, i) => [profile('run', i)]),
    ]);
    const other = await start(world, 'I1:I5');
    expect(other.creditsUsed).toBe(4);
    await world.env.change(
      world.ss.id,
      'A10:A12',
      [[profile('mix', 8)], [profile('run', 0)], [profile('mix', 9)]],
      {
        user: EDITOR,
      },
    );
    expect(charged(world)).toHaveLength(14);
    const summary = (await world.env.run('getCreditsSummary', [], world.as(OWNER))) as CreditsSummary;
    expect(summary.total).toBe(world.sandbox.service.ledger().filter((e) => e.charged === 1).length);
    expect(summary.total).toBe(14);
    const bySource = Object.fromEntries(summary.sources.map((s) => [s.source, s.credits]));
    expect(bySource).toEqual({ formulas: 2, watch: 8, run: 4 });
    expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
    onlyOwnerKey(world.env);
  });

  it('two trigger runs at once never send the same profile, and leave no row behind', async () => {
    world = await watchWorld();
    await startWatch(world);
    const rows = (from: number) => Array.from({ length: 10 }, (_, i) => [profile('race', from + i)]);
    // Two editors paste at the same moment (the second also repeats two of the first's profiles).
    const second = rows(10);
    second[0] = [profile('race', 0)];
    second[1] = [profile('race', 1)];
    const [a, b] = await Promise.all([
      world.env.change(world.ss.id, 'A2:A11', rows(0), { user: EDITOR }),
      world.env.change(world.ss.id, 'A12:A21', second, { user: OWNER }),
    ]);
    okAs([...a.installable, ...b.installable], OWNER);
    expect(Object.values(world.charges()).every((n) => n === 1)).toBe(true);
    expect(charged(world)).toHaveLength(18);
    expectResults(rowsOf(world, 2, 21));
  });

  it('stops when the service refuses the key (401), before any lookup', async () => {
    world = await watchWorld();
    await startWatch(world);
    world.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: 'owner-key-revoked-000000000000' });
    const fired = await world.env.change(
      world.ss.id,
      'A2:A4',
      [[profile('k', 1)], [profile('k', 2)], [profile('k', 3)]],
      {
        user: EDITOR,
      },
    );
    expect(fired.installable.map((r) => r.value)).toEqual(['stopped']);
    expect(charged(world)).toHaveLength(0);
    const seen = await view(world, EDITOR);
    expect(seen.state).toBe('stopped');
    expect(seen.message).toMatch(
      /^Stopped by itself: The API key was rejected \(HTTP 401\)\. Save a valid key in .*Settings & API key, then start the watch again in the Watch tab\./,
    );
    expect(world.env.triggers).toHaveLength(0);
  });

  it('cannot start in a test deployment (no installable triggers there), and says what to do', async () => {
    world = await watchWorld({ env: { deployment: 'test' } });
    const refused = await startWatch(world);
    expect(refused.started).toBe(false);
    expect(refused.message).toMatch(/test deployment/);
    expect(world.env.triggers).toHaveLength(0);
    expect((await view(world)).state).toBe('none');
  });

  it("two editors starting at once leave one watch, and only its creator's triggers", async () => {
    world = await watchWorld();
    const w = world;
    w.env.select(w.ss.id, 'A1');
    const starts = (await Promise.all(
      [OWNER, EDITOR].map((user) => w.env.run('startWatch', [{ limit: 5 }], w.as(user))),
    )) as WatchStart[];
    expect(starts.filter((s) => s.started)).toHaveLength(1);
    const watch = JSON.parse(w.env.documentProperties(w.ss.id).get('pef.watch') ?? 'null');
    const creator = starts[0].started ? OWNER : EDITOR;
    expect(w.env.triggers.every((t) => t.user === creator)).toBe(true);
    expect(w.env.triggers.map((t) => t.id).sort()).toEqual([...watch.triggerIds].sort());
  });

  it('needs a saved key to start, and a daily limit', async () => {
    world = await watchWorld({ ownerKey: false });
    expect((await startWatch(world)).message).toMatch(/No API key is saved for you/);
    world.env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: OWNER_KEY });
    expect((await startWatch(world, '')).message).toMatch(/daily limit/);
    expect(world.env.triggers).toHaveLength(0);
  });

  it('does nothing in an execution without the spreadsheet (as a time-driven trigger would run)', async () => {
    world = await watchWorld();
    await startWatch(world);
    world.env.enter(world.ss.id, 'A2', [[profile('clock', 1)]]);
    const stray = await world.env.execute('onWatchChange', [], { user: OWNER, ui: false });
    expect(stray.value).toBe('no spreadsheet');
    expect(lookups(world)).toHaveLength(0);
    // Opening the spreadsheet by id from there would need the full spreadsheets scope: the add-on keeps currentonly.
    const scopes = world.env.manifest.oauthScopes ?? [];
    expect(scopes).toContain('https://www.googleapis.com/auth/spreadsheets.currentonly');
    expect(scopes).not.toContain('https://www.googleapis.com/auth/spreadsheets');
    // The watch uses no time-driven trigger at all.
    expect(world.env.triggers.map((t) => t.eventType)).not.toContain('CLOCK');
  });

  it("runs no trigger past the creator's daily trigger runtime quota", async () => {
    world = await watchWorld({ env: { triggerRuntimeDailyMs: 1 } });
    await startWatch(world);
    const first = await world.env.change(world.ss.id, 'A2', [[profile('quota', 1)]], { user: EDITOR });
    expect(first.installable).toHaveLength(1);
    const second = await world.env.change(world.ss.id, 'A3', [[profile('quota', 2)]], { user: EDITOR });
    expect(second.installable).toHaveLength(0);
    expect(second.refused.map((r) => r.message)).toEqual([
      'Service using too much computer time for one day',
    ]);
    expect(charged(world)).toHaveLength(1);
  });
});
