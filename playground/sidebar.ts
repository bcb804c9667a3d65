/**
 * The add-on's sidebar and dialogs as Sheets shows them: the HTML the bundle produced, served from its own loopback
 * port (another origin than the sheet, like Apps Script's iframe), with the emulator's google.script.run shim
 * (emulator/html/shim.ts, also used by the browser tests) whose calls run in the emulator as the signed-in user.
 *
 *   GET  /sidebar/<serial>   the sidebar the bundle showed with that serial
 *   POST /run {fn, args}     -> {ok: true, value} | {ok: false, error}
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { injectShim } from '../emulator';
import { errorMessage, HttpError, loopbackHost, readJson, send, sendJson } from './http';

export interface SidebarHost {
  origin: string;
  url(serial: number): string;
  /** Calls from sidebars under way. */
  readonly active: number;
  close(): Promise<void>;
}

/**
 * The playground's own script in the sidebar's frame (not the add-on's): it reads the run's state and fraction the
 * sidebar shows (#run-state, #run-fraction) each time they change and posts them to the page, whose status line
 * then says what the sidebar says (playground/protocol.ts SidebarRunReport), never an older or newer figure.
 */
const RUN_REPORTER = `<script>
(function () {
  // The page names its origin in the frame's address (?page=…): the report goes there only, and only on 127.0.0.1.
  var page = new URLSearchParams(location.search).get('page') || '';
  if (window.parent === window || page.indexOf('http://127.0.0.1:') !== 0) return;
  var last = null;
  function text(id) { var node = document.getElementById(id); return node ? node.textContent || '' : ''; }
  function report() {
    var label = text('run-state');
    var fraction = text('run-fraction');
    if (last && last.label === label && last.fraction === fraction) return;
    last = { label: label, fraction: fraction };
    window.parent.postMessage({ source: 'pef-sidebar-run', label: label, fraction: fraction }, page);
  }
  document.addEventListener('DOMContentLoaded', function () {
    report();
    new MutationObserver(report).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
})();
</script>`;

/** The page as the host serves it: the shim first in <head>, the run reporter at the end of <body>. */
function served(html: string): string {
  const withShim = injectShim(html);
  const end = withShim.toLowerCase().lastIndexOf('</body>');
  return end < 0 ? withShim + RUN_REPORTER : withShim.slice(0, end) + RUN_REPORTER + withShim.slice(end);
}

// Apps Script serves the sidebar in a sandboxed iframe; here: no other origin may frame it or be reached from it.
const SIDEBAR_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  'frame-ancestors http://127.0.0.1:* http://localhost:*',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export async function startSidebarHost(options: {
  /** The HTML of a sidebar the bundle showed, by serial. */
  html(serial: number): string | undefined;
  /** Runs a server function of the bundle as the sidebar's user. */
  run(fn: string, args: unknown[]): Promise<unknown>;
  /** After each call: the page's state may have changed. */
  called?(): void;
}): Promise<SidebarHost> {
  let port = 0;
  let active = 0;

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!loopbackHost(req, port)) throw new HttpError(403, 'The sidebar answers on 127.0.0.1 only.');
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const page = /^\/sidebar\/(\d+)$/.exec(path);
    if (req.method === 'GET' && page) {
      const html = options.html(Number(page[1]));
      if (html === undefined) throw new HttpError(404, 'This sidebar was closed.');
      return send(res, 200, 'text/html; charset=utf-8', served(html), {
        'Content-Security-Policy': SIDEBAR_CSP,
      });
    }
    if (req.method === 'GET' && path === '/favicon.ico') return send(res, 204, 'text/plain', '');
    if (req.method === 'POST' && path === '/run') {
      const body = (await readJson(req)) as { fn?: unknown; args?: unknown };
      if (typeof body.fn !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(body.fn)) {
        throw new HttpError(400, 'fn: a function name');
      }
      const args = Array.isArray(body.args) ? body.args : [];
      active++;
      try {
        const value = await options.run(body.fn, args);
        return sendJson(res, 200, { ok: true, value });
      } catch (error) {
        return sendJson(res, 200, { ok: false, error: errorMessage(error) });
      } finally {
        active--;
        options.called?.();
      }
    }
    throw new HttpError(404, 'Not found.');
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (!res.headersSent) send(res, status, 'text/plain; charset=utf-8', errorMessage(error));
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
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    origin,
    url: (serial) => `${origin}/sidebar/${serial}`,
    get active() {
      return active;
    },
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
