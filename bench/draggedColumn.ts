/**
 * Scenario 10, "a dragged column": =FINDEMAIL as people really fill a sheet, each row on a new spreadsheet (an
 * environment and a sandbox of its own), the built `dist/` in the emulator:
 *
 *   a. `=FINDEMAIL(A2)` dragged down 1,000 rows of new profiles at 1 s: the person's actions (Refresh =FINDEMAIL
 *      cells) until every cell shows its address, and the time it took;
 *   b. the same over 200 rows with LockService's rate quota at 20 calls a second (the emulator's `lockRateLimit`):
 *      profiles paid twice, cells blaming the connection, cells answered;
 *   c. the calls on a lock (LockService.getDocumentLock, tryLock, waitLock, releaseLock, hasLock) of a new single
 *      cell: the first of a new spreadsheet, then a later one;
 *   d. a range of 1,000 new profiles at the default daily limit (500): the evaluation after the limit is reached,
 *      its seconds and what its cells say;
 *   e. a range of 1,000 new profiles at 1 s on a new spreadsheet, no sidebar ever opened: cells answered by the
 *      first evaluation;
 *   f. a range of 3,000 new profiles at 1 s, no sidebar opened: its evaluations (the first, then one per Refresh
 *      =FINDEMAIL cells) until every cell shows its address.
 *
 * The daily limit is raised to 1,000,000 in a, b and e (the owner's Settings), as a person paying for 1,000 would.
 * Every loop is bounded (MAX_ACTIONS); seconds are the bench's wall time.
 */
import { Environment, TOO_MANY_SIMULTANEOUS_MESSAGE } from '../emulator';
import { type SandboxServer, startSandbox } from '../sandbox/server';
import { type Config, gitCommit, KEY_PROPERTY, OWNER, SANDBOX_NETWORK_HOSTS, writeFigures } from './harness';

const POLICY_PREFIX = 'PEF_FORMULAS.';
const ORG = 'bench-dragged';
const KEY = 'bench-dragged-key-5b8e1d0c3f';
/** Person actions at most in one row (each a Refresh or an offer taken), whatever the code does. */
const MAX_ACTIONS = 40;
const LIMIT_TEXT = 'daily limit for =FINDEMAIL';
const NOT_IN_TIME = 'Not looked up in time';
const CONNECTION_BLAMED = /Connections to the service failed|Answer lost/;

export const DRAGGED_TARGETS = {
  actions: 2,
  seconds: 60,
  paidTwice: 0,
  lockCalls: 2,
  limitSeconds: 2,
  bigRangeEvaluations: 2,
};

export interface DraggedOptions {
  rows: number;
  throttledRows: number;
  rangeRows: number;
  bigRangeRows: number;
  latencyMs: number;
}

export const DRAGGED_DEFAULTS: DraggedOptions = {
  rows: 1000,
  throttledRows: 200,
  rangeRows: 1000,
  bigRangeRows: 3000,
  latencyMs: 1000,
};

const FIRST = ['ada', 'ben', 'cleo', 'dov', 'eli', 'fay', 'gus', 'hal', 'ida', 'jon'];
const LAST = ['moss', 'reed', 'vale', 'hart', 'lind', 'shaw', 'wynn', 'cole', 'dunn', 'frey'];

/** New profiles the sandbox finds an address for, so a cell is answered exactly when it shows one. */
function profiles(count: number, tag: string): string[] {
  return Array.from(
    { length: count },
    (_, i) => `https://www.network.com/in/${FIRST[i % FIRST.length]}-${LAST[i % LAST.length]}-${tag}${i + 1}`,
  );
}

interface Sheet {
  env: Environment;
  sandbox: SandboxServer;
  ssId: string;
  last: number;
  close(): Promise<void>;
}

