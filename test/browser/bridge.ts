/**
 * The browser bridge: serves the sidebar HTML exactly as the bundle produced it in the Apps Script emulator, with one
 * injected shim script that gives the page a `google.script.run` whose calls come back here over HTTP and run in
 * the emulator as `env.runFromPage(fn, args, { user, spreadsheetId })`.
 *
 *   const bridge = await startBridge({ env, user, spreadsheetId });
 *   await page.goto(bridge.url('settings'));
 *   ...
 *   expect(bridge.responses.some((r) => r.body.includes(fullKey))).toBe(false);
 *   await bridge.close();
 *
 * Routes (127.0.0.1 only):
 *   GET  /sidebar?view=settings  runs the bundle's showSettings() and serves the sidebar it showed;
 *   GET  /sidebar?view=progress  serves the last sidebar the bundle showed on its progress view (enrichSelection());
 *   GET  /sidebar                serves the last sidebar the bundle showed, whatever its view;
 *   POST /run {fn, args}         -> {ok: true, value} | {ok: false, error: message}.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { injectShim } from '../../emulator';
import { errorMessage } from '../../playground/http';

export type SidebarView = 'settings' | 'progress' | 'plan' | 'retry';

/** The part of the emulator's environment the bridge uses (see emulator/host/environment.ts). */
export interface BridgeEnvironment {
  /** A menu item's call (showSettings opens the settings view). */
  run(fn: string, args: unknown[], options: { user: string; spreadsheetId: string }): unknown;
  /** A page's google.script.run call. */
  runFromPage(fn: string, args: unknown[], options: { user: string; spreadsheetId: string }): unknown;
  ui: unknown;
}

/** A server function served by the bridge itself instead of the bundle (tests inject failures with these). */
export type ServerOverride = (...args: unknown[]) => unknown;

export interface BridgeOptions {
  env: BridgeEnvironment;
  /** The user the sidebar belongs to: every call runs as this user. */
  user: string;
  /** The spreadsheet the sidebar is open in. */
  spreadsheetId: string;
  /** Answers these function names instead of the bundle; a throw is a failure as in Apps Script. */
  overrides?: Record<string, ServerOverride>;
  /** Default 0: any free port on 127.0.0.1. */
  port?: number;
}

export interface BridgeResponse {
  method: string;
  path: string;
  /** For POST /run: the server function called. */
  fn?: string;
  status: number;
  /** The body exactly as sent. */
  body: string;
}

export interface BridgeCall {
  fn: string;
  args: unknown[];
  ok: boolean;
  value?: unknown;
  error?: string;
}

export interface Bridge {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The sidebar's address: its settings or progress view, or (no view) the last sidebar the bundle showed. */
  url(view?: SidebarView): string;
  /** Every response body the bridge sent (pages and call answers), in order. */
  readonly responses: BridgeResponse[];
  /** Every server call made through the bridge, in order. */
  readonly calls: BridgeCall[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** The sidebar HTML outputs the emulator recorded, oldest first. */
export function recordedSidebars(ui: unknown): string[] {
  const record = ui as { sidebars?: unknown[] } | undefined;
  const list = Array.isArray(record?.sidebars) ? record.sidebars : [];
  return list.map((entry) => {
    if (typeof entry === 'string') return entry;
    const item = entry as { html?: unknown; content?: unknown };
    return String(item.html ?? item.content ?? '');
  });
}

export function viewOf(html: string): string | undefined {
  return /<body[^>]*\bdata-view="([^"]*)"/i.exec(html)?.[1];
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('Payload too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const { env, user, spreadsheetId, overrides = {} } = options;
  const responses: BridgeResponse[] = [];
  const calls: BridgeCall[] = [];

  const send = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    contentType: string,
    body: string,
    fn?: string,
  ) => {
    responses.push({ method: req.method ?? '', path: req.url ?? '', fn, status, body });
    res.writeHead(status, {
      'Content-Type': contentType,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(body);
  };

  async function runServer(fn: string, args: unknown[]): Promise<unknown> {
    const override = Object.hasOwn(overrides, fn) ? overrides[fn] : undefined;
    if (override) return await override(...args);
    return await env.runFromPage(fn, args, { user, spreadsheetId });
  }

  async function sidebarHtml(view: string | null): Promise<string | undefined> {
    if (view === 'settings') await env.run('showSettings', [], { user, spreadsheetId });
    const sidebars = recordedSidebars(env.ui);
    for (let index = sidebars.length - 1; index >= 0; index--) {
      if (view === null || viewOf(sidebars[index]) === view) return sidebars[index];
    }
    return undefined;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sidebar') {
      const view = url.searchParams.get('view');
      const html = await sidebarHtml(view);
      if (html === undefined) {
        const hint =
          view === 'progress'
            ? 'Start a run (enrichSelection) first: it opens the progress view.'
            : 'Open it first.';
        return send(
          req,
          res,
          404,
          'text/plain; charset=utf-8',
          `No ${view ?? ''} sidebar has been shown yet. ${hint}`,
        );
      }
      return send(req, res, 200, 'text/html; charset=utf-8', injectShim(html));
    }
    if (req.method === 'POST' && url.pathname === '/run') {
      // JSON only: a cross-site form cannot post here.
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        return send(req, res, 415, 'application/json', JSON.stringify({ ok: false, error: 'Send JSON.' }));
      }
      let fn = '';
      let args: unknown[] = [];
      try {
        const request = JSON.parse(await readBody(req)) as { fn?: unknown; args?: unknown };
        if (typeof request.fn !== 'string' || request.fn === '') throw new Error('No function name.');
        fn = request.fn;
        args = Array.isArray(request.args) ? request.args : [];
      } catch (error) {
        return send(
          req,
          res,
          400,
          'application/json',
          JSON.stringify({ ok: false, error: errorMessage(error) }),
        );
      }
      let answer: { ok: true; value?: unknown } | { ok: false; error: string };
      try {
        const value = await runServer(fn, args);
        answer = { ok: true, value };
        calls.push({ fn, args, ok: true, value });
      } catch (error) {
        answer = { ok: false, error: errorMessage(error) };
        calls.push({ fn, args, ok: false, error: answer.error });
      }
      return send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify(answer), fn);
    }
    if (url.pathname === '/favicon.ico') return send(req, res, 204, 'text/plain', '');
    return send(req, res, 404, 'text/plain; charset=utf-8', 'Not found');
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) send(req, res, 500, 'text/plain; charset=utf-8', errorMessage(error));
      else res.destroy();
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;

  return {
    origin,
    url: (view?: SidebarView) => (view ? `${origin}/sidebar?view=${view}` : `${origin}/sidebar`),
    responses,
    calls,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
