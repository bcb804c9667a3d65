/**
 * The plan and the price before a run (nothing in the sheet changes
 * until it starts), the placement choices, the refusal of a column without profile URLs, several ranges, Retry
 * failed rows, and what a run did (summary, history, the first failed row).
 */

import { OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, expectedCells, mismatches, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface Plan {
  rows: number;
  newProfiles: number;
  knownProfiles: number;
  notProfiles: number;
  blanks: number;
  alreadyDone: number;
  credits: number;
  needsChoice: boolean;
  needsConfirm: boolean;
  refusal?: string;
  note?: string;
  placement: { kind: string; columns: string };
  placements: Array<{ kind: string; columns: string; effect: string }>;
}
interface Started {
  plan: Plan | null;
  started: boolean;
  progress: ProgressView & { plan?: { credits: number; columns: string } };
}

const names = (count: number, stem: string) => Array.from({ length: count }, (_, i) => url(`${stem}-${i}`));
const column = (values: string[]) => values.map((value) => [value]);
const plan = async (w: World, request: object = {}) =>
  (await w.env.run('getRunPlan', [request], w.as())) as Plan;
const startRun = async (w: World, request: object) =>
  (await w.env.run('startRun', [request], w.as())) as Started;
const lastSidebarView = (w: World) =>
  /data-view="([^"]*)"/.exec(w.env.ui.sidebars[w.env.ui.sidebars.length - 1]?.html ?? '')?.[1];

it('with "start runs under N credits at once" chosen, a cheaper run starts from the menu and carries its plan', async () => {
  world = await startWorld({
    data: [['Profile'], ...column(names(3, 'al-ash')), [''], ['not a url'], [url('al-ash-0')]],
  });
  world.env
    .userProperties(OWNER)
    .set({ PEF_SETTINGS: JSON.stringify({ startAtOnce: true, startAtOnceUnder: 4 }) });
  world.env.select(world.ss.id, 'A1:A7');
  const progress = (await world.env.run('enrichSelection', [], world.as())) as Started['progress'];
  expect(progress.plan).toMatchObject({ rows: 6, newProfiles: 3, credits: 3, blanks: 1, notProfiles: 1 });
  expect(progress.plan?.columns).toBe('B:E');
  expect(lastSidebarView(world)).toBe('progress');
  expect((await drive(world)).state).toBe('done');
  expect(world.sandbox.service.totalCharged()).toBe(3);
});

it('by default the menu opens the plan: nothing changes until its price is confirmed; a different price is shown again', async () => {
  world = await startWorld({ data: [['Profile'], ...column(names(6, 'bo-birch'))], startsAtOnce: false });
  const before = world.env.values(world.ss.id, 'A1:F7');
  world.env.select(world.ss.id, 'A1:A7');
  const progress = (await world.env.run('enrichSelection', [], world.as())) as ProgressView;
  expect(progress.state).toBe('idle');
  expect(lastSidebarView(world)).toBe('plan');
  expect(world.env.values(world.ss.id, 'A1:F7')).toEqual(before);
  expect(world.sandbox.service.ledger()).toEqual([]);

  const shown = await plan(world);
  expect(shown).toMatchObject({ credits: 6, needsConfirm: true });
  // A confirmation of a lower price (the sheet grew meanwhile) does not start the run.
  const refused = await startRun(world, { confirmedCredits: 5 });
  expect(refused.started).toBe(false);
  expect(refused.plan?.credits).toBe(6);
  expect(world.env.values(world.ss.id, 'A1:F7')).toEqual(before);
  // Nor of a higher one: the price the person saw is the price that runs.
  const higher = await startRun(world, { confirmedCredits: 7 });
  expect(higher.started).toBe(false);
  const started = await startRun(world, { confirmedCredits: 6 });
  expect(started.started).toBe(true);
  expect((await drive(world)).state).toBe('done');
  expect(world.sandbox.service.totalCharged()).toBe(6);
});

