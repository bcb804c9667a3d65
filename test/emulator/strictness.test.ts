/**
 * The emulator is as strict as Apps Script's documentation: the manifest's URL allowlist and scopes,
 * daily quotas, a best-effort cache, trigger limits and contexts, and the states a formula cell can read as.
 * A small fixture script (not the bundle) calls the services; emulator/README.md cites the page of each rule.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cacheCalls,
  DAILY_QUOTAS,
  Environment,
  type EnvironmentOptions,
  LOADING,
  MAX_TRIGGERS_PER_USER,
  notAllowlistedMessage,
  oneOfEachType,
  ProtectionWarningError,
  propertyCalls,
  TEST_DEPLOYMENT_TRIGGERS,
  TIME_LIMIT_MESSAGE,
  TOO_MANY_SIMULTANEOUS_MESSAGE,
  TOO_MANY_TRIGGERS,
  TRIGGER_RUNTIME_EXCEEDED,
} from '../../emulator';
import { allowedByManifest } from '../../emulator/host/manifest';

const OWNER = 'owner@example.com';
const EDITOR = 'editor@example.com';

const FIXTURE = `
function fetchUrl(url) {
  return UrlFetchApp.fetch(url, { muteHttpExceptions: true }).getResponseCode();
}

function fetchAllUrls(urls) {
  return UrlFetchApp.fetchAll(urls.map(function (u) { return { url: u, muteHttpExceptions: true }; }))
    .map(function (r) { return r.getResponseCode(); });
}

function readProperties(n) {
  var props = PropertiesService.getUserProperties();
  for (var i = 0; i < n; i++) props.getProperty('k' + i);
  return n;
}

/** Puts each key, then reads them all back one by one. */
function cacheRoundTrip(keys) {
  var cache = CacheService.getScriptCache();
  keys.forEach(function (k) { cache.put(k, 'v-' + k, 600); });
  return keys.map(function (k) { return cache.get(k); });
}

function makeHourlyTrigger() {
  return ScriptApp.newTrigger('tick').timeBased().everyHours(1).create().getUniqueId();
}

function makeSheetTrigger(kind, handler) {
  var builder = ScriptApp.newTrigger(handler).forSpreadsheet(SpreadsheetApp.getActiveSpreadsheet());
  return builder[kind]().create().getUniqueId();
}

function onOpen() {
  return 'simple';
}

/** The mode it ran in (after a pause long enough to be counted as runtime); in LIMITED, loops while "hold" is set. */
function onEdit(e) {
  Utilities.sleep(5);
  var limited = String(e.authMode) !== 'NONE';
  for (var i = 0; i < 600 && limited && PropertiesService.getScriptProperties().getProperty('hold'); i++) Utilities.sleep(50);
  return String(e.authMode);
}

/** Which services answer: each name, then 'ok' or the message it threw. */
function probeServices() {
  var probes = {
    spreadsheet: function () { return SpreadsheetApp.getActiveSpreadsheet().getName(); },
    properties: function () { return PropertiesService.getDocumentProperties().getKeys(); },
    cache: function () { return CacheService.getDocumentCache().get('k'); },
    lock: function () { return LockService.getDocumentLock().tryLock(10); },
    session: function () { return Session.getActiveUser().getEmail(); },
    menu: function () { return SpreadsheetApp.getUi().createAddonMenu().addItem('Go', 'tick').addToUi(); },
    utilities: function () { return Utilities.formatString('%s', 'x'); },
  };
  return Object.keys(probes).map(function (name) {
    try { probes[name](); return name + ': ok'; } catch (err) { return name + ': ' + err.message; }
  });
}

/** Opens a sidebar, then a dialog, then an alert: what each did. */
function openPanels() {
  var ui = SpreadsheetApp.getUi();
  var html = function () { return HtmlService.createHtmlOutput('<p>hi</p>'); };
  var tries = [
    function () { ui.showSidebar(html()); },
    function () { ui.showModalDialog(html(), 'Help'); },
    function () { ui.alert('Hello'); },
  ];
  return tries.map(function (open) {
    try { open(); return 'ok'; } catch (err) { return err.message; }
  });
}

/** Puts n keys "<prefix><i>" for \`seconds\`; then whether \`probe\` is still cached. */
function cacheFill(prefix, n, seconds, probe) {
  var cache = CacheService.getScriptCache();
  for (var i = 0; i < n; i++) cache.put(prefix + i, 'v', seconds);
  return cache.get(probe) !== null;
}

/** What an installable trigger sees: who runs it, the event, the document. */
function heard(e) {
  return [Session.getEffectiveUser().getEmail(), e.changeType || (e.values ? e.values.join('|') : 'open'), e.authMode, SpreadsheetApp.getActiveSpreadsheet().getId()].join(' ');
}

