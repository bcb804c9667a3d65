/**
 * A column of single =FINDEMAIL cells as people fill it (typed once, dragged down 100 rows), with LockService's
 * rate quota on (20 calls a second, as lock-quota.test.ts): Apps Script runs 30 at once, the rest show its
 * #ERROR!, and Refresh =FINDEMAIL cells gets them done. Each profile is paid once, the credits log equals the
 * service's ledger, and no cell blames the connection for what the lock refused.
 */
import type { SidebarState } from '../../../src/api';
import { CREDITS_SHEET } from '../../../src/core/propertyNames';
import { parseChargeRow } from '../../../src/store/credits';
import { waitFor } from '../../sandbox/helpers';
import { OWNER, startWorld, url, type World } from '../../support/harness';
import { chargedTwice } from '../bulk/helpers';
import { column, emailOf, fillDown } from './helpers';

/** The column's rows: more than 30 beyond one wave where the single-cells offer is tested, fewer where it is not. */
let ROWS = 70;
/** Refresh presses at most (each enters the unfinished cells again; 30 run at once). */
const MAX_REFRESHES = 30;
const CONNECTION_BLAMED = /Connections to the service failed|Answer lost/;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  ROWS = 70;
});

const profiles = () => Array.from({ length: ROWS }, (_, i) => url(`dru-drag-${i}`));

/** Refresh =FINDEMAIL cells over the column, then the evaluations Sheets runs for the formulas it entered. */
async function refresh(w: World): Promise<void> {
  w.env.select(w.ss.id, `H2:H${ROWS + 1}`);
  await w.env.run('refreshFormulas', [], w.as());
  await w.env.formulasSettled();
}

function texts(w: World): string[] {
  const values = column(w, `H2:H${ROWS + 1}`).map(String);
  const notes = Array.from({ length: ROWS }, (_, i) => w.env.cell(w.ss.id, `H${i + 2}`)?.error ?? '');
  return [...values, ...notes];
}

/**
 * Fills column H with single cells over the ROWS profiles, evaluates them (the drag; `drag` false: done already),
 * then presses Refresh until every cell shows its address (MAX_REFRESHES at most), `between` each press. Checks no
 * cell blames the connection after each press.
 */
async function dragAndRefresh(w: World, between: () => void, drag = true): Promise<number> {
  if (drag) {
    fillDown(w, 'H', 'A', 2, ROWS + 1);
    await w.env.recalculate(w.ss.id);
  }
  const expected = profiles().map(emailOf);
  let passes = 0;
  while (passes < MAX_REFRESHES && column(w, `H2:H${ROWS + 1}`).some((v, i) => v !== expected[i])) {
    between();
    await refresh(w);
    passes++;
    expect(texts(w).filter((text) => CONNECTION_BLAMED.test(text))).toEqual([]);
  }
  return passes;
}

/** Each profile paid once, every cell answered, the credits log (after a writing execution) equal to the ledger. */
async function expectPaidOnceAndLogged(w: World): Promise<void> {
  expect(w.env.lockCallsRefused).toBeGreaterThan(0);
  expect(column(w, `H2:H${ROWS + 1}`)).toEqual(profiles().map(emailOf));
  expect(chargedTwice(w)).toEqual([]);
  expect(Object.keys(w.charges())).toHaveLength(ROWS);
  // Refresh moves the formulas' buffer into the credits log first: one row per credit the service charged, none
  // "maybe charged".
  w.env.advanceClock(60_000);
  await refresh(w);
  const rows = w.env
    .values(w.ss.id, `A2:G${ROWS + 100}`, CREDITS_SHEET)
    .flatMap((row) => parseChargeRow(row) ?? []);
  expect(rows.filter((row) => row.outcome === 'lost')).toEqual([]);
  expect(rows).toHaveLength(w.sandbox.service.totalCharged());
}

