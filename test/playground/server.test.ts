/**
 * The playground's server without a browser: its state across a restart and --reset, its loopback-only guard, its
 * command line, and a clean stop on Ctrl-C (SIGINT) of the real `tsx playground/server.ts` process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { SAMPLE_SHEET_NAME, SAMPLE_URLS } from '../../playground/sample';
import { type Playground, parseCli, ROOT } from '../../playground/server';
import { DEMO_KEY } from '../../playground/service';
import { STATE_FILE, STATE_VERSION } from '../../playground/state';
import { API_KEY_PROPERTY, DEMO_USER, JOB_PROPERTY } from '../../playground/workbook';
import { predictLookup } from '../../sandbox/profiles';
import { chargeableProfiles, profile, removeDir, tempStateDir, testPlayground } from './helpers';

jest.setTimeout(60_000);

/** Drives a run the way the open sidebar does, a bounded number of slices. */
async function finishRun(pg: Playground): Promise<void> {
  const { env, spreadsheetId } = pg.workbook;
  for (let slice = 0; slice < 50 && pg.workbook.run()?.state === 'running'; slice++) {
    await env.run('continueEnrichment', [], { user: DEMO_USER, spreadsheetId });
  }
  expect(pg.workbook.run()?.state).toBe('done');
}

function request(
  port: number,
  options: { path: string; method?: string; host?: string; type?: string; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: {
          Host: options.host ?? `127.0.0.1:${port}`,
          ...(options.type ? { 'Content-Type': options.type } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A playground server started as a process (`tsx playground/server.ts`, or `npm start`): its output so far and the
 * port it printed (0 when it printed none within 30 s); `stop(signal)` sends the signal and answers the exit code, or
 * 'still running' after 20 s.
 */
async function serverProcess(command: string, args: string[], cwd: string) {
  const proc = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [proc.stdout, proc.stderr])
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  let port = 0;
  while (!port && Date.now() < deadline && proc.exitCode === null) {
    port = Number(/Open http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)?.[1] ?? 0);
    if (!port) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    proc,
    port,
    output: () => output,
    async stop(signal: NodeJS.Signals): Promise<number | null | 'still running'> {
      proc.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([
        exited,
        new Promise<'still running'>((resolve) => {
          timer = setTimeout(() => resolve('still running'), 20_000);
        }),
      ]);
      clearTimeout(timer);
      return stopped;
    },
  };
}

describe('the playground server', () => {
  const open: Playground[] = [];
  const dirs: string[] = [];
  let child: ChildProcess | undefined;

  async function start(dir: string, extra: Parameters<typeof testPlayground>[1] = {}): Promise<Playground> {
    const pg = await testPlayground(dir, extra);
    open.push(pg);
    return pg;
  }

  afterEach(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    child = undefined;
    for (const pg of open.splice(0)) await pg.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  test('the toolbar feeds a watch: a form response is answered at once; rows an automation tool appends wait for the next opening', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    const pg = await start(dir, { credits: 200, latencyMs: 0 });
    const wb = pg.workbook;
    const ss = wb.spreadsheetId;
    await wb.open();
    await wb.idle();
    await wb.setSelection({ r1: 1, c1: 1, r2: 1, c2: 1 });
    const started = (await wb.env.run('startWatch', [{ limit: 100 }], {
      user: DEMO_USER,
      spreadsheetId: ss,
    })) as {
      started: boolean;
    };
    expect(started.started).toBe(true);
    const charged = () => pg.service.sandbox.service.totalCharged();
    const sample = chargeableProfiles(SAMPLE_URLS.filter((u) => u !== '')).length;
    expect(charged()).toBe(0);
    const form = await request(pg.port, {
      path: '/api/form',
      method: 'POST',
      type: 'application/json',
      body: '{}',
    });
    expect(form.status).toBe(200);
    await wb.idle();
    // The form's row and the sample's rows without a result, on the watch's first check.
    expect(charged()).toBe(sample + 1);
    const appended = await request(pg.port, {
      path: '/api/append',
      method: 'POST',
      type: 'application/json',
      body: JSON.stringify({ count: 3 }),
    });
    const rows = (JSON.parse(appended.body) as { rows: number[] }).rows;
    expect(rows).toHaveLength(3);
    await wb.idle();
    expect(charged()).toBe(sample + 1);
    expect(wb.env.values(ss, `C${rows[0]}:C${rows[2]}`).flat()).toEqual(['', '', '']);
    await wb.open();
    await wb.idle();
    expect(charged()).toBe(sample + 4);
    expect(
      wb.env
        .values(ss, `C${rows[0]}:C${rows[2]}`)
        .flat()
        .every((status) => status !== ''),
    ).toBe(true);
  });

  test('the grid, formulas, properties, cache, credits and ledger survive a restart; --reset starts from the sample', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    const first = await start(dir, { credits: 200, latencyMs: 0 });
    const wb = first.workbook;
    const ss = wb.spreadsheetId;
    await wb.open();
    // The sample column is selected at first: the menu action enriches it.
    expect(wb.selection()).toEqual({ r1: 1, c1: 1, r2: SAMPLE_URLS.length + 1, c2: 1 });
    await wb.runMenu('enrichSelection');
    // The menu opens the plan; Start (at the price shown) starts the run.
    const as = { user: DEMO_USER, spreadsheetId: ss };
    expect(wb.run()).toBeNull();
    const plan = (await wb.env.run('getRunPlan', [{}], as)) as { credits: number };
    await wb.env.run('startRun', [{ confirmedCredits: plan.credits }], as);
    await finishRun(first);
    // The sample holds what a real list does: blanks, duplicates (one written differently), no URL, 422s.
    const charges = first.service.sandbox.service.chargesByUrl();
    const sample = SAMPLE_URLS.filter((u) => u !== '');
    expect(SAMPLE_URLS).toContain('');
    expect(Object.keys(charges).sort()).toEqual(chargeableProfiles(sample));
    expect(Object.keys(charges).length).toBeLessThan(sample.length - 2);
    expect(Object.values(charges).every((n) => n === 1)).toBe(true);
    expect(first.service.view().ledger.filter((row) => row.status === '422').length).toBeGreaterThanOrEqual(
      2,
    );
    expect(wb.env.displayValues(ss, 'C2:C22').flat()).toContain('INVALID_URL');
    await wb.setCells([
      { r: 2, c: 7, value: '=FINDEMAIL(A2)' },
      { r: 40, c: 3, value: 'my note' },
    ]);
    await wb.setSelection({ r1: 40, c1: 3, r2: 41, c2: 4 });
    await wb.idle();
    first.service.change({ latencyMs: 123, error500Rate: 0.1, addCredits: 5 });

    const values = wb.env.displayValues(ss, 'A1:G41');
    const jane = predictLookup(SAMPLE_URLS[0]);
    if (jane.kind !== 'found') throw new Error('jane-doe has an address');
    expect(values[1][6]).toBe(jane.email);
    const documentProperties = wb.env.documentProperties(ss).all();
    // The run's state is in document properties; the paid results in the hidden results sheet (saved with the grid).
    expect(Object.keys(documentProperties)).toContain('pef.job');
    expect(wb.env.displayValues(ss, 'A1', '_pef_results')[0][0]).toMatch(/paid results/);
    const before = first.service.view();
    await first.close();
    expect(existsSync(join(dir, STATE_FILE))).toBe(true);
    // Every sheet, hidden or not (the results, the credits log), with its cells, formats and sheet id.
    const sheetsBefore = wb.env.spreadsheet(ss).snapshot();
    expect(sheetsBefore.sheets.map(({ name, hidden }) => [name, hidden])).toEqual([
      [SAMPLE_SHEET_NAME, false],
      ['_pef_results', true],
      ['_pef_credits', true],
    ]);

    const second = await start(dir, { latencyMs: undefined });
    const again = second.workbook;
    expect(again.env.spreadsheet(ss).snapshot()).toEqual(sheetsBefore);
    expect(again.env.displayValues(ss, 'A1:G41')).toEqual(values);
    expect(again.env.formulas(ss, 'G2')).toEqual([['=FINDEMAIL(A2)']]);
    // The output columns stay plain text, so an address starting with = could never become a formula.
    expect(again.env.cell(ss, 'B2')?.format).toBe('@');
    expect(again.env.documentProperties(ss).all()).toEqual(documentProperties);
    expect(again.env.displayValues(ss, 'A1', '_pef_results')[0][0]).toMatch(/paid results/);
    // Still guarded: a person's edit of the restored results sheet is warned first.
    expect(again.env.spreadsheet(ss).sheetByName('_pef_results')?.protection?.warningOnly).toBe(true);
    expect(again.env.userProperties(DEMO_USER).get(API_KEY_PROPERTY)).toBe(DEMO_KEY);
    expect(again.selection()).toEqual({ r1: 40, c1: 3, r2: 41, c2: 4 });
    const restored = second.service.view();
    expect(restored.credits).toBe(before.credits);
    expect(restored.charged).toBe(before.charged);
    expect(restored.ledger).toEqual(before.ledger);
    expect(restored.latencyMs).toBe(123);
    expect(restored.error500Rate).toBe(0.1);
    // Opening it again evaluates no formula (as Sheets: only a changed formula or input does): no request.
    second.service.change({ error500Rate: 0 });
    await again.open();
    await again.idle();
    expect(again.env.executions.some((e) => e.fn === 'FINDEMAIL')).toBe(false);
    expect(second.service.view().requests).toBe(before.requests);
    expect(again.env.displayValues(ss, 'G2')).toEqual([[jane.email]]);
    // A profile never paid for goes to the restarted sandbox (a new port), not to the address from before the
    // restart (each execution reads the script properties once: src/adapters/platform.ts).
    const newcomer = 'https://www.network.com/in/kim-after-restart';
    const kim = predictLookup(newcomer);
    if (kim.kind !== 'found') throw new Error('kim-after-restart has an address');
    await again.setCells([
      { r: 45, c: 1, value: newcomer },
      { r: 45, c: 7, value: '=FINDEMAIL(A45)' },
    ]);
    await again.idle();
    expect(again.env.displayValues(ss, 'G45')).toEqual([[kim.email]]);
    await second.close();

    // --credits sets the balance at every start, not only after --reset.
    const topped = await start(dir, { credits: 15 });
    expect(topped.service.view().credits).toBe(15);
    await topped.close();
    const third = await start(dir, { reset: true, credits: 77 });
    const fresh = third.workbook;
    expect(fresh.env.displayValues(ss, 'A1:A2')).toEqual([['Profile URL'], [SAMPLE_URLS[0]]]);
    expect(fresh.env.displayValues(ss, 'B2:G2')).toEqual([['', '', '', '', '', '']]);
    expect(fresh.env.documentProperties(ss).get(JOB_PROPERTY)).toBeNull();
    expect(fresh.env.userProperties(DEMO_USER).get(API_KEY_PROPERTY)).toBe(DEMO_KEY);
    expect(third.service.view()).toMatchObject({ credits: 77, charged: 0, requests: 0, ledger: [] });
  });

  test('a state saved by an older playground is set aside, said plainly, and the sample sheet and sandbox start afresh', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    // What format 2 wrote: one sheet and the results sheet, beside the sandbox's ledger of 3 charges.
    const old = {
      version: 2,
      workbook: {
        sheet: { name: 'Leads', rows: 1000, cols: 26, frozenRows: 0, cells: [{ r: 1, c: 1, v: 'Old URL' }] },
        selection: null,
        documentProperties: {},
        userProperties: {},
        documentCache: [],
        userCache: [],
        scriptCache: [],
        triggers: [],
        sidebar: null,
      },
      service: { credits: 10, faults: { latencyMs: 0 }, ledger: [], charged: 3, requests: 3 },
    };
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, STATE_FILE), JSON.stringify(old));
    const lines: string[] = [];
    const pg = await start(dir, { latencyMs: 0, log: (line) => lines.push(line) });
    expect(lines).toEqual([
      `The saved state was not used: its format is 2, this playground reads format ${STATE_VERSION}. The playground starts from the sample sheet and a fresh sandbox; the old file is kept in ${join(dir, `${STATE_FILE}.old`)}.`,
    ]);
    expect(JSON.parse(readFileSync(join(dir, `${STATE_FILE}.old`), 'utf8'))).toEqual(old);
    const ss = pg.workbook.spreadsheetId;
    expect(pg.workbook.env.displayValues(ss, 'A1:A2')).toEqual([['Profile URL'], [SAMPLE_URLS[0]]]);
    expect(pg.service.view()).toMatchObject({ charged: 0, requests: 0 });
    await pg.close();
    expect(JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')).version).toBe(STATE_VERSION);
  });

  test('the sandbox panel takes "Credits left", "charged" and the requests from one moment: a credit taken is charged at once, its request counted', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    // A latency no run of this test reaches: the request is under way until the test ends it.
    const pg = await start(dir, { credits: 50, latencyMs: 60_000 });
    const sandbox = pg.service.sandbox.service;
    const client = new AbortController();
    const lookup = fetch(`${pg.service.sandbox.baseUrl}network_finder`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-KEY': DEMO_KEY },
      body: JSON.stringify({ network_url: profile('ann-one-moment') }),
      signal: client.signal,
    }).catch(() => 'left');
    for (let round = 0; round < 200 && sandbox.chargesInFlight === 0; round++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const during = pg.service.view();
    // Under way, the request is counted with its credit (never more charged than requests); its ledger row comes
    // when it ends.
    expect([during.credits, during.charged, during.requests, during.inFlight, during.ledger.length]).toEqual([
      49, 1, 1, 1, 0,
    ]);
    // The client leaves: the service has done the lookup, so the credit stays charged, now in the ledger.
    client.abort();
    await expect(lookup).resolves.toBe('left');
    for (let round = 0; round < 200 && sandbox.ledger().length === 0; round++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const after = pg.service.view();
    expect([after.credits, after.charged, after.requests, after.inFlight, after.ledger.length]).toEqual([
      49, 1, 1, 0, 1,
    ]);
    expect(sandbox.chargesInFlight).toBe(0);
  });

  test('the menu has Refresh =FINDEMAIL cells: a formula that failed for want of a key resolves after it', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    const pg = await start(dir, { latencyMs: 0 });
    const wb = pg.workbook;
    const ss = wb.spreadsheetId;
    await wb.open();
    expect(wb.menu()?.items.map((item) => item.label)).toContain('Refresh =FINDEMAIL cells');
    wb.env.userProperties(DEMO_USER).set({ [API_KEY_PROPERTY]: '' });
    await wb.setCells([{ r: 2, c: 7, value: '=FINDEMAIL(A2)' }]);
    await wb.idle();
    expect(wb.env.values(ss, 'G2')).toEqual([['#ERROR!']]);
    expect(wb.env.cell(ss, 'G2')?.error).toContain('Refresh =FINDEMAIL cells');
    await wb.restoreDemoKey();
    await wb.setSelection({ r1: 2, c1: 7, r2: 2, c2: 7 });
    await wb.runMenu('refreshFormulas');
    await wb.env.formulasSettled();
    const jane = predictLookup(SAMPLE_URLS[0]);
    if (jane.kind !== 'found') throw new Error('jane-doe has an address');
    expect(wb.env.values(ss, 'G2')).toEqual([[jane.email]]);
    expect(wb.env.formulas(ss, 'G2')).toEqual([['=FINDEMAIL(A2)']]);
  });

  test('answers on 127.0.0.1 only, to its own Host, JSON only; only menu items run', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    const pg = await start(dir, { latencyMs: 0 });
    expect(pg.url).toBe(`http://127.0.0.1:${pg.port}/`);
    expect((await request(pg.port, { path: '/' })).status).toBe(200);
    expect((await request(pg.port, { path: '/', host: `evil.test:${pg.port}` })).status).toBe(403);
    const form = await request(pg.port, {
      path: '/api/cells',
      method: 'POST',
      type: 'application/x-www-form-urlencoded',
      body: 'edits=1',
    });
    expect(form.status).toBe(415);
    await pg.workbook.open();
    const menu = await request(pg.port, {
      path: '/api/menu',
      method: 'POST',
      type: 'application/json',
      body: JSON.stringify({ fn: 'saveApiKey' }),
    });
    expect(JSON.parse(menu.body)).toMatchObject({ ok: false });
    expect(pg.workbook.env.executions.some((e) => e.fn === 'saveApiKey')).toBe(false);

    // The sidebar is served from its own loopback port, with the same guard, and never holds the key.
    await pg.workbook.runMenu('showSettings');
    const sidebar = pg.workbook.sidebar();
    expect(sidebar.open).toBe(true);
    const url = new URL(sidebar.url);
    const page = await request(Number(url.port), { path: url.pathname });
    expect(page.status).toBe(200);
    expect(page.body).toContain('google.script.run');
    expect(page.body).not.toContain(DEMO_KEY);
    expect((await request(Number(url.port), { path: url.pathname, host: 'evil.test' })).status).toBe(403);
    const state = await request(Number(url.port), {
      path: '/run',
      method: 'POST',
      type: 'application/json',
      body: JSON.stringify({ fn: 'getSidebarState', args: [] }),
    });
    expect(JSON.parse(state.body).ok).toBe(true);
    expect(state.body).not.toContain(DEMO_KEY);
  });

  test('the command line: flags, errors', () => {
    expect(parseCli([])).toEqual({ port: 8080, reset: false, help: false });
    expect(
      parseCli(['--port', '0', '--latency=25', '--credits', '40', '--reset', '--state-dir', '/tmp/x']),
    ).toEqual({
      port: 0,
      latencyMs: 25,
      credits: 40,
      reset: true,
      help: false,
      stateDir: '/tmp/x',
    });
    expect(() => parseCli(['--port', '70000'])).toThrow(/--port/);
    expect(() => parseCli(['--credits', '-1'])).toThrow(/--credits/);
    expect(() => parseCli(['--latency'])).toThrow(/--latency/);
    expect(() => parseCli(['--colour'])).toThrow(/Unknown option/);
  });

  test('`tsx playground/server.ts` prints its address, serves, and stops cleanly on Ctrl-C, saving the state', async () => {
    const dir = tempStateDir();
    dirs.push(dir);
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const server = await serverProcess(
      tsx,
      ['playground/server.ts', '--port', '0', '--latency', '0', '--state-dir', dir],
      ROOT,
    );
    child = server.proc;
    const { port } = server;
    expect(port).toBeGreaterThan(0);
    const opened = await request(port, {
      path: '/api/open',
      method: 'POST',
      type: 'application/json',
      body: '{}',
    });
    expect(JSON.parse(opened.body).menu.items.length).toBeGreaterThan(0);

    const code = await server.stop('SIGINT');
    expect(code).toBe(0);
    expect(server.output()).toContain('SIGINT: saving the state and stopping.');
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8'));
    expect(saved.version).toBe(STATE_VERSION);
    await expect(request(port, { path: '/' })).rejects.toThrow();
  });

  test('`npm start` in the background stops and saves on SIGINT or SIGTERM to npm itself (the shell execs the server)', async () => {
    // npm forwards SIGINT and SIGTERM to its child only: without `exec`, a shell between them kept the server
    // running. The start script's server part runs here as npm runs it, without the build before it (dist/ is the
    // other tests' while they run).
    const start = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
    ).scripts.start;
    const serverPart = /&& (exec tsx playground\/server\.ts)$/.exec(start)?.[1];
    expect(serverPart).toBeDefined();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const dir = tempStateDir();
      dirs.push(dir);
      const project = tempStateDir();
      dirs.push(project);
      const script = (serverPart ?? '')
        .replace('tsx', JSON.stringify(join(ROOT, 'node_modules', '.bin', 'tsx')))
        .replace('playground/server.ts', JSON.stringify(join(ROOT, 'playground', 'server.ts')));
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'start-signal', private: true, scripts: { start: script } }),
      );
      const server = await serverProcess(
        'npm',
        ['start', '--', '--port', '0', '--latency', '0', '--state-dir', dir],
        project,
      );
      child = server.proc;
      const { port } = server;
      expect(port).toBeGreaterThan(0);
      expect(await server.stop(signal)).not.toBe('still running');
      expect(server.output()).toContain(`${signal}: saving the state and stopping.`);
      expect(JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')).version).toBe(STATE_VERSION);
      await expect(request(port, { path: '/' })).rejects.toThrow();
    }
  });
});
