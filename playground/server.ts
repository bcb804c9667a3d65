/**
 * The local playground: `npm start` serves a small spreadsheet on http://127.0.0.1:8080 that runs the built add-on
 * (dist/) in the Apps Script emulator, against the sandbox e-mail service started in the same process.
 *
 *   npm start -- [--port 8080] [--latency MS] [--credits N] [--reset] [--state-dir DIR]
 *
 * Tests start it in-process: `const playground = await startPlayground({ port: 0, stateDir })`.
 */
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { errorMessage, HttpError, loopbackHost, readJson, send, sendJson } from './http';
import {
  type CellEdit,
  countOf,
  type KeyAnswer,
  type MenuAnswer,
  type QuestionAnswer,
  type RangeView,
  type SandboxChange,
  type SandboxView,
  type StateView,
} from './protocol';
import { DEFAULT_CREDITS, DEFAULT_LATENCY_MS, DEMO_KEY, type DemoService, startDemoService } from './service';
import { clearState, loadState, type SavedState, STATE_VERSION, writeState } from './state';
import { openWorkbook, type Workbook } from './workbook';

// CommonJS (tsx and the tests' esbuild transform both compile this package to it): no import.meta.
const here = __dirname;
export const ROOT = join(here, '..');
export const DEFAULT_PORT = 8080;
export const DEFAULT_STATE_DIR = join(ROOT, '.playground-state');
const SAVE_EVERY_MS = 2000;

export interface PlaygroundOptions {
  /** Default 8080; 0 picks a free port. Always on 127.0.0.1. */
  port?: number;
  /** The sandbox's latency per request; default: the saved one, else 300 ms. */
  latencyMs?: number;
  /** Credits of the demo organization in a fresh state (default 500). */
  credits?: number;
  /** Forget the saved state and start from the sample sheet. */
  reset?: boolean;
  /** Where the state is saved (default .playground-state/ at the repository's root). */
  stateDir?: string;
  /** The built bundle (default dist/). */
  distDir?: string;
  /** Script properties set at every start, e.g. ENRICH_BATCH_SIZE for short test runs. */
  scriptProperties?: Record<string, string>;
  log?: (line: string) => void;
}

export interface Playground {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  port: number;
  workbook: Workbook;
  service: DemoService;
  /** Writes the state to disk now. */
  save(): Promise<void>;
  /** Saves, then stops the server, the sidebar bridge, the emulator and the sandbox. */
  close(): Promise<void>;
}

interface Assets {
  html: string;
  css: string;
  js: string;
}

