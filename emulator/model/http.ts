/** UrlFetchApp over real HTTP (node:http/https), with Apps Script's errors. */
import http from 'node:http';
import https from 'node:https';
import { AppsScriptException } from '../errors';

export interface FetchRequest {
  url: string;
  method?: string;
  headers?: Record<string, unknown>;
  contentType?: string;
  payload?: unknown;
  muteHttpExceptions?: boolean;
  followRedirects?: boolean;
  validateHttpsCertificates?: boolean;
}

export interface FetchResponse {
  status: number;
  /** One value per header (the first), names as the server sent them. */
  headers: Record<string, string>;
  /** Repeated headers as arrays. */
  allHeaders: Record<string, string | string[]>;
  body: Buffer;
}

const USER_AGENT =
  'Mozilla/5.0 (compatible; Google-Apps-Script; beanserver; +https://script.google.com; id: emulator)';
const MAX_REDIRECTS = 10;
// Apps Script shows only this much of the body in the error of a failed request (observed text:
// "Request failed for https://api.line.me returned code 400. Truncated server response: {...}
// (use muteHttpExceptions option to examine full response)").
const TRUNCATED_CHARS = 100;

function body(payload: unknown): Buffer | undefined {
  if (payload === undefined || payload === null) return undefined;
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Array.isArray(payload) && payload.every((b) => typeof b === 'number')) {
    return Buffer.from(payload.map((b) => b & 0xff));
  }
  if (typeof payload === 'object') {
    const form = Object.entries(payload as Record<string, unknown>)
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
      .join('&');
    return Buffer.from(form, 'utf8');
  }
  return Buffer.from(String(payload), 'utf8');
}

/** The message of a transport failure (observed Apps Script texts: "Address unavailable: <url>", "DNS error: <url>"). */
function transportMessage(error: NodeJS.ErrnoException, url: string): string {
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return `DNS error: ${url}`;
  return `Address unavailable: ${url}`;
}

export function httpFailure(url: string, status: number, text: string): string {
  const origin = new URL(url).origin;
  const shown = text.length > TRUNCATED_CHARS ? `${text.slice(0, TRUNCATED_CHARS)}...` : text;
  return `Request failed for ${origin} returned code ${status}. Truncated server response: ${shown} (use muteHttpExceptions option to examine full response)`;
}

export function validUrl(url: unknown): URL {
  try {
    const parsed = new URL(String(url));
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed;
  } catch {
    // falls through
  }
  throw new AppsScriptException(`Invalid argument: ${String(url)}`);
}

function once(
  request: FetchRequest,
  url: URL,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<FetchResponse & { location?: string }> {
  const method = (request.method ?? 'get').toUpperCase();
  const data = body(request.payload);
  const headers: Record<string, string> = { 'User-Agent': USER_AGENT, 'Accept-Encoding': 'identity' };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name] = String(value);
  if (data !== undefined) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
    headers['Content-Type'] = request.contentType ?? 'application/x-www-form-urlencoded';
    headers['Content-Length'] = String(data.length);
  }
  const client = url.protocol === 'https:' ? https : http;
  const text = url.toString();
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new AppsScriptException(message));
    };
    // A fresh connection per request (agent: false): no stale keep-alive socket stands in for a server fault.
    const req = client.request(
      url,
      {
        method,
        headers,
        agent: false,
        signal,
        rejectUnauthorized: request.validateHttpsCertificates !== false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => fail(transportMessage(error, text)));
        res.on('aborted', () => fail(`Address unavailable: ${text}`));
        res.on('end', () => {
          if (settled) return;
          if (!res.complete) return fail(`Address unavailable: ${text}`);
          settled = true;
          clearTimeout(timer);
          const headersOut: Record<string, string> = {};
          const all: Record<string, string | string[]> = {};
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i];
            const value = res.rawHeaders[i + 1];
            if (!(name in headersOut)) headersOut[name] = value;
            const prior = all[name];
            all[name] =
              prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: headersOut,
            allHeaders: all,
            body: Buffer.concat(chunks),
            location: res.headers.location,
          });
        });
      },
    );
    const timer = setTimeout(() => fail(`Timeout: ${text}`), timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.name === 'AbortError') return fail(`Address unavailable: ${text}`);
      fail(transportMessage(error, text));
    });
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** One request, following redirects unless told not to; throws Apps Script's transport errors. */
export async function performFetch(
  request: FetchRequest,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<FetchResponse> {
  let url = validUrl(request.url);
  let current = request;
  for (let hop = 0; ; hop++) {
    const response = await once(current, url, options.timeoutMs, options.signal);
    const redirect = response.status >= 300 && response.status < 400 && response.location;
    if (!redirect || request.followRedirects === false || hop >= MAX_REDIRECTS) {
      const { location: _location, ...rest } = response;
      return rest;
    }
    url = new URL(response.location!, url);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && current.method)) {
      current = { ...current, method: 'get', payload: undefined };
    }
  }
}
