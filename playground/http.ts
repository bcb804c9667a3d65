/** Small HTTP helpers of the playground's server: bodies, answers, the loopback-only guard. */
import type http from 'node:http';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function readJson(req: http.IncomingMessage): Promise<unknown> {
  // JSON only: a cross-site form cannot post here.
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return Promise.reject(new HttpError(415, 'Send JSON.'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'Payload too large.'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? {} : JSON.parse(text));
      } catch {
        reject(new HttpError(400, 'The body is not JSON.'));
      }
    });
    req.on('error', reject);
  });
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export function send(
  res: http.ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  extra = {},
) {
  res.writeHead(status, { 'Content-Type': contentType, ...SECURITY_HEADERS, ...extra });
  res.end(body);
}

export function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', value === undefined ? '' : JSON.stringify(value));
}

/** Only pages of this server may talk to it: the Host must be the loopback address (no DNS rebinding). */
export function loopbackHost(req: http.IncomingMessage, port: number): boolean {
  const host = (req.headers.host ?? '').toLowerCase();
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}