async function loadAssets(): Promise<Assets> {
  const bundle = await build({
    entryPoints: [join(here, 'client/main.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    minify: false,
    legalComments: 'none',
  });
  return {
    html: readFileSync(join(here, 'static/index.html'), 'utf8'),
    css: readFileSync(join(here, 'static/app.css'), 'utf8'),
    js: bundle.outputFiles[0].text,
  };
}

const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  // The sidebar comes from the bridge, on its own loopback port.
  'frame-src http://127.0.0.1:*',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const DIALOG_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

function asRange(value: unknown): RangeView {
  const v = (value ?? {}) as Record<string, unknown>;
  const n = (key: string) => {
    const x = v[key];
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 1)
      throw new HttpError(400, `${key}: a positive integer`);
    return x;
  };
  return { r1: n('r1'), c1: n('c1'), r2: n('r2'), c2: n('c2') };
}

function asEdits(value: unknown): CellEdit[] {
  const edits = (value as { edits?: unknown } | null)?.edits;
  if (!Array.isArray(edits)) throw new HttpError(400, 'edits: a list');
  return edits.map((edit) => {
    const e = (edit ?? {}) as Record<string, unknown>;
    if (!Number.isInteger(e.r) || !Number.isInteger(e.c) || (e.r as number) < 1 || (e.c as number) < 1) {
      throw new HttpError(400, 'Each edit needs r and c (1-based).');
    }
    if (typeof e.value !== 'string') throw new HttpError(400, 'Each edit needs a text value.');
    return { r: e.r as number, c: e.c as number, value: e.value };
  });
}

function asAnswer(value: unknown): QuestionAnswer {
  const v = (value ?? {}) as Record<string, unknown>;
  if (!Number.isInteger(v.serial)) throw new HttpError(400, 'serial: the question answered');
  if (typeof v.button !== 'string') throw new HttpError(400, 'button: the button pressed');
  if (v.text !== undefined && typeof v.text !== 'string') throw new HttpError(400, 'text: a prompt answer');
  return { serial: v.serial as number, button: v.button, text: v.text as string | undefined };
}

function asSandboxChange(value: unknown): SandboxChange {
  const v = (value ?? {}) as Record<string, unknown>;
  const change: SandboxChange = {};
  for (const key of [
    'credits',
    'addCredits',
    'latencyMs',
    'latencyP99Ms',
    'maxInFlight',
    'maxPerSecond',
    'error500Rate',
    'resetRate',
  ] as const) {
    if (v[key] === undefined) continue;
    if (typeof v[key] !== 'number' || !Number.isFinite(v[key])) throw new HttpError(400, `${key}: a number`);
    change[key] = v[key] as number;
  }
  return change;
}

export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  const log = options.log ?? (() => {});
  const stateDir = options.stateDir ?? DEFAULT_STATE_DIR;
  const distDir = options.distDir ?? join(ROOT, 'dist');
  if (!existsSync(join(distDir, 'Code.js'))) {
    throw new Error(`No built add-on in ${distDir}: run \`npm run build\` first (npm start does).`);
  }
  if (options.reset) clearState(stateDir);
  const saved: SavedState | undefined = options.reset ? undefined : loadState(stateDir, log);

  const assets = await loadAssets();
  const service = await startDemoService({
    credits: options.credits,
    latencyMs: options.latencyMs ?? (saved ? undefined : DEFAULT_LATENCY_MS),
    saved: saved?.service,
  });
  let workbook: Workbook;
  try {
    workbook = await openWorkbook({
      distDir,
      baseUrl: service.sandbox.baseUrl,
      saved: saved?.workbook,
      scriptProperties: options.scriptProperties ?? {},
      log,
    });
  } catch (error) {
    await service.close();
    if (!saved) throw error;
    throw new Error(
      `The saved state in ${stateDir} could not be restored (${errorMessage(error)}): start with --reset to begin from the sample sheet.`,
    );
  }

  let lastSaved = '';
  let saving: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    saving = saving.then(async () => {
      const state: SavedState = {
        version: STATE_VERSION,
        workbook: await workbook.save(),
        service: service.save(),
      };
      const text = JSON.stringify(state);
      if (text === lastSaved) return;
      writeState(stateDir, text);
      lastSaved = text;
    });
    saving = saving.catch((error: unknown) =>
      log(`Could not save the playground's state: ${errorMessage(error)}`),
    );
    return saving;
  };
  const saveTimer = setInterval(() => void save(), SAVE_EVERY_MS);
  saveTimer.unref();

  let port = 0;

  function state(clientVersion: string): StateView {
    const sheet = workbook.sheetView();
    const view: StateView = {
      version: sheet.version,
      selection: workbook.selection(),
      menu: workbook.menu(),
      sidebar: workbook.sidebar(),
      dialog: workbook.dialog(),
      question: workbook.question(),
      toasts: workbook.toasts(),
      busy: workbook.busy(),
      sidebarCalls: workbook.sidebarCalls(),
      run: workbook.run(),
      user: workbook.user,
      owner: workbook.owner,
      sandbox: service.view(),
    };
    if (clientVersion !== sheet.version) view.sheet = sheet.sheet;
    return view;
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!loopbackHost(req, port)) throw new HttpError(403, 'The playground answers on 127.0.0.1 only.');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (req.method === 'GET') {
      if (path === '/' || path === '/index.html') {
        return send(res, 200, 'text/html; charset=utf-8', assets.html, {
          'Content-Security-Policy': PAGE_CSP,
        });
      }
      if (path === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', assets.js);
      if (path === '/app.css') return send(res, 200, 'text/css; charset=utf-8', assets.css);
      if (path === '/favicon.ico') return send(res, 204, 'text/plain', '');
      if (path === '/api/state') return sendJson(res, 200, state(url.searchParams.get('v') ?? ''));
      const dialog = /^\/dialog\/(\d+)$/.exec(path);
      if (dialog) {
        const html = workbook.dialogHtml(Number(dialog[1]));
        if (html === undefined) throw new HttpError(404, 'No such dialog.');
        return send(res, 200, 'text/html; charset=utf-8', html, { 'Content-Security-Policy': DIALOG_CSP });
      }
      throw new HttpError(404, 'Not found.');
    }
    if (req.method !== 'POST') throw new HttpError(405, 'GET or POST.');
    const body = await readJson(req);
    switch (path) {
      case '/api/open':
        await workbook.open();
        return sendJson(res, 200, state(''));
      case '/api/cells':
        await workbook.setCells(asEdits(body));
        return sendJson(res, 200, { ok: true });
      case '/api/select':
        await workbook.setSelection(asRange(body));
        return sendJson(res, 200, { ok: true });
      case '/api/menu': {
        const fn = (body as { fn?: unknown }).fn;
        if (typeof fn !== 'string' || fn === '') throw new HttpError(400, 'fn: a function name');
        let answer: MenuAnswer;
        try {
          await workbook.runMenu(fn);
          answer = { ok: true };
        } catch (error) {
          answer = { ok: false, error: errorMessage(error) };
        }
        void save();
        return sendJson(res, 200, answer);
      }
      case '/api/sheet': {
        const id = (body as { id?: unknown }).id;
        if (!Number.isInteger(id)) throw new HttpError(400, 'id: a sheet id');
        workbook.showSheet(id as number);
        return sendJson(res, 200, state(''));
      }
      case '/api/sidebar/close':
        workbook.closeSidebar();
        return sendJson(res, 200, { ok: true });
      case '/api/answer':
        workbook.answer(asAnswer(body));
        return sendJson(res, 200, { ok: true });
      case '/api/dialog/close':
        workbook.closeDialog();
        return sendJson(res, 200, { ok: true });
      case '/api/sandbox': {
        let view: SandboxView;
        try {
          view = service.change(asSandboxChange(body));
        } catch (error) {
          if (error instanceof RangeError) throw new HttpError(400, error.message);
          throw error;
        }
        void save();
        return sendJson(res, 200, view);
      }
      case '/api/sandbox/key': {
        const action = (body as { action?: unknown }).action;
        if (action === 'show') return sendJson(res, 200, { key: DEMO_KEY } satisfies KeyAnswer);
        if (action !== 'restore') throw new HttpError(400, 'action: show or restore');
        try {
          await workbook.restoreDemoKey();
        } catch (error) {
          throw new HttpError(500, `The demo key could not be saved: ${errorMessage(error)}`);
        }
        void save();
        return sendJson(res, 200, { restored: true } satisfies KeyAnswer);
      }
      case '/api/sort': {
        const { column, ascending } = (body ?? {}) as { column?: unknown; ascending?: unknown };
        if (!Number.isInteger(column) || typeof ascending !== 'boolean') {
          throw new HttpError(400, 'column: a column number; ascending: true or false');
        }
        workbook.sortRange(asRange((body as { range?: unknown }).range), column as number, ascending);
        return sendJson(res, 200, { ok: true });
      }
      case '/api/form': {
        await workbook.submitFormResponse();
        return sendJson(res, 200, { ok: true });
      }
      case '/api/append': {
        const count = (body as { count?: unknown } | null)?.count ?? 5;
        if (typeof count !== 'number') throw new HttpError(400, 'count: a number');
        return sendJson(res, 200, { rows: workbook.appendAsAutomation(count) });
      }
      case '/api/rows': {
        const { op, at, count } = (body ?? {}) as { op?: unknown; at?: unknown; count?: unknown };
        if (typeof at !== 'number' || typeof count !== 'number')
          throw new HttpError(400, 'at, count: numbers');
        if (op === 'insert') workbook.insertRows(at, count);
        else if (op === 'delete') workbook.deleteRows(at, count);
        else throw new HttpError(400, 'op: insert or delete');
        return sendJson(res, 200, { ok: true });
      }
      default:
        throw new HttpError(404, 'Not found.');
    }
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) log(`${req.method} ${req.url}: ${errorMessage(error)}`);
      if (!res.headersSent) send(res, status, 'text/plain; charset=utf-8', errorMessage(error));
      else res.destroy();
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_PORT, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    clearInterval(saveTimer);
    await workbook.close();
    await service.close();
    throw error;
  }
  port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    workbook,
    service,
    save,
    close() {
      closing ??= (async () => {
        clearInterval(saveTimer);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const socket of sockets) socket.destroy();
          server.closeAllConnections();
        });
        // The executions under way end first (their writes are part of the state), then the state is saved.
        await workbook.close();
        await save();
        await service.close();
      })();
      return closing;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The command line

