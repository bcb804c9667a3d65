/**
 * Helpers for tests of the service client through dist/Code.js: =FINDEMAIL with every field, the sandbox's
 * ledger per URL, and a stub HTTP server on 127.0.0.1 for answers the spec-faithful sandbox never gives
 * (a 400 to a lookup, a 418, a redirect, an HTML 200, a 401 that echoes the key).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionResult } from '../../emulator';
import type { LedgerEntry } from '../../sandbox/service';
import type { World } from '../support/harness';

export const ALL_FIELDS = 'email,status,catch_all,account_type,name,updated_at,note';

/** Runs =FINDEMAIL(value, ALL_FIELDS) as a custom-function execution of the open spreadsheet. */
export function findEmail(world: World, value: unknown, user?: string): Promise<ExecutionResult> {
  return world.env.execute('FINDEMAIL', [value, ALL_FIELDS], world.as(user, { authMode: 'CUSTOM_FUNCTION' }));
}

/** The single row of a successful =FINDEMAIL(url, ALL_FIELDS). */
export async function findEmailRow(world: World, value: unknown): Promise<unknown[]> {
  const result = await findEmail(world, value);
  if (!result.ok) throw new Error(`FINDEMAIL failed: ${result.error?.message}`);
  const rows = result.value as unknown[][];
  expect(rows).toHaveLength(1);
  return rows[0];
}

/** Ledger entries of lookups whose network_url contains `part`. */
export function requestsFor(world: World, part: string): LedgerEntry[] {
  return world.sandbox.service.ledger().filter((entry) => entry.networkUrl?.includes(part));
}

export interface StubRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Stub {
  baseUrl: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export type StubAnswer = { status: number; body: string; headers?: Record<string, string> };

/** An HTTP server on 127.0.0.1 answering every request with `answer(request)`. */
export async function startStub(answer: (request: StubRequest) => StubAnswer): Promise<Stub> {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: StubRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const reply = answer(request);
      res.writeHead(reply.status, {
        'Content-Type': 'application/json; charset=utf-8',
        Connection: 'close',
        ...reply.headers,
      });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Everything a test can see of a key: cells, logs, error messages, HTML outputs. */
export function visibleText(world: World, results: ExecutionResult[]): string {
  return JSON.stringify([
    results.map((r) => [r.value, r.error?.message]),
    world.env.logs,
    world.env.htmlOutputs,
    world.env.ui,
  ]);
}