describe('a dragged column under the lock rate quota', () => {
  it('20 lock calls a second, LockService refusing as the first answers arrive: each profile paid once, all answered through Refresh, the credits log equal to the ledger, no cell blaming the connection', async () => {
    ROWS = 40;
    world = await startWorld({
      data: [['Profile'], ...profiles().map((link) => [link])],
      env: { lockRateLimit: { calls: 20, windowMs: 1_000 } },
      faults: { latencyMs: 200 },
      // A cell gives up after 6 s of its budget (the 30 s limit's, scaled down): the column goes in more passes.
      scriptProperties: { FINDEMAIL_BUDGET_MS: '6000' },
    });
    const w = world;
    const service = w.sandbox.service;
    // The drag: the test holds the lookups until every cell that runs has sent its own (or ended: the quota
    // refused its claim), then the script's lock quota is spent elsewhere and the answers come back while every
    // Lock call is refused, however long a cell would try again.
    fillDown(w, 'H', 'A', 2, ROWS + 1);
    const release = service.hold();
    let lift: () => void = () => undefined;
    try {
      const dragged = w.env.recalculate(w.ss.id);
      await waitFor(() => service.held > 0 && service.held === w.env.runningExecutions(OWNER), 120_000);
      const sent = service.held;
      lift = w.env.refuseLockCalls();
      release();
      await dragged;
      lift();
      expect(sent).toBeGreaterThan(0);
      expect(w.sandbox.service.totalCharged()).toBe(sent);
    } finally {
      release();
      lift();
    }
    await dragAndRefresh(w, () => undefined, false);
    await expectPaidOnceAndLogged(w);
  }, 600_000);

  it('a quota the claims spend in a burst: every answer paid while LockService refuses is kept, none bought again', async () => {
    // 40 calls in 10 s: 20 of the 30 cells' claims (2 calls each), then refusals until the window passes; the cells'
    // answers come back while LockService refuses.
    world = await startWorld({
      data: [['Profile'], ...profiles().map((link) => [link])],
      env: { lockRateLimit: { calls: 40, windowMs: 10_000 } },
      faults: { latencyMs: 500 },
      scriptProperties: { FINDEMAIL_BUDGET_MS: '6000' },
    });
    const w = world;
    await dragAndRefresh(w, () => w.env.advanceClock(10_000));
    await expectPaidOnceAndLogged(w);
  }, 600_000);

  it('Refresh offers one range formula in place of the column; taken, every cell is answered in that one action, the inputs untouched', async () => {
    world = await startWorld({
      data: [['Profile'], ...profiles().map((link) => [link])],
      env: { lockRateLimit: { calls: 20, windowMs: 1_000 } },
      faults: { latencyMs: 200 },
    });
    const w = world;
    fillDown(w, 'H', 'A', 2, ROWS + 1);
    await w.env.recalculate(w.ss.id);
    const shown = column(w, `H2:H${ROWS + 1}`);
    expect(shown.filter((value) => value === '#ERROR!')).toHaveLength(ROWS - 30);
    w.env.ui.answers.push({ button: 'YES' });
    await refresh(w);
    expect(w.env.ui.alerts.at(-1)?.prompt).toMatch(
      new RegExp(`^H2:H${ROWS + 1} holds ${ROWS} single =FINDEMAIL cells, ${ROWS - 30} of them not done`),
    );
    expect(w.env.formulas(w.ss.id, 'H2')).toEqual([[`=FINDEMAIL(A2:A${ROWS + 1})`]]);
    expect(column(w, `H2:H${ROWS + 1}`)).toEqual(profiles().map(emailOf));
    expect(column(w, `A2:A${ROWS + 1}`)).toEqual(profiles());
    expect(chargedTwice(w)).toEqual([]);
    expect(Object.keys(w.charges())).toHaveLength(ROWS);
  }, 300_000);
});

describe("the sidebar's word on a column of single cells", () => {
  it('Settings counts the unfinished single cells and offers one range formula (asked first); taken, all are answered', async () => {
    const rows = 40;
    const links = Array.from({ length: rows }, (_, i) => url(`eda-side-${i}`));
    world = await startWorld({ data: [['Profile'], ...links.map((link) => [link])] });
    const w = world;
    fillDown(w, 'H', 'A', 2, rows + 1);
    await w.env.recalculate(w.ss.id);
    const refused = column(w, `H2:H${rows + 1}`).filter((value) => value === '#ERROR!').length;
    expect(refused).toBe(rows - 30);
    const state = (await w.env.run('getSidebarState', [], w.as())) as SidebarState;
    expect(state.singleCells).toEqual({
      range: `H2:H${rows + 1}`,
      cells: rows,
      unfinished: refused,
      formula: `=FINDEMAIL(A2:A${rows + 1})`,
      atOnce: 30,
    });
    // No: nothing changes.
    w.env.ui.answers.push({ button: 'NO' });
    await w.env.run('replaceSingleCells', [], w.as());
    expect(w.env.ui.alerts.at(-1)?.prompt).toMatch(
      new RegExp(`^H2:H${rows + 1} holds ${rows} single =FINDEMAIL cells, ${refused} of them not done`),
    );
    expect(w.env.formulas(w.ss.id, 'H3')).toEqual([['=FINDEMAIL(A3)']]);
    w.env.ui.answers.push({ button: 'YES' });
    await w.env.run('replaceSingleCells', [], w.as());
    await w.env.formulasSettled();
    expect(w.env.formulas(w.ss.id, 'H2')).toEqual([[`=FINDEMAIL(A2:A${rows + 1})`]]);
    expect(column(w, `H2:H${rows + 1}`)).toEqual(links.map(emailOf));
    expect(column(w, `A2:A${rows + 1}`)).toEqual(links);
    expect(chargedTwice(w)).toEqual([]);
    const after = (await w.env.run('getSidebarState', [], w.as())) as SidebarState;
    expect(after.singleCells).toBeUndefined();
  }, 120_000);
});