export interface CliOptions {
  port: number;
  latencyMs?: number;
  credits?: number;
  reset: boolean;
  help: boolean;
  stateDir?: string;
}

export const USAGE = `Usage: npm start -- [--port 8080] [--latency MS] [--credits N] [--reset] [--state-dir DIR]
  --port     the port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  --latency  the sandbox service's delay per request in ms (default ${DEFAULT_LATENCY_MS}, or the saved one)
  --credits  sets the demo organization's credits, at every start (default: the saved ones; ${DEFAULT_CREDITS} at first)
  --reset    forget the saved state and start from the sample sheet
  --state-dir where the state is saved (default .playground-state/ at the repository's root)`;

export function parseCli(argv: string[]): CliOptions {
  const options: CliOptions = { port: DEFAULT_PORT, reset: false, help: false };
  const number = (name: string, raw: string | undefined, max: number): number => {
    const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw new Error(`${name} needs a whole number from 0 to ${max}, got ${raw ?? 'nothing'}`);
    }
    return value;
  };
  for (let index = 0; index < argv.length; index++) {
    const [flag, inline] = argv[index].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++index]);
    switch (flag) {
      case '--port':
        options.port = number(flag, value(), 65535);
        break;
      case '--latency':
        options.latencyMs = number(flag, value(), 60_000);
        break;
      case '--credits':
        options.credits = number(flag, value(), 1_000_000_000);
        break;
      case '--reset':
        options.reset = true;
        break;
      case '--state-dir': {
        const dir = value();
        if (!dir) throw new Error('--state-dir needs a folder');
        options.stateDir = dir;
        break;
      }
      case '--help':
      case '-h':
        options.help = true;
        break;
      default:
        throw new Error(`Unknown option ${argv[index]}`);
    }
  }
  return options;
}

async function main(): Promise<void> {
  let cli: CliOptions;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (error) {
    console.error(errorMessage(error));
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  if (cli.help) {
    console.log(USAGE);
    return;
  }
  const playground = await startPlayground({
    port: cli.port,
    latencyMs: cli.latencyMs,
    credits: cli.credits,
    reset: cli.reset,
    stateDir: cli.stateDir,
    log: (line) => console.log(line),
  });
  const view = playground.service.view();
  console.log('Profile Email Finder playground: the built add-on (dist/) in the Apps Script emulator,');
  console.log(`against the sandbox e-mail service on ${playground.service.sandbox.baseUrl}`);
  console.log(
    `Demo organization "${view.organization}": ${countOf(view.credits, 'credit')}, ${view.latencyMs} ms per request.`,
  );
  console.log(`State: ${cli.stateDir ?? DEFAULT_STATE_DIR}${cli.reset ? ' (reset)' : ''}`);
  console.log(`\n  Open ${playground.url}\n`);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log(`\n${signal}: saving the state and stopping.`);
    playground.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(errorMessage(error));
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(errorMessage(error));
    process.exit(1);
  });
}