function tick() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  return ss === null ? 'no document' : ss.getId();
}

function whoAmI() {
  return [Session.getActiveUser().getEmail(), Session.getTemporaryActiveUserKey() !== ''];
}

function helper_() {
  return 'private';
}

function openOther(id) {
  return SpreadsheetApp.openById(id).getName();
}

function readCell(a1) {
  var range = SpreadsheetApp.getActiveSpreadsheet().getRange(a1);
  return [range.getValues(), range.getDisplayValues(), range.getFormulas()];
}

/**
 * Runs until the test sets the script property "go" (at most 10 s): 'done', else 'never released'.
 * @customfunction
 */
function SLOWCF() {
  var props = PropertiesService.getScriptProperties();
  for (var i = 0; i < 200; i++) {
    if (props.getProperty('go')) return 'done';
    Utilities.sleep(50);
  }
  return 'never released';
}

/**
 * Sleeps \`ms\`, then answers 'rested'.
 * @customfunction
 */
function NAPCF(ms) {
  Utilities.sleep(ms);
  return 'rested';
}

/**
 * Always fails.
 * @customfunction
 */
function FAILCF() {
  throw new Error('no luck');
}

/**
 * A new value at each evaluation.
 * @customfunction
 */
function FRESHCF() {
  return Math.random();
}

/**
 * Writes a document property, reads it back.
 * @customfunction
 */
function WRITECF() {
  var props = PropertiesService.getDocumentProperties();
  props.setProperty('written', 'yes');
  return props.getProperty('written');
}

function writeDocumentProperty() {
  PropertiesService.getDocumentProperties().setProperty('written', 'by a menu item');
  return PropertiesService.getDocumentProperties().getProperty('written');
}

/** Protects the sheet \`name\` with a warning only; whether it now warns. */
function guardSheet(name) {
  var sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(name);
  return sheet.protect().setDescription('kept').setWarningOnly(true).isWarningOnly();
}

/** Writes \`value\` into A1 of the sheet \`name\`; reads it back. */
function writeSheet(name, value) {
  var range = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(name).getRange('A1');
  range.setValue(value);
  return range.getValue();
}

/**
 * Protects the first sheet.
 * @customfunction
 */
function PROTECTCF() {
  SpreadsheetApp.getActiveSpreadsheet().getSheets()[0].protect();
  return 'protected';
}

