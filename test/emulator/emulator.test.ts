/**
 * The emulator behaves like Apps Script where the add-on depends on it. A small fixture script (not the bundle)
 * calls the services directly; the last test runs the real bundle's onOpen.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Environment,
  type EnvironmentOptions,
  PROPERTY_STORE_BYTES,
  PROPERTY_VALUE_BYTES,
  PropertyStore,
  TIME_LIMIT_MESSAGE,
} from '../../emulator';
import { type SandboxServer, startSandbox } from '../../sandbox/server';
import { EDITOR, OWNER, startWorld } from '../support/harness';

const FIXTURE = `
function writeFormulas() {
  var sheet = SpreadsheetApp.getActiveSheet();
  sheet.getRange('B1').setNumberFormat('@');
  sheet.getRange('A1:B1').setValues([['=HYPERLINK("x")', '=HYPERLINK("x")']]);
  return sheet.getRange('A1:B1').getFormulas();
}

function fetchAllLookups(endpoint, key, urls, mute) {
  return UrlFetchApp.fetchAll(urls.map(function (u) {
    return { url: endpoint, method: 'post', contentType: 'application/json', headers: { 'X-KEY': key },
      payload: JSON.stringify({ network_url: u }), muteHttpExceptions: mute };
  })).map(function (r) { return r.getResponseCode(); });
}

/**
 * Looks one profile up (killed at the limit while the request is in flight, in a test).
 * @customfunction
 */
function LOOKUPCF(endpoint, key, url) {
  return fetchAllLookups(endpoint, key, [url], true)[0];
}

/**
 * Tries to write a cell.
 * @customfunction
 */
function WRITEHERE() {
  SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].getRange('Z1').setValues([['written']]);
  return 'wrote';
}

/**
 * Reads the user property "who".
 * @customfunction
 */
function WHOSE() {
  return PropertiesService.getUserProperties().getProperty('who');
}

/**
 * Returns text that looks like a formula.
 * @customfunction
 */
function LOOKSLIKEFORMULA() {
  return '=HYPERLINK("http://evil.test","click")';
}

/**
 * Never returns.
 * @customfunction
 */
function SPINCF() {
  for (;;) {}
}

function whose() {
  return PropertiesService.getUserProperties().getProperty('who');
}

function spin() {
  for (;;) {}
}

function setScriptProperty(key, size) {
  PropertiesService.getScriptProperties().setProperty(key, new Array(size + 1).join('x'));
  return 'stored';
}

function fillDocumentProperties(count, size) {
  var props = PropertiesService.getDocumentProperties();
  for (var i = 0; i < count; i++) props.setProperty('k' + i, new Array(size + 1).join('x'));
}

function cachePut(key, value, seconds) {
  CacheService.getScriptCache().put(key, value, seconds);
}

function cacheGet(key) {
  return CacheService.getScriptCache().get(key);
}

/** Holds the script lock until the script property "release" is set (at most 10 s). */
function holdLock() {
  var lock = LockService.getScriptLock();
  lock.waitLock(10000);
  var got = Date.now();
  var props = PropertiesService.getScriptProperties();
  for (var i = 0; i < 500 && !props.getProperty('release'); i++) Utilities.sleep(20);
  var released = Date.now();
  lock.releaseLock();
  return [got, released];
}

function tryLockNow() {
  return LockService.getScriptLock().tryLock(0);
}

function addHiddenSheet(name) {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  var sheet = ss.insertSheet(name);
  sheet.getRange('A1').setNumberFormat('@').setValue('kept');
  sheet.setFrozenRows(1);
  sheet.hideSheet();
  return [sheet.isSheetHidden(), ss.getSheets()[0].isSheetHidden(), sheet.getSheetId()];
}

function addChangeTrigger() {
  return ScriptApp.newTrigger('whose').forSpreadsheet(SpreadsheetApp.getActive()).onChange().create().getUniqueId();
}

function askTwice() {
  var ui = SpreadsheetApp.getUi();
  var first = ui.alert('Title', 'Go on?', ui.ButtonSet.YES_NO);
  var second = ui.prompt('Your name?');
  return [first, second.getSelectedButton(), second.getResponseText()];
}