async function newSheet(
  urls: string[],
  options: { dailyCap?: number; lockRateLimit?: { calls: number; windowMs: number }; latencyMs: number },
): Promise<Sheet> {
  const sandbox = await startSandbox({
    port: 0,
    organizations: [{ name: ORG, keys: [KEY], credits: 10 * urls.length + 1000 }],
  });
  sandbox.service.configure({ latencyMs: options.latencyMs });
  const env = new Environment({
    scriptProperties: { API_BASE_URL: sandbox.baseUrl, NETWORK_HOSTS: SANDBOX_NETWORK_HOSTS },
    lockRateLimit: options.lockRateLimit,
  });
  env.userProperties(OWNER).set({ [KEY_PROPERTY]: KEY });
  const ss = env.createSpreadsheet({
    owner: OWNER,
    rows: Math.max(1000, urls.length + 1),
    data: [['Profile URL'], ...urls.map((url) => [url])],
  });
  if (options.dailyCap !== undefined)
    env
      .userProperties(OWNER)
      .set({ [POLICY_PREFIX + ss.id]: JSON.stringify({ enabled: true, dailyCap: options.dailyCap }) });
  return {
    env,
    sandbox,
    ssId: ss.id,
    last: urls.length + 1,
    async close() {
      await env.close();
      await sandbox.close();
    },
  };
}

function shown(sheet: Sheet, a1: string): string[] {
  return sheet.env.displayValues(sheet.ssId, a1).map((row) => String(row[0]));
}

function charges(sandbox: SandboxServer): { credits: number; paidTwice: number } {
  const byUrl = sandbox.service.chargesByUrl();
  const counts = Object.values(byUrl);
  return {
    credits: counts.reduce((sum, n) => sum + n, 0),
    paidTwice: counts.filter((n) => n > 1).length,
  };
}

/**
 * A person's actions as the add-on offers them: the menu's Refresh =FINDEMAIL cells over the column (selected), Yes
 * to a question it asks (each counts as an action), then the evaluations Sheets runs after it.
 */
async function refresh(sheet: Sheet): Promise<{ said: string; actions: number }> {
  sheet.env.select(sheet.ssId, `B2:B${sheet.last}`);
  const asked = sheet.env.ui.alerts.length;
  sheet.env.ui.answers.splice(0, sheet.env.ui.answers.length, { button: 'YES' });
  const said = (await sheet.env.run('refreshFormulas', [], {
    user: OWNER,
    spreadsheetId: sheet.ssId,
  })) as unknown;
  await sheet.env.formulasSettled();
  return {
    said: typeof said === 'string' ? said : JSON.stringify(said),
    actions: 1 + sheet.env.ui.alerts.length - asked,
  };
}

export interface DraggedColumnFigures {
  rows: number;
  firstAnswered: number;
  refusedByPlatform: number;
  actions: number;
  answered: number;
  seconds: number;
  credits: number;
  paidTwice: number;
  connectionBlamed: number;
  lockRefused?: number;
  lastSaid?: string;
}