/** Enters the formula of a1 again, the same text. */
function enterAgain(a1) {
  var range = SpreadsheetApp.getActiveSpreadsheet().getRange(a1);
  range.setFormula(range.getFormula());
}
`;

let dir = '';
const envs: Environment[] = [];
const servers: http.Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pef-strict-'));
  writeFileSync(join(dir, 'Code.js'), FIXTURE);
});

afterEach(async () => {
  await Promise.allSettled(envs.splice(0).map((env) => env.close()));
  for (const server of servers.splice(0)) server.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function environment(options: EnvironmentOptions = {}): Environment {
  const env = new Environment({ distDir: dir, ...options });
  envs.push(env);
  return env;
}

/** A loopback HTTP server answering 204 to anything. */
async function loopbackServer(): Promise<string> {
  const server = http.createServer((_req, res) => res.writeHead(204).end());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('the URL allowlist (manifest urlFetchWhitelist)', () => {
  const ALLOWLIST = ['https://api.example.com/v1/'];

  it("refuses a URL outside it with Apps Script's message, before any request, the whole fetchAll with it", async () => {
    const env = environment({ manifest: { urlFetchWhitelist: ALLOWLIST } });
    const outside = 'https://evil.example.net/collect';
    const one = await env.execute('fetchUrl', [outside]);
    expect(one.ok).toBe(false);
    expect(one.error?.message).toBe(notAllowlistedMessage(outside));
    expect(one.error?.message).toBe(
      `Request to ${outside} failed because the URL has not been whitelisted in the script manifest.`,
    );
    const local = await loopbackServer();
    const all = await env.execute('fetchAllUrls', [[local, outside]]);
    expect(all.error?.message).toBe(notAllowlistedMessage(outside));
    expect(env.fetches).toEqual([]);
    expect(env.urlFetchCallsToday).toBe(0);
  });

  it('lets plain http on the loopback address through (the local sandbox), and anything without an allowlist', async () => {
    const local = await loopbackServer();
    const strict = environment({ manifest: { urlFetchWhitelist: ALLOWLIST } });
    expect(await strict.run('fetchUrl', [local])).toBe(204);
    const open = environment({ manifest: {} });
    expect(await open.run('fetchUrl', [local])).toBe(204);
    expect(open.fetches).toHaveLength(1);
  });

  it("matches prefixes as the allowlist page's examples say", () => {
    const list = ['https://example.com/foo', 'https://*.example.org/api/'];
    const allowed = (url: string) => allowedByManifest(new URL(url), list);
    for (const url of [
      'https://example.com/foo',
      'https://example.com/foo/',
      'https://example.com/foo/bar',
      'https://example.com/foo?bar',
      'https://example.com/foo#bar',
      'https://a.example.org/api/x',
      'https://a.b.example.org/api/',
    ])
      expect([url, allowed(url)]).toEqual([url, true]);
    for (const url of [
      'https://example.com/foobar',
      'https://example.com/FOO',
      'http://example.com/foo',
      'https://www.example.com/foo',
      'https://example.org/api/x',
      'https://a.example.org/other',
    ])
      expect([url, allowed(url)]).toEqual([url, false]);
    expect(allowedByManifest(new URL('https://anything.test/'), [])).toBe(false);
    expect(allowedByManifest(new URL('https://anything.test/'), undefined)).toBe(true);
  });
});

describe('daily quotas', () => {
  it('count property calls per user and refuse past the quota with Apps Script message, until the next day', async () => {
    const env = environment({ propertiesDailyQuota: 10 });
    const first = await env.execute('readProperties', [10], { user: OWNER });
    expect(first.ok).toBe(true);
    expect(propertyCalls(first.counts)).toBe(10);
    expect(env.quotaUsage(OWNER).properties).toBe(10);
    const over = await env.execute('readProperties', [1], { user: OWNER });
    expect(over.error?.message).toBe('Service invoked too many times for one day: graphite property writes.');
    // Quotas are per user.
    expect(await env.run('readProperties', [5], { user: EDITOR })).toBe(5);
    expect(env.quotaUsage(EDITOR).properties).toBe(5);
    expect(env.quotaUsage().properties).toBe(15);
    // "reset 24 hours after the first request"
    env.advanceClock(24 * 3600 * 1000);
    expect(await env.run('readProperties', [10], { user: OWNER })).toBe(10);
  });

  it("default to the quotas page's figures for consumer and Workspace accounts", () => {
    expect(DAILY_QUOTAS.consumer).toEqual({ properties: 50_000, urlfetch: 20_000 });
    expect(DAILY_QUOTAS.workspace).toEqual({ properties: 500_000, urlfetch: 100_000 });
    expect(environment().quotaLimits).toEqual(DAILY_QUOTAS.consumer);
    expect(environment({ account: 'workspace' }).quotaLimits).toEqual(DAILY_QUOTAS.workspace);
    expect(environment({ urlFetchDailyQuota: 7 }).quotaLimits.urlfetch).toBe(7);
  });

  it('count UrlFetchApp calls per user, refused with the urlfetch message', async () => {
    const local = await loopbackServer();
    const env = environment({ urlFetchDailyQuota: 2 });
    expect(await env.run('fetchAllUrls', [[local, local]], { user: OWNER })).toEqual([204, 204]);
    const over = await env.execute('fetchUrl', [local], { user: OWNER });
    expect(over.error?.message).toBe('Service invoked too many times for one day: urlfetch.');
    expect(await env.run('fetchUrl', [local], { user: EDITOR })).toBe(204);
    expect(env.quotaUsage()).toEqual({ properties: 0, urlfetch: 3 });
  });
});

describe('UrlFetchApp.fetchAll', () => {
  /** A loopback server answering 204 after `ms`, counting the requests at it at once. */
  async function slowServer(ms: number): Promise<{ url: string; most: () => number; total: () => number }> {
    let now = 0;
    let most = 0;
    let total = 0;
    const server = http.createServer((_req, res) => {
      total++;
      most = Math.max(most, ++now);
      setTimeout(() => {
        now--;
        res.writeHead(204).end();
      }, ms);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return { url, most: () => most, total: () => total };
  }

  it('fetchAllAtOnce: at most that many requests of one fetchAll are at the service at a time, all answered', async () => {
    const server = await slowServer(30);
    const env = environment({ fetchAllAtOnce: 10 });
    const urls = Array.from({ length: 35 }, (_, i) => `${server.url}?${i}`);
    expect(await env.run('fetchAllUrls', [urls])).toEqual(new Array(35).fill(204));
    expect(server.most()).toBe(10);
  });

  it('urlFetchRateLimit: past it the call throws the reported short-time message before sending anything', async () => {
    const server = await slowServer(0);
    const env = environment({ urlFetchRateLimit: { calls: 5, windowMs: 60_000 } });
    const urls = Array.from({ length: 4 }, (_, i) => `${server.url}?${i}`);
    expect(await env.run('fetchAllUrls', [urls])).toHaveLength(4);
    const refused = await env.execute('fetchAllUrls', [urls]);
    expect(refused.error?.message).toBe(
      'Service invoked too many times in a short time: urlfetch. Try Utilities.sleep(1000) between calls.',
    );
    expect(server.total()).toBe(4);
    env.advanceClock(60_000);
    expect(await env.run('fetchAllUrls', [urls])).toHaveLength(4);
  });
});

describe('the best-effort cache mode', () => {
  const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);

  it('never drops an entry early by default', async () => {
    const env = environment();
    const result = await env.execute('cacheRoundTrip', [keys]);
    expect(result.value).toEqual(keys.map((k) => `v-${k}`));
    expect(cacheCalls(result.counts)).toBe(80);
    expect(env.cacheEvictions).toBe(0);
  });

  it('drops entries at random, the same ones again with the same seed', async () => {
    const read = async (seed: number) => {
      const env = environment({ cacheEviction: { probability: 0.5, seed } });
      const values = (await env.run('cacheRoundTrip', [keys])) as Array<string | null>;
      return { values, evicted: env.cacheEvictions };
    };
    const a = await read(7);
    const b = await read(7);
    const c = await read(8);
    const missing = a.values.filter((v) => v === null).length;
    expect(missing).toBeGreaterThan(5);
    expect(missing).toBeLessThan(35);
    expect(a.evicted).toBe(missing);
    expect(b.values).toEqual(a.values);
    expect(c.values).not.toEqual(a.values);
    // What is returned is never a wrong value: only the entry or null.
    for (const [i, v] of a.values.entries()) expect([null, `v-${keys[i]}`]).toContain(v);
  });

  it('past 1,000 items drops the first written, however long they had to live (first in, first out)', async () => {
    const env = environment();
    // The six-hour entry first, then a thousand ten-minute ones: "farthest from expiration" would keep it.
    expect(await env.run('cacheFill', ['long', 1, 21600, 'long0'])).toBe(true);
    expect(await env.run('cacheFill', ['short', 1000, 600, 'long0'])).toBe(false);
    expect(await env.run('cacheFill', ['none', 0, 600, 'short999'])).toBe(true);
  });

  it('with probability 1 every read comes back null', async () => {
    const env = environment({ cacheEviction: { probability: 1 } });
    expect(await env.run('cacheRoundTrip', [keys.slice(0, 3)])).toEqual([null, null, null]);
    expect(env.cacheEvictions).toBe(3);
  });
});

describe('triggers', () => {
  it(`allow a user ${MAX_TRIGGERS_PER_USER} triggers per script, across documents`, async () => {
    const env = environment();
    const sheets = Array.from({ length: MAX_TRIGGERS_PER_USER + 1 }, () =>
      env.createSpreadsheet({ owner: OWNER }),
    );
    for (const ss of sheets.slice(0, MAX_TRIGGERS_PER_USER))
      await env.run('makeHourlyTrigger', [], { spreadsheetId: ss.id });
    const last = sheets[MAX_TRIGGERS_PER_USER];
    const refused = await env.execute('makeHourlyTrigger', [], { spreadsheetId: last.id });
    expect(refused.error?.message).toBe(TOO_MANY_TRIGGERS);
    expect(env.triggers).toHaveLength(MAX_TRIGGERS_PER_USER);
    // Another user has their own 20.
    expect(await env.run('makeHourlyTrigger', [], { spreadsheetId: last.id, user: EDITOR })).toMatch(
      /^trigger-/,
    );
  });

  it('run a time-driven trigger with no active spreadsheet (the old model only when asked for)', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const id = await env.run('makeHourlyTrigger', [], { spreadsheetId: ss.id });
    expect(env.triggers[0]).toMatchObject({ id, spreadsheetId: ss.id, handler: 'tick' });
    expect((await env.fireTrigger(String(id))).value).toBe('no document');
    const legacy = environment({ legacyTriggerDocumentContext: true });
    const other = legacy.createSpreadsheet({ owner: OWNER });
    const legacyId = String(await legacy.run('makeHourlyTrigger', [], { spreadsheetId: other.id }));
    expect((await legacy.fireTrigger(legacyId)).value).toBe(other.id);
    expect((await legacy.fireTrigger(legacyId, { context: 'none' })).value).toBe('no document');
  });

  it('allow one trigger of each type per user per document (another user has their own)', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const as = { spreadsheetId: ss.id };
    await env.run('makeSheetTrigger', ['onChange', 'heard'], as);
    await env.run('makeSheetTrigger', ['onOpen', 'heard'], as);
    const again = await env.execute('makeSheetTrigger', ['onChange', 'heard'], as);
    expect(again.error?.message).toBe(oneOfEachType('ON_CHANGE'));
    await env.run('makeSheetTrigger', ['onChange', 'heard'], { ...as, user: EDITOR });
    const other = env.createSpreadsheet({ owner: OWNER });
    await env.run('makeSheetTrigger', ['onChange', 'heard'], { spreadsheetId: other.id });
    expect(env.triggers.map((t) => `${t.user} ${t.eventType} ${t.spreadsheetId}`)).toEqual([
      `${OWNER} ON_CHANGE ${ss.id}`,
      `${OWNER} ON_OPEN ${ss.id}`,
      `${EDITOR} ON_CHANGE ${ss.id}`,
      `${OWNER} ON_CHANGE ${other.id}`,
    ]);
  });

  it("fire as their creator on a person's edit, an opening and a form response; never for API writes or read-only openings", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER, data: [['Name', 'Profile']] });
    const as = { spreadsheetId: ss.id };
    for (const kind of ['onChange', 'onOpen', 'onFormSubmit'])
      await env.run('makeSheetTrigger', [kind, 'heard'], as);
    const before = env.executions.length;
    expect(
      env.appendRowsThroughApi(ss.id, [
        ['api', 'x'],
        ['api', 'y'],
      ]),
    ).toEqual([2, 3]);
    expect(env.executions.length).toBe(before);
    const edited = await env.change(ss.id, 'A4', [['typed']], { user: EDITOR });
    expect(edited.installable.map((r) => r.value)).toEqual([`${OWNER} EDIT FULL ${ss.id}`]);
    const opened = await env.open(ss.id, { user: EDITOR });
    expect(opened.simple?.value).toBe('simple');
    expect(opened.installable.map((r) => r.value)).toEqual([`${OWNER} open FULL ${ss.id}`]);
    expect((await env.open(ss.id, { user: EDITOR, readOnly: true })).installable).toEqual([]);
    const form = await env.submitForm(ss.id, ['Jane', 'jane']);
    expect(form.row).toBe(5);
    expect(env.values(ss.id, 'A5:B5')).toEqual([['Jane', 'jane']]);
    expect(form.installable.map((r) => r.value)).toEqual([`${OWNER} Jane|jane FULL ${ss.id}`]);
  });

  it('stop running past the daily trigger runtime quota, until the next day', async () => {
    const env = environment({ triggerRuntimeDailyMs: 1 });
    const ss = env.createSpreadsheet({ owner: OWNER });
    await env.run('makeSheetTrigger', ['onChange', 'heard'], { spreadsheetId: ss.id });
    // The creator's installable trigger runs as them; the editor's simple onEdit counts toward the editor's quota.
    const first = await env.change(ss.id, 'A1', [['a']], { user: EDITOR });
    expect(first.simple?.ok).toBe(true);
    expect(first.installable).toHaveLength(1);
    const refused = await env.change(ss.id, 'A2', [['b']], { user: EDITOR });
    expect(refused.simple?.error?.message).toBe(TRIGGER_RUNTIME_EXCEEDED);
    expect(refused.installable).toHaveLength(0);
    expect(refused.refused.map((r) => r.message)).toEqual([TRIGGER_RUNTIME_EXCEEDED]);
    env.advanceClock(24 * 3600_000);
    const nextDay = await env.change(ss.id, 'A3', [['c']], { user: EDITOR });
    expect(nextDay.simple?.ok).toBe(true);
    expect(nextDay.installable).toHaveLength(1);
  });

  it("count a simple trigger's runtime toward its person's quota, and end it at 30 s", async () => {
    const env = environment({ triggerRuntimeDailyMs: 1 });
    const ss = env.createSpreadsheet({ owner: OWNER });
    expect((await env.edit(ss.id, 'A1', [['a']])).ok).toBe(true);
    expect((await env.edit(ss.id, 'A2', [['b']])).error?.message).toBe(TRIGGER_RUNTIME_EXCEEDED);
    // Another person's quota is theirs.
    expect((await env.edit(ss.id, 'A3', [['c']], { user: EDITOR })).ok).toBe(true);
    const fresh = environment();
    const doc = fresh.createSpreadsheet({ owner: OWNER });
    fresh.enableAddon(doc.id);
    fresh.scriptProperties.set({ hold: '1' });
    const editing = fresh.edit(doc.id, 'A1', [['a']]);
    // Its first Utilities.sleep: the execution has started, so its limit runs.
    for (let i = 0; i < 1000 && fresh.sleeps.length < 1; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    fresh.passTime(29_000);
    fresh.passTime(1_500);
    const ended = await editing;
    fresh.scriptProperties.set({ hold: '' });
    expect(ended).toMatchObject({ ok: false, timedOut: true, error: { message: TIME_LIMIT_MESSAGE } });
  });

  it('are refused in a test deployment of an Editor add-on', async () => {
    const env = environment({ deployment: 'test' });
    const ss = env.createSpreadsheet({ owner: OWNER });
    const result = await env.execute('makeHourlyTrigger', [], { spreadsheetId: ss.id });
    expect(result.error?.message).toBe(TEST_DEPLOYMENT_TRIGGERS);
    expect(env.triggers).toEqual([]);
  });

  it('need the script.scriptapp scope when the manifest lists its scopes', async () => {
    const env = environment({
      manifest: { oauthScopes: ['https://www.googleapis.com/auth/spreadsheets.currentonly'] },
    });
    const ss = env.createSpreadsheet({ owner: OWNER });
    const result = await env.execute('makeHourlyTrigger', [], { spreadsheetId: ss.id });
    expect(result.error?.message).toBe(
      'Specified permissions are not sufficient to call ScriptApp.newTrigger. Required permissions: https://www.googleapis.com/auth/script.scriptapp',
    );
  });
});

describe('authorization modes (workspace/add-ons/concepts/editor-auth-lifecycle)', () => {
  it('AuthMode.NONE: no spreadsheet, Properties, Cache, Lock or Session; a menu and Utilities only', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const none = await env.run('probeServices', [], { spreadsheetId: ss.id, authMode: 'NONE' });
    const refused = (name: string) => `${name}: You do not have permission to call`;
    expect(none).toEqual([
      expect.stringContaining(refused('spreadsheet')),
      expect.stringContaining(refused('properties')),
      expect.stringContaining(refused('cache')),
      expect.stringContaining(refused('lock')),
      expect.stringContaining(refused('session')),
      'menu: ok',
      'utilities: ok',
    ]);
    expect(await env.run('probeServices', [], { spreadsheetId: ss.id, authMode: 'LIMITED' })).toEqual([
      'spreadsheet: ok',
      'properties: ok',
      'cache: ok',
      'lock: ok',
      'session: ok',
      'menu: ok',
      'utilities: ok',
    ]);
  });

  it('onOpen and onEdit run in NONE where the add-on is only installed, in LIMITED once anyone used it there', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    expect((await env.edit(ss.id, 'A1', [['a']])).value).toBe('NONE');
    expect((await env.open(ss.id)).simple?.ok).toBe(true);
    // A formula is not a use of the add-on's menu or sidebar; a menu item is.
    await env.run('tick', [], { spreadsheetId: ss.id, user: EDITOR });
    expect((await env.edit(ss.id, 'A2', [['b']])).value).toBe('LIMITED');
    const other = env.createSpreadsheet({ owner: OWNER });
    expect((await env.edit(other.id, 'A1', [['a']])).value).toBe('NONE');
  });

  it('no sidebar, dialog or alert opens in LIMITED or NONE; each opens in FULL', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    for (const authMode of ['LIMITED', 'NONE'] as const)
      expect(await env.run('openPanels', [], { spreadsheetId: ss.id, authMode })).toEqual([
        'You do not have permission to call showSidebar',
        'You do not have permission to call showModalDialog',
        'You do not have permission to call alert',
      ]);
    expect(env.ui.sidebars).toHaveLength(0);
    expect(await env.run('openPanels', [], { spreadsheetId: ss.id })).toEqual(['ok', 'ok', 'ok']);
    expect(env.ui.sidebars).toHaveLength(1);
  });
});

describe('Session', () => {
  it('getActiveUser needs userinfo.email when the manifest lists its scopes; getTemporaryActiveUserKey none', async () => {
    const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;
    const narrow = environment({ manifest: { oauthScopes: [scope('spreadsheets.currentonly')] } });
    const ss = narrow.createSpreadsheet({ owner: OWNER });
    const refused = await narrow.execute('whoAmI', [], { spreadsheetId: ss.id });
    expect(refused.error?.message).toBe(
      'Specified permissions are not sufficient to call Session.getActiveUser. Required permissions: https://www.googleapis.com/auth/userinfo.email',
    );
    const granted = environment({
      manifest: { oauthScopes: [scope('spreadsheets.currentonly'), scope('userinfo.email')] },
    });
    const other = granted.createSpreadsheet({ owner: OWNER });
    expect(await granted.run('whoAmI', [], { spreadsheetId: other.id })).toEqual([OWNER, true]);
  });
});

describe('google.script.run', () => {
  it('cannot call a private function (a name ending with _), which a menu or the editor still runs', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    const options = { spreadsheetId: ss.id };
    await expect(env.runFromPage('helper_', [], options)).rejects.toThrow(
      'Script function not found: helper_',
    );
    expect(await env.run('helper_', [], options)).toBe('private');
    expect(await env.runFromPage('readCell', ['A1'], options)).toEqual([[['']], [['']], [['']]]);
  });
});

describe('SpreadsheetApp.openById', () => {
  it('needs the full spreadsheets scope: spreadsheets.currentonly is not enough', async () => {
    const scopes = (list: string[]) => ({
      oauthScopes: list.map((s) => `https://www.googleapis.com/auth/${s}`),
    });
    const narrow = environment({ manifest: scopes(['spreadsheets.currentonly']) });
    const [current, other] = [
      narrow.createSpreadsheet({ owner: OWNER }),
      narrow.createSpreadsheet({ owner: OWNER }),
    ];
    const refused = await narrow.execute('openOther', [other.id], { spreadsheetId: current.id });
    expect(refused.error?.message).toBe(
      'Specified permissions are not sufficient to call SpreadsheetApp.openById. Required permissions: https://www.googleapis.com/auth/spreadsheets',
    );
    const full = environment({ manifest: scopes(['spreadsheets']) });
    const [a, b] = [
      full.createSpreadsheet({ owner: OWNER }),
      full.createSpreadsheet({ owner: OWNER, name: 'B' }),
    ];
    expect(await full.run('openOther', [b.id], { spreadsheetId: a.id })).toBe('B');
  });
});

