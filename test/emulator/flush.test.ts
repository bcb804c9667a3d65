/**
 * Sheet writes are an execution's own until it calls SpreadsheetApp.flush() or ends (apps-script/reference/lock/lock
 * releaseLock, apps-script/reference/spreadsheet/spreadsheet-app#flush); a lock released with writes pending is
 * counted; LockService's reported rate quota (option lockRateLimit, on by default). A small fixture script, not
 * the bundle.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_LOCK_RATE_LIMIT,
  Environment,
  type EnvironmentOptions,
  RELEASE_WITH_PENDING_WRITES,
  TOO_MANY_LOCK_OPERATIONS,
} from '../../emulator';
import { OWNER } from '../support/harness';
import { LOCK_CALLS_SOURCE } from './fixtures';

const FIXTURE = `
/** Writes A1 (and a new sheet), flushes if asked, then waits for the script property "go" (at most 10 s). */
function writeThenWait(flush) {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  var sheet = ss.getSheets()[0];
  sheet.getRange('A1').setValues([['mine']]);
  ss.insertSheet('Added');
  var own = [sheet.getRange('A1').getValues()[0][0], ss.getSheets().length];
  if (flush) SpreadsheetApp.flush();
  var props = PropertiesService.getScriptProperties();
  props.setProperty('written', '1');
  for (var i = 0; i < 500 && !props.getProperty('go'); i++) Utilities.sleep(20);
  return own;
}

function readA1() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  return [ss.getSheets()[0].getRange('A1').getValues()[0][0], ss.getSheets().length];
}

/** Writes 5 cells of column \`column\` one at a time, then waits for the script property "go" (at most 10 s). */
function writeCellsThenWait(column) {
  var sheet = SpreadsheetApp.getActiveSheet();
  for (var i = 1; i <= 5; i++) sheet.getRange(i, column).setValue('w' + i);
  var props = PropertiesService.getScriptProperties();
  props.setProperty('written', String(column));
  for (var j = 0; j < 500 && props.getProperty('go') !== String(column); j++) Utilities.sleep(20);
  return column;
}

/** How many cells of column \`column\` another execution sees. */
function countWritten(column) {
  var values = SpreadsheetApp.getActiveSheet().getRange(1, column, 5, 1).getValues();
  return values.filter(function (row) { return row[0] !== ''; }).length;
}

function writeUnderLock(flush) {
  var lock = LockService.getDocumentLock();
  lock.waitLock(5000);
  SpreadsheetApp.getActiveSheet().getRange('A1').setValue('locked write');
  if (flush) SpreadsheetApp.flush();
  lock.releaseLock();
  return 'done';
}