it('Start runs the cells of the plan shown, whatever is selected now; rows added since bring the plan back first', async () => {
  world = await startWorld({ data: [['Profile'], ...column(names(5, 'ed-elm'))], startsAtOnce: false });
  world.env.select(world.ss.id, 'A1:A20');
  const shown = (await plan(world)) as Plan & { range: string; target: object };
  expect(shown).toMatchObject({ range: 'A2:A6', credits: 5 });
  // Another cell selected meanwhile (a header cell, a cell beside): the plan's cells still run.
  world.env.select(world.ss.id, 'B3');
  const moved = await startRun(world, { target: shown.target, confirmedCredits: 0 });
  expect(moved.started).toBe(false);
  expect(moved.plan).toMatchObject({ range: 'A2:A6', credits: 5 });
  // A new URL inside the planned cells: the price differs, the plan comes back, nothing is spent.
  world.env.enter(world.ss.id, 'A7', [[url('ed-elm-new')]]);
  const grown = await startRun(world, { target: shown.target, confirmedCredits: 5 });
  expect(grown.started).toBe(false);
  expect(grown.plan).toMatchObject({ range: 'A2:A7', credits: 6 });
  expect(world.sandbox.service.ledger()).toEqual([]);
  expect(
    world.env
      .values(world.ss.id, 'B1:B7')
      .flat()
      .every((cell) => cell === ''),
  ).toBe(true);
  const started = await startRun(world, { target: shown.target, confirmedCredits: 6 });
  expect(started.started).toBe(true);
  expect(started.progress.plan).toMatchObject({ range: 'A2:A7', credits: 6 });
  expect((await drive(world)).state).toBe('done');
  expect(world.sandbox.service.totalCharged()).toBe(6);
  expect(
    world.env
      .values(world.ss.id, 'C2:C7')
      .flat()
      .every((status) => status !== ''),
  ).toBe(true);
});

it('data beside the URLs: a choice; the first empty columns further right leave every column in place', async () => {
  const urls = names(4, 'cy-dale');
  world = await startWorld({
    data: [['Profile', 'Company', 'Phone'], ...urls.map((u, i) => [u, `Co ${i}`, `555-${i}`])],
  });
  world.env.select(world.ss.id, 'A1:A5');
  const maxColumns = world.ss.sheets[0].maxCols;
  await world.env.run('enrichSelection', [], world.as());
  expect(lastSidebarView(world)).toBe('plan');
  expect(world.ss.sheets[0].maxCols).toBe(maxColumns);
  const shown = await plan(world);
  expect(shown.needsChoice).toBe(true);
  expect(shown.placements.map((p) => [p.kind, p.columns])).toEqual([
    ['insert', 'B:E'],
    ['right', 'D:G'],
  ]);
  expect(shown.placements[0].effect).toMatch(/B and every column right of it move 4 to the right/);
  // Without a choice nothing starts.
  expect((await startRun(world, {})).started).toBe(false);

  const started = await startRun(world, { placement: 'right' });
  expect(started.started).toBe(true);
  expect((await drive(world)).state).toBe('done');
  const values = world.env.values(world.ss.id, 'A1:G5');
  expect(values[0]).toEqual(['Profile', 'Company', 'Phone', 'Email', 'Email status', 'Catch-all', 'Note']);
  expect(values.slice(1).map((row) => row.slice(1, 3))).toEqual(urls.map((_, i) => [`Co ${i}`, `555-${i}`]));
  expect(values.slice(1).map((row) => row.slice(3, 6))).toEqual(urls.map(expectedCells));
  expect(world.ss.sheets[0].maxCols).toBe(maxColumns);

  // The next run finds its own columns further right: free, nothing to choose.
  const again = await plan(world, { placement: 'right' });
  expect(again).toMatchObject({ credits: 0, alreadyDone: 4 });
  expect(again.placements[1].columns).toBe('D:G');
});

it('URLs in W of a sheet that ends at Z: results in X:AA, the empty X:Z used and one column added at the end', async () => {
  const urls = names(3, 'wy-edge');
  const blank = (): string[] => new Array(22).fill('');
  world = await startWorld({ data: [[...blank(), 'Profile'], ...urls.map((u) => [...blank(), u])] });
  const sheet = world.ss.sheets[0];
  expect(sheet.maxCols).toBe(26);
  world.env.select(world.ss.id, 'W1:W4');
  const shown = await plan(world);
  expect(shown).toMatchObject({ needsChoice: false, placement: { kind: 'reuse', columns: 'X:AA' } });
  expect(shown.placements).toHaveLength(1);
  expect(shown.placements[0].effect).toBe(
    "Results go into X:AA beside the URLs (1 column added at the sheet's end). Nothing moves.",
  );
  const progress = (await world.env.run('enrichSelection', [], world.as())) as ProgressView;
  expect(lastSidebarView(world)).toBe('progress');
  expect(progress.state === 'done' ? progress : await drive(world)).toMatchObject({ state: 'done' });
  expect(sheet.maxCols).toBe(27);
  const values = world.env.values(world.ss.id, 'W1:AA4');
  expect(values[0]).toEqual(['Profile', 'Email', 'Email status', 'Catch-all', 'Note']);
  expect(values.slice(1).map((row) => row.slice(1, 4))).toEqual(urls.map(expectedCells));
  expect(world.sandbox.service.totalCharged()).toBe(3);
});