describe('what a formula cell reads as', () => {
  it(`reads "${LOADING}" while its custom function computes, then the result`, async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1', [['=SLOWCF()']]);
    const recalculating = env.recalculate(ss.id);
    for (let i = 0; i < 500 && env.values(ss.id, 'A1')[0][0] !== LOADING; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // The custom function runs until released, however long this read takes to start.
    const during = (await env.run('readCell', ['A1'], { spreadsheetId: ss.id })) as unknown[];
    env.scriptProperties.set({ go: '1' });
    expect(during).toEqual([[[LOADING]], [[LOADING]], [['=SLOWCF()']]]);
    await recalculating;
    expect(await env.run('readCell', ['A1'], { spreadsheetId: ss.id })).toEqual([
      [['done']],
      [['done']],
      [['=SLOWCF()']],
    ]);
  });

  it('reads errors as Sheets shows them: #N/A, #ERROR!', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1:B1', [['=NA()', '=FAILCF()']]);
    await env.recalculate(ss.id);
    expect(await env.run('readCell', ['A1:B1'], { spreadsheetId: ss.id })).toEqual([
      [['#N/A', '#ERROR!']],
      [['#N/A', '#ERROR!']],
      [['=NA()', '=FAILCF()']],
    ]);
    expect(env.cell(ss.id, 'B1')?.error).toBe('no luck');
  });
});