/** `=FINDEMAIL(Ai)` typed into B2 and filled down: the drag's evaluation, then the person's actions. */
async function draggedColumn(
  rows: number,
  tag: string,
  latencyMs: number,
  lockRateLimit?: { calls: number; windowMs: number },
): Promise<DraggedColumnFigures> {
  const sheet = await newSheet(profiles(rows, tag), { dailyCap: 1_000_000, lockRateLimit, latencyMs });
  try {
    const started = performance.now();
    sheet.env.enter(
      sheet.ssId,
      `B2:B${sheet.last}`,
      Array.from({ length: rows }, (_, i) => [`=FINDEMAIL(A${i + 2})`]),
    );
    await sheet.env.recalculate(sheet.ssId);
    const first = shown(sheet, `B2:B${sheet.last}`);
    const firstAnswered = first.filter((v) => v.includes('@')).length;
    const refusedByPlatform = Array.from(
      { length: rows },
      (_, i) => sheet.env.cell(sheet.ssId, `B${i + 2}`)?.error,
    ).filter((error) => error === TOO_MANY_SIMULTANEOUS_MESSAGE).length;
    let actions = 0;
    let lastSaid: string | undefined;
    let values = first;
    while (values.some((v) => !v.includes('@')) && actions < MAX_ACTIONS) {
      const done = await refresh(sheet);
      lastSaid = done.said;
      actions += done.actions;
      values = shown(sheet, `B2:B${sheet.last}`);
      // Let the lock quota's window pass between actions, as a person's pace does.
      if (lockRateLimit) await new Promise((r) => setTimeout(r, lockRateLimit.windowMs));
    }
    const seconds = (performance.now() - started) / 1000;
    const notes = Array.from(
      { length: rows },
      (_, i) => sheet.env.cell(sheet.ssId, `B${i + 2}`)?.error ?? '',
    );
    return {
      rows,
      firstAnswered,
      refusedByPlatform,
      actions,
      answered: values.filter((v) => v.includes('@')).length,
      seconds,
      ...charges(sheet.sandbox),
      connectionBlamed: [...values, ...notes].filter((text) => CONNECTION_BLAMED.test(text)).length,
      lockRefused: lockRateLimit ? sheet.env.lockCallsRefused : undefined,
      lastSaid,
    };
  } finally {
    await sheet.close();
  }
}

/** Calls on a lock (tryLock, waitLock, releaseLock, hasLock), and LockService.getDocumentLock calls. */
function lockCalls(counts: Record<string, number>): { lock: number; getLock: number } {
  const sum = (prefix: string) =>
    Object.entries(counts)
      .filter(([name]) => name.startsWith(prefix))
      .reduce((total, [, n]) => total + n, 0);
  return { lock: sum('Lock.'), getLock: sum('LockService.') };
}

type LockCalls = ReturnType<typeof lockCalls>;

/** Lock calls of a new profile in a single cell: the first cell of a new spreadsheet, then a later one. */
async function singleCellLocks(latencyMs: number): Promise<{ first: LockCalls; later: LockCalls }> {
  const sheet = await newSheet(profiles(2, 'dl'), { latencyMs });
  try {
    sheet.env.enter(sheet.ssId, 'B2', [['=FINDEMAIL(A2)']]);
    const first = await sheet.env.recalculate(sheet.ssId, { cells: [{ a1: 'B2' }] });
    sheet.env.enter(sheet.ssId, 'B3', [['=FINDEMAIL(A3)']]);
    const later = await sheet.env.recalculate(sheet.ssId, { cells: [{ a1: 'B3' }] });
    return { first: lockCalls(first.results[0].counts), later: lockCalls(later.results[0].counts) };
  } finally {
    await sheet.close();
  }
}

export interface AtLimitFigures {
  rows: number;
  firstAnswered: number;
  laterSeconds: number;
  laterRequests: number;
  limitText: number;
  notInTime: number;
  answered: number;
}

/** A range of new profiles past the default daily limit: the first evaluation, then one after the limit. */
async function atDailyLimit(rows: number, latencyMs: number): Promise<AtLimitFigures> {
  const sheet = await newSheet(profiles(rows, 'dd'), { latencyMs });
  try {
    sheet.env.enter(sheet.ssId, 'B2', [[`=FINDEMAIL(A2:A${sheet.last})`]]);
    await sheet.env.recalculate(sheet.ssId);
    const firstAnswered = shown(sheet, `B2:B${sheet.last}`).filter((v) => v.includes('@')).length;
    const before = sheet.sandbox.service.ledger().length;
    sheet.env.enter(sheet.ssId, 'B2', sheet.env.formulas(sheet.ssId, 'B2'));
    const started = performance.now();
    await sheet.env.recalculate(sheet.ssId, { cells: [{ a1: 'B2' }] });
    const laterSeconds = (performance.now() - started) / 1000;
    const values = shown(sheet, `B2:B${sheet.last}`);
    return {
      rows,
      firstAnswered,
      laterSeconds,
      laterRequests: sheet.sandbox.service.ledger().length - before,
      limitText: values.filter((v) => v.includes(LIMIT_TEXT)).length,
      notInTime: values.filter((v) => v.includes(NOT_IN_TIME)).length,
      answered: values.filter((v) => v.includes('@')).length,
    };
  } finally {
    await sheet.close();
  }
}