describe('a key the service refuses: the run does not start and nothing changes', () => {
  const WRONG_KEY = 'wrong-key-7777bbbb8888';
  const setup = async (key: string | null) => {
    world = await startWorld({ data: [['Profile'], ...column(names(4, 'ke-locked'))], ownerKey: false });
    if (key) world.env.userProperties(OWNER).set({ PEF_API_KEY: key });
    world.env.select(world.ss.id, 'A1:A5');
    return world;
  };
  const unchanged = (w: World, before: unknown[][], maxCols: number) => {
    expect(w.env.values(w.ss.id, 'A1:F5')).toEqual(before);
    expect(w.ss.sheets[0].maxCols).toBe(maxCols);
    expect(w.env.documentProperties(w.ss.id).get('pef.job')).toBeNull();
  };

  it('Start in the sidebar: one free key check (401), no header, no job, one message naming where a key comes from', async () => {
    const w = await setup(WRONG_KEY);
    const before = w.env.values(w.ss.id, 'A1:F5');
    const maxCols = w.ss.sheets[0].maxCols;
    const shown = await plan(w);
    const result = (await w.env.run('startRun', [{ confirmedCredits: shown.credits }], w.as())) as Started & {
      keyRefusal?: string;
    };
    expect(result.started).toBe(false);
    expect(result.plan?.credits).toBe(4);
    expect(result.keyRefusal).toMatch(
      /^The service rejected your API key, so the run did not start and nothing in the sheet changed\. Get a valid key in Account › API settings in the service's dashboard, save it in Extensions › Profile Email Finder › Settings & API key, then press Start again\./,
    );
    expect(result.keyRefusal).not.toContain(WRONG_KEY);
    expect(result.progress.state).toBe('idle');
    unchanged(w, before, maxCols);
    // One request: the free key check; no lookup, nothing charged.
    expect(w.sandbox.service.ledger().map((entry) => [entry.status, entry.keyCheck])).toEqual([[401, true]]);
    expect(w.sandbox.service.totalCharged()).toBe(0);
  });

  it('from the menu: one dialog says so, no sidebar opens; with no key saved, not even a request', async () => {
    const w = await setup(WRONG_KEY);
    const before = w.env.values(w.ss.id, 'A1:F5');
    const maxCols = w.ss.sheets[0].maxCols;
    const progress = (await w.env.run('enrichSelection', [], w.as())) as ProgressView;
    expect(progress.state).toBe('idle');
    expect(w.env.ui.sidebars).toEqual([]);
    expect(w.env.ui.alerts.map((alert) => alert.prompt)).toEqual([
      expect.stringMatching(/^The service rejected your API key.*then choose Find e-mails again\./),
    ]);
    unchanged(w, before, maxCols);
    expect(w.sandbox.service.ledger()).toHaveLength(1);

    w.env.userProperties(OWNER).delete('PEF_API_KEY');
    await w.env.run('enrichSelection', [], w.as());
    expect(w.env.ui.alerts[1]?.prompt).toMatch(
      /^No API key is saved for you, so the run did not start and nothing in the sheet changed\. Get a key in Account › API settings/,
    );
    unchanged(w, before, maxCols);
    expect(w.sandbox.service.ledger()).toHaveLength(1);
  });
});

it('refuses a column without profile URLs, and changes nothing', async () => {
  world = await startWorld({
    data: [
      ['Profile', 'Email'],
      [url('di-elm'), 'di@home.test'],
      [url('ed-fir'), 'ed@home.test'],
    ],
  });
  const before = world.env.values(world.ss.id, 'A1:F3');
  world.env.select(world.ss.id, 'B1:B3');
  const progress = (await world.env.run('enrichSelection', [], world.as())) as ProgressView;
  expect(progress.message).toMatch(
    /^Column B holds e-mail addresses, not profile URLs: nothing was changed\./,
  );
  expect(world.env.values(world.ss.id, 'A1:F3')).toEqual(before);
  expect(world.sandbox.service.ledger()).toEqual([]);
  expect(JSON.parse(world.env.documentProperties(world.ss.id).get('pef.job') ?? 'null')).toBeNull();
});

it('several ranges selected: the plan says which one is used', async () => {
  world = await startWorld({
    data: [
      ['Profile', 'Other'],
      [url('fay-gum'), url('gus-hay')],
      [url('hal-ivy'), ''],
    ],
  });
  world.env.selectRanges(world.ss.id, ['B2:B2', 'A2:A3']);
  const shown = await plan(world);
  expect(shown.note).toBe('2 ranges are selected: using A2:A3, the last one selected.');
  expect(shown.rows).toBe(2);
});