${LOCK_CALLS_SOURCE}`;

let dir = '';
const envs: Environment[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pef-flush-'));
  writeFileSync(join(dir, 'Code.js'), FIXTURE);
});

afterEach(async () => {
  await Promise.allSettled(envs.splice(0).map((env) => env.close()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function environment(options: EnvironmentOptions = {}): Environment {
  const env = new Environment({ distDir: dir, ...options });
  envs.push(env);
  return env;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe('sheet writes before a flush', () => {
  it('by default, some are applied as they are made and some are held until the flush (which, undocumented)', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const seen: number[] = [];
    for (let column = 1; column <= 8; column++) {
      const writer = env.run('writeCellsThenWait', [column], { spreadsheetId: ss.id });
      await until(() => env.scriptProperties.get('written') === String(column));
      seen.push((await env.run('countWritten', [column], { spreadsheetId: ss.id })) as number);
      env.scriptProperties.set({ go: String(column) });
      await writer;
    }
    // Another execution saw some writers' cells before their end, and missed some of others'.
    expect(seen.some((count) => count > 0)).toBe(true);
    expect(seen.some((count) => count < 5)).toBe(true);
    // Their ends applied every write.
    expect(
      env
        .values(ss.id, 'A1:H5')
        .flat()
        .filter((value) => value !== ''),
    ).toHaveLength(40);
  });

  it('held until the flush (liveWrites 0): seen by their own execution only, until it ends', async () => {
    const env = environment({ liveWrites: { probability: 0 } });
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['before']] });
    const writer = env.run('writeThenWait', [false], { spreadsheetId: ss.id });
    await until(() => env.scriptProperties.get('written') === '1');
    // Another execution, and the person, still see the sheet without them.
    expect(await env.run('readA1', [], { spreadsheetId: ss.id })).toEqual(['before', 1]);
    expect(env.values(ss.id, 'A1')).toEqual([['before']]);
    env.scriptProperties.set({ go: '1' });
    // Its own reads saw them.
    expect(await writer).toEqual(['mine', 2]);
    // Its end applied them.
    expect(await env.run('readA1', [], { spreadsheetId: ss.id })).toEqual(['mine', 2]);
    expect(env.values(ss.id, 'A1', 'Sheet1')).toEqual([['mine']]);
  });

  it('are seen by every execution once flushed', async () => {
    const env = environment({ liveWrites: { probability: 0 } });
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['before']] });
    const writer = env.run('writeThenWait', [true], { spreadsheetId: ss.id });
    await until(() => env.scriptProperties.get('written') === '1');
    expect(await env.run('readA1', [], { spreadsheetId: ss.id })).toEqual(['mine', 2]);
    env.scriptProperties.set({ go: '1' });
    await writer;
  });

  it('may be applied as they are made (liveWrites): another execution sees them before any flush', async () => {
    const env = environment({ liveWrites: { probability: 1 } });
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['before']] });
    const writer = env.run('writeThenWait', [false], { spreadsheetId: ss.id });
    await until(() => env.scriptProperties.get('written') === '1');
    expect(await env.run('readA1', [], { spreadsheetId: ss.id })).toEqual(['mine', 2]);
    expect(env.values(ss.id, 'A1', 'Sheet1')).toEqual([['mine']]);
    env.scriptProperties.set({ go: '1' });
    expect(await writer).toEqual(['mine', 2]);
  });
});

describe('a lock released with writes pending', () => {
  // Applied at once (probability 1) or held: the script cannot know which, so both count.
  it.each([0, 1])('is counted, with liveWrites %s; flushed first, it is not', async (probability) => {
    const env = environment({ liveWrites: { probability } });
    const ss = env.createSpreadsheet({ owner: OWNER });
    await env.run('writeUnderLock', [true], { spreadsheetId: ss.id });
    expect(env.lockReleasesWithPendingWrites).toBe(0);
    await env.run('writeUnderLock', [false], { spreadsheetId: ss.id });
    expect(env.lockReleasesWithPendingWrites).toBe(1);
    expect(env.values(ss.id, 'A1')).toEqual([['locked write']]);
  });

  it('throws in the execution with strictFlush', async () => {
    const env = environment({ strictFlush: true });
    const ss = env.createSpreadsheet({ owner: OWNER });
    const result = await env.execute('writeUnderLock', [false], { spreadsheetId: ss.id });
    expect(result.error?.message).toBe(RELEASE_WITH_PENDING_WRITES);
    expect(env.locks.holder(`document:${ss.id}`)).toBeUndefined();
  });
});

describe("LockService's rate quota (option lockRateLimit)", () => {
  it('past N lock calls in the window every lock call throws; the window passes on the clock', async () => {
    const env = environment({ lockRateLimit: { calls: 4, windowMs: 60_000 } });
    const ss = env.createSpreadsheet({ owner: OWNER });
    const seen = (await env.run('lockCalls', [3], { spreadsheetId: ss.id })) as string[];
    expect(seen).toEqual(['taken', 'released', 'taken', 'released', TOO_MANY_LOCK_OPERATIONS]);
    expect(env.lockCallsRefused).toBe(1);
    env.advanceClock(61_000);
    expect(await env.run('lockCalls', [1], { spreadsheetId: ss.id })).toEqual(['taken', 'released']);
  });

  it('is on by default (its figure undocumented: ours, DEFAULT_LOCK_RATE_LIMIT); false turns it off', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    // Each take and release is two calls: the quota passes before the 100th pair.
    const seen = (await env.run('lockCalls', [100], { spreadsheetId: ss.id })) as string[];
    expect(seen.filter((outcome) => outcome === 'released').length).toBeLessThanOrEqual(
      DEFAULT_LOCK_RATE_LIMIT.calls / 2,
    );
    expect(seen).toContain(TOO_MANY_LOCK_OPERATIONS);
    const off = environment({ lockRateLimit: false });
    const other = off.createSpreadsheet({ owner: OWNER });
    const free = (await off.run('lockCalls', [100], { spreadsheetId: other.id })) as string[];
    expect(free.filter((outcome) => outcome === 'released')).toHaveLength(100);
  });
});