export interface RangeFigures {
  rows: number;
  answered: number;
  waitToBeSaved: number;
  seconds: number;
}

/** A range of new profiles on a new spreadsheet, no sidebar opened: its first evaluation. */
async function rangeWithoutSidebar(rows: number, latencyMs: number): Promise<RangeFigures> {
  const sheet = await newSheet(profiles(rows, 'dr'), { dailyCap: 1_000_000, latencyMs });
  try {
    sheet.env.enter(sheet.ssId, 'B2', [[`=FINDEMAIL(A2:A${sheet.last})`]]);
    const started = performance.now();
    await sheet.env.recalculate(sheet.ssId);
    const seconds = (performance.now() - started) / 1000;
    const values = shown(sheet, `B2:B${sheet.last}`);
    return {
      rows,
      answered: values.filter((v) => v.includes('@')).length,
      waitToBeSaved: values.filter((v) => v.includes('wait to be saved')).length,
      seconds,
    };
  } finally {
    await sheet.close();
  }
}

export interface BigRangeFigures {
  rows: number;
  evaluations: number;
  answered: number;
  firstAnswered: number;
  seconds: number;
  paidTwice: number;
}

/** A range of new profiles, no sidebar opened: its first evaluation, then Refresh until every cell shows. */
export async function bigRangeWithRefresh(rows: number, latencyMs: number): Promise<BigRangeFigures> {
  const sheet = await newSheet(profiles(rows, 'db'), { dailyCap: 1_000_000, latencyMs });
  const answeredNow = () => shown(sheet, `B2:B${sheet.last}`).filter((v) => v.includes('@')).length;
  try {
    sheet.env.enter(sheet.ssId, 'B2', [[`=FINDEMAIL(A2:A${sheet.last})`]]);
    const started = performance.now();
    await sheet.env.recalculate(sheet.ssId);
    const firstAnswered = answeredNow();
    let evaluations = 1;
    while (answeredNow() < rows && evaluations < MAX_ACTIONS) {
      await refresh(sheet);
      evaluations++;
    }
    return {
      rows,
      evaluations,
      answered: answeredNow(),
      firstAnswered,
      seconds: (performance.now() - started) / 1000,
      paidTwice: charges(sheet.sandbox).paidTwice,
    };
  } finally {
    await sheet.close();
  }
}

export interface DraggedFigures {
  dragged: DraggedColumnFigures;
  throttled: DraggedColumnFigures;
  locks: { first: LockCalls; later: LockCalls };
  atLimit: AtLimitFigures;
  range: RangeFigures;
  bigRange: BigRangeFigures;
}

/** Runs the six rows: the timed one (a) alone first, b to e after it, together, then f alone. */
export async function runDraggedColumn(options: DraggedOptions = DRAGGED_DEFAULTS): Promise<DraggedFigures> {
  const dragged = await draggedColumn(options.rows, 'dg', options.latencyMs);
  const [throttled, locks, atLimit, range] = await Promise.all([
    draggedColumn(options.throttledRows, 'dt', options.latencyMs, { calls: 20, windowMs: 1000 }),
    singleCellLocks(options.latencyMs),
    atDailyLimit(options.rangeRows, options.latencyMs),
    rangeWithoutSidebar(options.rangeRows, options.latencyMs),
  ]);
  const bigRange = await bigRangeWithRefresh(options.bigRangeRows, options.latencyMs);
  return { dragged, throttled, locks, atLimit, range, bigRange };
}

const fmt = (n: number) => n.toFixed(1);