function onOpen(e) {
  var who = PropertiesService.getUserProperties().getProperty('who');
  SpreadsheetApp.getUi().createAddonMenu().addItem('Hello ' + who, 'whose').addToUi();
}
`;

let dir = '';
const envs: Environment[] = [];
let sandbox: SandboxServer | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pef-emulator-'));
  writeFileSync(join(dir, 'Code.js'), FIXTURE);
});

afterEach(async () => {
  const closing = [...envs.splice(0).map((env) => env.close()), sandbox?.close()];
  sandbox = undefined;
  const failed = (await Promise.allSettled(closing)).filter((r) => r.status === 'rejected');
  if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function environment(options: EnvironmentOptions = {}): Environment {
  const env = new Environment({ distDir: dir, ...options });
  envs.push(env);
  return env;
}

describe('Spreadsheet', () => {
  it('setValues makes a formula of a string starting with "=", except in a plain-text ("@") cell', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const formulas = await env.run('writeFormulas', [], { spreadsheetId: ss.id });
    expect(formulas).toEqual([['=HYPERLINK("x")', '']]);
    expect(env.formulas(ss.id, 'A1:B1')).toEqual([['=HYPERLINK("x")', '']]);
    expect(env.values(ss.id, 'B1')).toEqual([['=HYPERLINK("x")']]);
  });

  it("a custom function's result starting with '=' is shown as text, never run as a formula", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1', [['=LOOKSLIKEFORMULA()']]);
    await env.recalculate(ss.id);
    expect(env.values(ss.id, 'A1')).toEqual([['=HYPERLINK("http://evil.test","click")']]);
    expect(env.formulas(ss.id, 'A1')).toEqual([['=LOOKSLIKEFORMULA()']]);
  });

  it('a custom function cannot write to the spreadsheet', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1', [['=WRITEHERE()']]);
    const report = await env.recalculate(ss.id);
    expect(report.results[0].ok).toBe(false);
    expect(report.results[0].error?.message).toMatch(/You do not have permission to call .*setValues/);
    expect(env.values(ss.id, 'A1')).toEqual([['#ERROR!']]);
    expect(env.values(ss.id, 'Z1')).toEqual([['']]);
    // The same function as an ordinary execution may write.
    await env.run('WRITEHERE', [], { spreadsheetId: ss.id });
    expect(env.values(ss.id, 'Z1')).toEqual([['written']]);
  });
});

describe('Ui dialogs', () => {
  it("wait for a person's answer when one answers in a page (the playground), in order, each as its own question", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['x']] });
    const asked: string[] = [];
    env.ui.person = async (question) => {
      asked.push(
        `${question.kind} ${question.title ?? ''}: ${question.prompt} [${question.buttons}] ${question.user}`,
      );
      return question.kind === 'alert' ? { button: 'NO' } : { button: 'OK', text: 'Ada' };
    };
    const answer = await env.run('askTwice', [], { user: OWNER, spreadsheetId: ss.id });
    expect(answer).toEqual(['NO', 'OK', 'Ada']);
    expect(asked).toEqual([`alert Title: Go on? [YES_NO] ${OWNER}`, `prompt : Your name? [OK] ${OWNER}`]);
  });

  it("without a person, take the test's answers in order (OK and empty text past them)", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['x']] });
    env.ui.answers.push({ button: 'YES' });
    expect(await env.run('askTwice', [], { user: OWNER, spreadsheetId: ss.id })).toEqual(['YES', 'OK', '']);
    expect(env.ui.alerts.map((alert) => alert.prompt)).toEqual(['Go on?', 'Your name?']);
  });
});

describe('a spreadsheet saved and restored (SpreadsheetModel.snapshot, restoreSpreadsheet, restoreTriggers)', () => {
  it('keeps every sheet, hidden or not, with its id, formats, frozen rows and dates, and the selection', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['Profile URL'], ['https://x.test/a']] });
    env.enter(ss.id, 'B2', [['2024-03-01']]);
    const [hidden, firstHidden, sheetId] = (await env.run('addHiddenSheet', ['_kept'], {
      spreadsheetId: ss.id,
    })) as [boolean, boolean, number];
    expect([hidden, firstHidden]).toEqual([true, false]);
    env.select(ss.id, 'A2:A3');
    const triggerId = await env.run('addChangeTrigger', [], { spreadsheetId: ss.id, user: OWNER });
    const snapshot = JSON.parse(JSON.stringify(ss.snapshot()));
    const triggers = JSON.parse(JSON.stringify(env.triggers));

    const later = environment();
    const restored = later.restoreSpreadsheet(snapshot);
    later.restoreTriggers(triggers);
    expect(restored.snapshot()).toEqual(ss.snapshot());
    expect(restored.sheets.map((sheet) => [sheet.name, sheet.id, sheet.hidden])).toEqual([
      ['Sheet1', 0, false],
      ['_kept', sheetId, true],
    ]);
    expect(later.values(ss.id, 'B2', 'Sheet1')[0][0]).toBeInstanceOf(Date);
    expect(later.cell(ss.id, 'A1', '_kept')?.format).toBe('@');
    // A sheet added after the restore gets an id of its own; so does a trigger (the owner's counts as made).
    const [, , nextId] = (await later.run('addHiddenSheet', ['_later'], {
      spreadsheetId: ss.id,
    })) as number[];
    expect(nextId).not.toBe(sheetId);
    await expect(later.run('addChangeTrigger', [], { spreadsheetId: ss.id, user: OWNER })).rejects.toThrow(
      /already created a trigger/,
    );
    const nextTrigger = await later.run('addChangeTrigger', [], { spreadsheetId: ss.id, user: EDITOR });
    expect(nextTrigger).not.toBe(triggerId);
    expect(later.triggers.map((t) => t.id)).toEqual([triggerId, nextTrigger]);
    expect(() => later.restoreSpreadsheet(snapshot)).toThrow(/exists already/);
  });
});

describe('user properties', () => {
  it("in a custom function are the spreadsheet owner's, even when an editor's edit runs it", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.userProperties(OWNER).set({ who: 'the owner' });
    env.userProperties(EDITOR).set({ who: 'the editor' });
    env.enter(ss.id, 'A1', [['=WHOSE()']]);
    const report = await env.recalculate(ss.id, { user: EDITOR });
    expect(report.results[0].user).toBe(EDITOR);
    expect(env.values(ss.id, 'A1')).toEqual([['the owner']]);
    // Elsewhere (a menu action, the sidebar) they are the running user's own.
    expect(await env.run('whose', [], { spreadsheetId: ss.id, user: EDITOR })).toBe('the editor');
  });
});

it("the emulator's limits and time-out message are Apps Script's documented ones", () => {
  // The 9 KB value and 500 KB store limits
  // (https://developers.google.com/apps-script/guides/services/quotas); the message Apps Script shows when an
  // execution runs past its limit (https://developers.google.com/apps-script/guides/support/troubleshooting).
  expect(PROPERTY_VALUE_BYTES).toBe(9 * 1024);
  expect(PROPERTY_STORE_BYTES).toBe(500 * 1024);
  expect(TIME_LIMIT_MESSAGE).toBe('Exceeded maximum execution time');
});

describe('time limits', () => {
  it("kill a long execution with Apps Script's message, and the environment goes on", async () => {
    const env = environment({ limits: { executionMs: 300 } });
    const result = await env.execute('spin');
    expect(result).toMatchObject({ ok: false, timedOut: true, error: { message: TIME_LIMIT_MESSAGE } });
    expect(await env.run('cacheGet', ['nothing'])).toBeNull();
  });

  it('apply to custom functions with their own (shorter) limit', async () => {
    const env = environment({ limits: { customFunctionMs: 200, executionMs: 60_000 } });
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1', [['=SPINCF()']]);
    const report = await env.recalculate(ss.id);
    expect(report.results[0].timedOut).toBe(true);
    expect(env.values(ss.id, 'A1')).toEqual([['#ERROR!']]);
    expect(env.cell(ss.id, 'A1')?.error).toBe(TIME_LIMIT_MESSAGE);
  });

  it('close() does not wait out an execution under way: it ends it and stops its thread', async () => {
    const env = environment({ limits: { executionMs: 10 * 60_000 } });
    const running = env.execute('spin');
    await env.close();
    expect(await running).toMatchObject({
      ok: false,
      timedOut: false,
      error: { message: 'The environment was closed during the execution.' },
    });
    await expect(env.execute('whose')).rejects.toThrow('The environment is closed.');
  });
});

describe('properties limits', () => {
  it('refuse a value over 9 KB', async () => {
    const env = environment();
    expect(await env.run('setScriptProperty', ['fits', PROPERTY_VALUE_BYTES])).toBe('stored');
    const result = await env.execute('setScriptProperty', ['too-big', PROPERTY_VALUE_BYTES + 1]);
    expect(result.ok).toBe(false);
    expect(result.error?.message).toBe('Argument too large: value');
    expect(env.scriptProperties.get('too-big')).toBeNull();
  });

  it('refuse to grow a store past 500 KB, keeping what was stored', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const result = await env.execute('fillDocumentProperties', [80, 9000], { spreadsheetId: ss.id });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/exceeded the property storage quota/);
    const store = env.documentProperties(ss.id);
    expect(store.bytes()).toBeLessThanOrEqual(PROPERTY_STORE_BYTES);
    expect(store.bytes()).toBeGreaterThan(PROPERTY_STORE_BYTES - 9010);
  });

  it('the host-side store applies the same limits', () => {
    const store = new PropertyStore();
    expect(() => store.set({ a: 'x'.repeat(PROPERTY_VALUE_BYTES + 1) })).toThrow('Argument too large: value');
  });
});

describe('cache', () => {
  it('entries expire after their time, at most 6 hours', async () => {
    const env = environment();
    await env.run('cachePut', ['short', 'v1', 10]);
    await env.run('cachePut', ['long', 'v2', 999_999]);
    expect(await env.run('cacheGet', ['short'])).toBe('v1');
    env.advanceClock(9_000);
    expect(await env.run('cacheGet', ['short'])).toBe('v1');
    env.advanceClock(2_000);
    expect(await env.run('cacheGet', ['short'])).toBeNull();
    expect(await env.run('cacheGet', ['long'])).toBe('v2');
    env.advanceClock(6 * 3600 * 1000);
    expect(await env.run('cacheGet', ['long'])).toBeNull();
  });
});

describe('locks', () => {
  it('are exclusive between concurrent executions', async () => {
    const env = environment();
    const first = env.run('holdLock') as Promise<[number, number]>;
    for (let i = 0; i < 500 && env.locks.holder('script') === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const holder = env.locks.holder('script');
    expect(holder).toBeDefined();
    expect(await env.run('tryLockNow')).toBe(false);
    const second = env.run('holdLock') as Promise<[number, number]>;
    // The second execution waits in waitLock while the first still holds the lock.
    for (let i = 0; i < 500 && (env.counts['Lock.waitLock'] ?? 0) < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(env.counts['Lock.waitLock']).toBe(2);
    expect(env.locks.holder('script')).toBe(holder);
    env.scriptProperties.set({ release: '1' });
    const [[, firstReleased], [secondGot]] = await Promise.all([first, second]);
    expect(secondGot).toBeGreaterThanOrEqual(firstReleased);
    expect(await env.run('tryLockNow')).toBe(true);
  });
});

describe('UrlFetchApp over real HTTP', () => {
  const KEY = 'fixture-key-1234567890';

  async function startService(): Promise<SandboxServer> {
    sandbox = await startSandbox({
      port: 0,
      organizations: [{ name: 'org', keys: [KEY], credits: 10 }],
      faults: {
        failFirst: {
          'bad-one': { kind: 'reset', times: 1 },
        },
      },
    });
    return sandbox;
  }

  it('a custom function killed at its limit leaves its request in flight: the service answers it and charges it', async () => {
    const service = await startService();
    // Apps Script ends the script, not the request it sent: the service still does the lookup and charges it.
    const env = environment({ limits: { customFunctionMs: 3000, executionMs: 60_000 } });
    const ss = env.createSpreadsheet({ owner: OWNER });
    const endpoint = `${service.baseUrl}network_finder`;
    const url = 'https://network.com/in/slow-one';
    env.enter(ss.id, 'A1', [[`=LOOKUPCF("${endpoint}", "${KEY}", "${url}")`]]);
    // The service holds the lookup until the custom function has been ended, however slow the machine.
    const release = service.service.hold();
    let report: Awaited<ReturnType<typeof env.recalculate>>;
    try {
      report = await env.recalculate(ss.id);
    } finally {
      release();
    }
    expect(report.results[0]).toMatchObject({ timedOut: true, error: { message: TIME_LIMIT_MESSAGE } });
    expect(env.values(ss.id, 'A1')).toEqual([['#ERROR!']]);
    expect(env.fetches.map((record) => record.execId)).toEqual([report.results[0].id]);
    // Bounded: released, the sandbox answers at once.
    for (let i = 0; i < 100 && service.service.inFlight > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(service.service.ledger().map((e) => [e.networkUrl, e.status, e.charged, e.clientGone])).toEqual([
      [url, 200, 1, undefined],
    ]);
    expect(service.service.credits('org')).toBe(9);
  });

  it('fetchAll throws as a whole when one request fails at the transport level; the others were charged', async () => {
    const service = await startService();
    const env = environment();
    const endpoint = `${service.baseUrl}network_finder`;
    const urls = ['https://network.com/in/jane-doe', 'https://network.com/in/bad-one'];
    const result = await env.execute('fetchAllLookups', [endpoint, KEY, urls, true]);
    expect(result.ok).toBe(false);
    expect(result.error?.message).toBe(`Address unavailable: ${endpoint}`);
    expect(service.service.ledger().map((e) => [e.networkUrl, e.status, e.charged])).toEqual([
      [urls[0], 200, 1],
      [urls[1], 'reset', 0],
    ]);
    // Without the fault the same call answers every request.
    expect(await env.run('fetchAllLookups', [endpoint, KEY, urls, true])).toEqual([200, 200]);
  });

  it('without muteHttpExceptions an HTTP error throws with the truncated body', async () => {
    const service = await startService();
    const env = environment();
    const endpoint = `${service.baseUrl}network_finder`;
    const result = await env.execute('fetchAllLookups', [
      endpoint,
      'wrong-key',
      ['https://n.com/in/a-b'],
      false,
    ]);
    expect(result.error?.message).toMatch(
      new RegExp(`^Request failed for ${service.origin} returned code 401\\. Truncated server response: `),
    );
    expect(await env.run('fetchAllLookups', [endpoint, 'wrong-key', ['https://n.com/in/a-b'], true])).toEqual(
      [401],
    );
  });
});

describe('AuthMode.NONE (onOpen before the add-on is used in the document)', () => {
  it('cannot read properties', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const result = await env.execute('onOpen', [], { spreadsheetId: ss.id, authMode: 'NONE', event: {} });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(
      /You do not have permission to call PropertiesService\.getUserProperties/,
    );
    expect(env.ui.menus).toHaveLength(0);
    // With authorisation the same handler works.
    await env.run('onOpen', [], { spreadsheetId: ss.id, authMode: 'LIMITED', event: {} });
    expect(env.ui.menus).toHaveLength(1);
  });

  it("the add-on's onOpen builds its menu in AuthMode.NONE", async () => {
    const world = await startWorld();
    try {
      await world.env.run('onOpen', [], world.as(OWNER, { authMode: 'NONE', event: {} }));
      expect(world.env.ui.menus).toHaveLength(1);
      expect(world.env.ui.menus[0].addon).toBe(true);
      expect(world.env.fetches).toHaveLength(0);
    } finally {
      await world.close();
    }
  });
});