describe('custom functions and the executions around them', () => {
  it('a formula entered again by a script, the same text, is evaluated again; the text stays', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1', [['=FRESHCF()']]);
    await env.recalculate(ss.id);
    const first = env.values(ss.id, 'A1')[0][0];
    expect(typeof first).toBe('number');
    await env.run('enterAgain', ['A1'], { spreadsheetId: ss.id });
    await env.formulasSettled();
    const second = env.values(ss.id, 'A1')[0][0];
    expect(typeof second).toBe('number');
    expect(second).not.toBe(first);
    expect(env.formulas(ss.id, 'A1')).toEqual([['=FRESHCF()']]);
  });

  it("refuses a custom function past 30 running at once for one user, before its code runs, with Apps Script's message", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(
      ss.id,
      'A1:A40',
      Array.from({ length: 40 }, () => ['=SLOWCF()']),
    );
    // The thirty admitted run until the ten others have been refused.
    const recalculating = env.recalculate(ss.id);
    const refusedCells = () =>
      Array.from({ length: 40 }, (_, i) => env.cell(ss.id, `A${i + 1}`)?.error).filter(Boolean);
    for (let i = 0; i < 1000 && refusedCells().length < 10; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    env.scriptProperties.set({ go: '1' });
    const report = await recalculating;
    const refused = report.results.filter((r) => !r.ok);
    expect(refused).toHaveLength(10);
    for (const result of refused) {
      expect(result.error?.message).toBe(TOO_MANY_SIMULTANEOUS_MESSAGE);
      expect(result.counts).toEqual({});
    }
    const values = env.values(ss.id, 'A1:A40').map((row) => row[0]);
    expect(values.filter((v) => v === 'done')).toHaveLength(30);
    expect(values.filter((v) => v === '#ERROR!')).toHaveLength(10);
    const errors = Array.from({ length: 40 }, (_, i) => env.cell(ss.id, `A${i + 1}`)?.error).filter(Boolean);
    expect(new Set(errors)).toEqual(new Set([TOO_MANY_SIMULTANEOUS_MESSAGE]));
    // Once those have ended, the refused cells run when evaluated again.
    const again = Array.from({ length: 40 }, (_, i) => `A${i + 1}`).filter(
      (a1) => env.cell(ss.id, a1)?.error,
    );
    await env.recalculate(ss.id, { cells: again.map((a1) => ({ a1 })) });
    expect(env.values(ss.id, 'A1:A40').every(([v]) => v === 'done')).toBe(true);
  });

  it('counts every kind of execution toward the 30: a sidebar call past them is refused with the same message', async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(
      ss.id,
      'A1:A30',
      Array.from({ length: 30 }, () => ['=SLOWCF()']),
    );
    const recalculating = env.recalculate(ss.id);
    for (let i = 0; i < 1000 && env.runningExecutions(OWNER) < 30; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const call = await env.execute('tick', [], { spreadsheetId: ss.id, user: OWNER });
    env.scriptProperties.set({ go: '1' });
    await recalculating;
    expect(call.ok).toBe(false);
    expect(call.error?.message).toBe(TOO_MANY_SIMULTANEOUS_MESSAGE);
    expect(call.counts).toEqual({});
    // Another user's calls are theirs to count.
    expect((await env.execute('tick', [], { spreadsheetId: ss.id, user: EDITOR })).ok).toBe(true);
  });

  it('counts executions, not threads: with 6 worker threads (a small machine), still 30 run at once and the rest are refused', async () => {
    // The 30 s limit scaled down to LIMIT_MS: the 30 admitted take five turns of the 6 threads, NAP_MS each, so the
    // last six wait at least 4 * NAP_MS for a thread, longer than the limit, while each runs a third of it.
    const NAP_MS = 1_500;
    const LIMIT_MS = 4_500;
    const env = environment({ maxConcurrent: 6, limits: { customFunctionMs: LIMIT_MS } });
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(
      ss.id,
      'A1:A40',
      Array.from({ length: 40 }, () => [`=NAPCF(${NAP_MS})`]),
    );
    const started = Date.now();
    const report = await env.recalculate(ss.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * NAP_MS);
    expect(report.results.filter((r) => !r.ok).map((r) => r.error?.message)).toEqual(
      new Array(10).fill(TOO_MANY_SIMULTANEOUS_MESSAGE),
    );
    // Waiting for a thread does not count against the time limit: none of the 30 was killed.
    expect(report.results.filter((r) => r.ok && !r.timedOut)).toHaveLength(30);
    expect(env.values(ss.id, 'A1:A40').filter(([v]) => v === 'rested')).toHaveLength(30);
  }, 60_000);

  it("customFunctionDocumentWrites: refused makes a custom function's document-property write throw; other executions still write", async () => {
    const allowed = environment();
    const open = allowed.createSpreadsheet({ owner: OWNER });
    allowed.enter(open.id, 'A1', [['=WRITECF()']]);
    await allowed.recalculate(open.id);
    expect(allowed.values(open.id, 'A1')).toEqual([['yes']]);

    const env = environment({ customFunctionDocumentWrites: 'refused' });
    const ss = env.createSpreadsheet({ owner: OWNER });
    env.enter(ss.id, 'A1', [['=WRITECF()']]);
    await env.recalculate(ss.id);
    expect(env.values(ss.id, 'A1')).toEqual([['#ERROR!']]);
    expect(env.cell(ss.id, 'A1')?.error).toBe('You do not have permission to call setProperty');
    expect(env.documentProperties(ss.id).all()).toEqual({});
    expect(await env.run('writeDocumentProperty', [], { spreadsheetId: ss.id })).toBe('by a menu item');
  });
});