it('turning on the extra fields reuses the four columns and adds only Account type and Name', async () => {
  world = await startWorld({ data: [['Profile'], ...column(names(2, 'ida-jo'))] });
  await start(world, 'A1:A3');
  await drive(world);
  const maxColumns = world.ss.sheets[0].maxCols;
  world.env.userProperties(OWNER).set({ PEF_SETTINGS: JSON.stringify({ extraFields: true }) });
  const shown = await plan(world, {});
  expect(shown.placement).toMatchObject({ kind: 'reuse', columns: 'B:G' });
  await start(world, 'A1:A3', { recheck: true });
  await drive(world);
  expect(world.ss.sheets[0].maxCols).toBe(maxColumns);
  expect(world.env.values(world.ss.id, 'A1:H1')[0]).toEqual([
    'Profile',
    'Email',
    'Email status',
    'Catch-all',
    'Note',
    'Account type',
    'Name',
    '',
  ]);
});

describe('Retry failed rows, and what a run did', () => {
  const rows = [url('kay-lee'), url('broken-max'), url('anonymous-ned'), url('ola-park'), 'not a url'];

  async function firstRun(): Promise<World> {
    const w = await startWorld({
      data: [['Profile'], ...rows.map((r) => [r])],
      faults: { failFirst: { 'ola-park': { kind: '500', times: 3 } } },
    });
    await start(w, 'A1:A6');
    expect((await drive(w)).state).toBe('done');
    return w;
  }

  it('the summary counts each row once; the first failed row can be selected; the history keeps the run', async () => {
    world = await firstRun();
    const history = (await world.env.run('getRunHistory', [], world.as())) as {
      last: Record<string, number>;
      history: unknown[];
    };
    // broken-max and ola-park: ERROR; anonymous-ned: UNPROCESSABLE; "not a url": not a profile.
    expect(history.last).toMatchObject({
      found: 1,
      noAddress: 0,
      unprocessable: 1,
      notProfile: 1,
      error: 2,
      alreadyDone: 0,
      creditsSpent: 2,
    });
    expect(history.history).toHaveLength(1);
    const selected = await world.env.run('selectFirstFailedRow', [], world.as());
    expect(selected).toBe('Row 3 is selected (ERROR).');
    expect(world.ss.activeRange).toMatchObject({ row: 3, col: 1, numRows: 1, numCols: 5 });
  });

  it('retries only the ERROR rows; a row added since, without a status, is left alone', async () => {
    world = await firstRun();
    world.env.enter(world.ss.id, 'A7', [[url('pia-quinn')]]);
    const before = world.env.values(world.ss.id, 'A2:E7');
    world.env.select(world.ss.id, 'A1:A7');
    const progress = (await world.env.run('retryFailedRows', [], world.as())) as ProgressView;
    expect(progress.plan).toMatchObject({ retry: true, newProfiles: 2, credits: 2 });
    expect((await drive(world)).state).toBe('done');
    const after = world.env.values(world.ss.id, 'A2:E7');
    // ola-park failed three times only: now found. broken-max is still ERROR (the sandbox always fails it).
    expect(after[3].slice(1, 4)).toEqual(expectedCells(url('ola-park')));
    expect(after[1][2]).toBe('ERROR');
    for (const index of [0, 2, 4, 5]) expect(after[index]).toEqual(before[index]);
    expect(Object.keys(world.charges()).some((k) => k.includes('pia-quinn'))).toBe(false);
    expect(mismatches(after.slice(0, 1))).toEqual([]);
    const history = (await world.env.run('getRunHistory', [], world.as())) as {
      last: Record<string, unknown>;
      history: unknown[];
    };
    expect(history.last).toMatchObject({ retry: true, found: 1, error: 1, creditsSpent: 1 });
    expect(history.history).toHaveLength(2);
  });

  it('with UNPROCESSABLE too, those rows are bought again from the sidebar on the last run', async () => {
    world = await firstRun();
    const shown = await plan(world, { source: 'lastRun', mode: 'retry', includeUnprocessable: true });
    expect(shown).toMatchObject({ newProfiles: 3, credits: 3 });
    const started = await startRun(world, {
      source: 'lastRun',
      mode: 'retry',
      includeUnprocessable: true,
      confirmedCredits: 3,
    });
    expect(started.started).toBe(true);
    await drive(world);
    expect(Object.entries(world.charges()).find(([k]) => k.includes('anonymous-ned'))?.[1]).toBe(2);
    expect(world.env.values(world.ss.id, 'C4')[0][0]).toBe('UNPROCESSABLE');
  });
});