/** The targets table, one row per measure, with pass or FAIL; returns the misses. */
export function reportDraggedColumn(
  figures: DraggedFigures,
  print: (line: string) => void = console.log,
): number {
  const { dragged: a, throttled: b, locks, atLimit: d, range: e, bigRange: f } = figures;
  const t = DRAGGED_TARGETS;
  const rows: Array<[string, string, string, boolean]> = [
    [
      `a. ${a.rows} dragged cells at 1 s: person actions until all show`,
      `${a.actions} actions, ${fmt(a.seconds)} s; 1st evaluation ${a.firstAnswered} answered, ${a.refusedByPlatform} #ERROR! too many scripts; ${a.answered}/${a.rows} at the end`,
      `≤ ${t.actions} actions, ≤ ${t.seconds} s`,
      a.actions <= t.actions && a.seconds <= t.seconds && a.answered === a.rows,
    ],
    [
      `b. ${b.rows} dragged cells, lock throttle 20 calls/s: profiles paid twice`,
      `${b.paidTwice} of ${b.credits - b.paidTwice} paid (${b.credits} credits); ${b.answered}/${b.rows} answered after ${b.actions} actions; ${b.connectionBlamed} cells blaming the connection; ${b.lockRefused} lock calls refused`,
      `${t.paidTwice} (all ${b.rows} answered)`,
      b.paidTwice === t.paidTwice && b.answered === b.rows && b.connectionBlamed === 0,
    ],
    [
      'c. lock calls (tryLock, waitLock, releaseLock) per new single cell: first cell / a later one',
      `${locks.first.lock} / ${locks.later.lock} (with getDocumentLock: ${locks.first.lock + locks.first.getLock} / ${locks.later.lock + locks.later.getLock})`,
      `≤ ${t.lockCalls}`,
      Math.max(locks.first.lock, locks.later.lock) <= t.lockCalls,
    ],
    [
      `d. a range of ${d.rows} at the daily limit (500): the evaluation after it`,
      `${fmt(d.laterSeconds)} s, ${d.laterRequests} requests; ${d.limitText} cells with the limit's text, ${d.notInTime} "Not looked up in time" (1st evaluation ${d.firstAnswered} answered)`,
      `< ${t.limitSeconds} s, the limit's text in every unanswered cell`,
      d.laterSeconds < t.limitSeconds && d.notInTime === 0 && d.limitText === d.rows - d.answered,
    ],
    [
      `e. a range of ${e.rows} new at 1 s, no sidebar opened: 1st evaluation`,
      `${e.answered} answered + ${e.waitToBeSaved} "wait to be saved" in ${fmt(e.seconds)} s`,
      `${e.rows} in the first evaluation`,
      e.answered === e.rows,
    ],
    [
      `f. a range of ${f.rows} new at 1 s, no sidebar opened: evaluations until all show (Refresh alone)`,
      `${f.evaluations} evaluations, ${fmt(f.seconds)} s; 1st evaluation ${f.firstAnswered} answered; ${f.answered}/${f.rows} at the end; ${f.paidTwice} paid twice`,
      `≤ ${t.bigRangeEvaluations} evaluations, none paid twice`,
      f.evaluations <= t.bigRangeEvaluations && f.answered === f.rows && f.paidTwice === 0,
    ],
  ];
  print('\n10. A dragged column (=FINDEMAIL as people fill it), each row on a new spreadsheet\n');
  let missed = 0;
  for (const [what, measured, target, ok] of rows) {
    if (!ok) missed++;
    print(`   ${what}:\n      ${measured} — target ${target}: ${ok ? 'pass' : 'FAIL'}`);
  }
  return missed;
}

/** `--only=dragged`: scenario 10 alone (bench/draggedColumn.ts), its figures written to the output file. */
export async function mainDragged(config: Config) {
  const figures = await runDraggedColumn();
  const missed = reportDraggedColumn(figures);
  const output = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    dragged: figures,
  };
  writeFigures(config.out, output);
  if (config.check && missed > 0) process.exitCode = 1;
}