describe('warning-only protection (Protection.setWarningOnly)', () => {
  it("lets every editor's script write the sheet, warns a person's edit first, and is refused in a custom function", async () => {
    const env = environment();
    const ss = env.createSpreadsheet({ owner: OWNER });
    expect(await env.run('guardSheet', ['Sheet1'], { user: EDITOR, spreadsheetId: ss.id })).toBe(true);
    expect(ss.sheetByName('Sheet1')?.protection).toEqual({ warningOnly: true, description: 'kept' });
    expect(
      await env.run('writeSheet', ['Sheet1', 'by a script'], { user: EDITOR, spreadsheetId: ss.id }),
    ).toBe('by a script');
    expect(env.protectionWarnings).toEqual([]);
    await expect(env.edit(ss.id, 'A1', [['by hand']], { user: EDITOR })).rejects.toThrow(
      ProtectionWarningError,
    );
    expect(env.values(ss.id, 'A1')).toEqual([['by a script']]);
    expect(env.protectionWarnings).toEqual([{ spreadsheetId: ss.id, sheetName: 'Sheet1', user: EDITOR }]);
    await env.edit(ss.id, 'A1', [['by hand']], { user: EDITOR, confirmWarning: true });
    expect(env.values(ss.id, 'A1')).toEqual([['by hand']]);

    const other = env.createSpreadsheet({ owner: OWNER });
    env.enter(other.id, 'A1', [['=PROTECTCF()']]);
    await env.recalculate(other.id);
    expect(env.cell(other.id, 'A1')?.error).toBe('You do not have permission to call Sheet.protect');
    expect(other.sheetByName('Sheet1')?.protection).toBeUndefined();
  });
});
