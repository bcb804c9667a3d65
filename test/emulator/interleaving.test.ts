/**
 * The test's controls of what happens between executions, and the rules they rest on: an execution held at one of
 * its service calls while others go on (env.onServiceCall), LockService's rate quota refusing one execution's calls
 * (env.refuseLockCalls({ execId })), a whole property store written anew (env.storeRewrites), and an alert that
 * suspends the script dropping its locks (apps-script/reference/base/ui). A small fixture script, not the bundle.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Environment, type ServiceCall, TOO_MANY_LOCK_OPERATIONS } from '../../emulator';
import { OWNER } from '../support/harness';
import { LOCK_CALLS_SOURCE } from './fixtures';

const FIXTURE = `
${LOCK_CALLS_SOURCE}
/** Holds the document lock, asks the person a question, then says whether it held the lock before and after. */
function askHoldingTheLock() {
  var lock = LockService.getDocumentLock();
  lock.waitLock(5000);
  var before = lock.hasLock();
  SpreadsheetApp.getUi().alert('Go on?');
  return [before, lock.hasLock()];
}

/** Waits up to 10 s for the document lock. */
function waitForTheLock() {
  return LockService.getDocumentLock().tryLock(10000);
}

/** Reads the document properties, adds its own, and writes the store anew (every other key deleted). */
function readAddRewrite() {
  var store = PropertiesService.getDocumentProperties();
  var all = store.getProperties();
  all.mine = 'x';
  store.setProperties(all, true);
  store.setProperties({ kept: 'y' });
  return Object.keys(store.getProperties()).sort();
}
`;

let dir = '';
const envs: Environment[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pef-interleaving-'));
  writeFileSync(join(dir, 'Code.js'), FIXTURE);
});

afterEach(async () => {
  await Promise.allSettled(envs.splice(0).map((env) => env.close()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function environment(): Environment {
  const env = new Environment({ distDir: dir });
  envs.push(env);
  return env;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

/** Holds the first execution that makes a call matching `matches` there until the returned `go` is called. */
function holdAt(env: Environment, matches: (call: ServiceCall) => boolean) {
  let reached: ServiceCall | undefined;
  let go = () => {};
  const gate = new Promise<void>((resolve) => {
    go = resolve;
  });
  const remove = env.onServiceCall((call) => {
    if (reached || !matches(call)) return;
    reached = call;
    remove();
    return gate;
  });
  return { reached: () => reached, go };
}

describe('env.onServiceCall: an execution held at a call while others go on', () => {
  it('the held execution waits there; another one runs meanwhile and sees what it left', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.documentProperties(ss.id).set({ before: '1' });
    const held = holdAt(env, (call) => call.op === 'Properties.getProperties' && call.phase === 'after');
    const first = env.run('readAddRewrite', [], { spreadsheetId: ss.id });
    await until(() => held.reached() !== undefined);
    // Another execution writes a key between the first one's read and its write.
    env.documentProperties(ss.id).set({ between: '1' });
    held.go();
    // Its write anew (deleteAllOthers) removed what was written between: recorded in env.storeRewrites.
    expect(await first).toEqual(['before', 'kept', 'mine']);
    expect(env.storeRewrites).toEqual([
      { execId: held.reached()?.execId, fn: 'readAddRewrite', store: 'document' },
    ]);
  });
});

describe('env.refuseLockCalls({ execId }): the rate quota refusing one execution', () => {
  it("refuses that execution's lock calls only, until lifted", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    let lift = () => {};
    const held = holdAt(env, (call) => call.op === 'Lock.tryLock' && call.phase === 'before');
    const refused = env.run('lockCalls', [2], { spreadsheetId: ss.id });
    await until(() => held.reached() !== undefined);
    lift = env.refuseLockCalls({ execId: held.reached()?.execId });
    expect(await env.run('lockCalls', [1], { spreadsheetId: ss.id })).toEqual(['taken', 'released']);
    held.go();
    expect(await refused).toEqual([TOO_MANY_LOCK_OPERATIONS, TOO_MANY_LOCK_OPERATIONS]);
    lift();
    expect(await env.run('lockCalls', [1], { spreadsheetId: ss.id })).toEqual(['taken', 'released']);
  });
});

describe('Ui.alert suspends the script: its locks do not persist across the suspension', () => {
  it('an execution waiting for the lock takes it while the dialog is open; the asking one no longer holds it', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const held = holdAt(env, (call) => call.op === 'Ui.alert' && call.phase === 'before');
    const asking = env.run('askHoldingTheLock', [], { spreadsheetId: ss.id });
    await until(() => held.reached() !== undefined);
    const waiting = env.run('waitForTheLock', [], { spreadsheetId: ss.id });
    await until(() => (env.counts['Lock.tryLock'] ?? 0) === 1);
    expect(env.locks.holder(`document:${ss.id}`)).toBe(String(held.reached()?.execId));
    held.go();
    expect(await asking).toEqual([true, false]);
    expect(await waiting).toBe(true);
    expect(env.ui.alerts.map((alert) => alert.prompt)).toEqual(['Go on?']);
  });
});
