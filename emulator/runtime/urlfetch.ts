/** UrlFetchApp and HTTPResponse (requests sent by services/urlfetch.ts over real HTTP). */
import { Blob } from './blob';
import { call, count, host, importValue } from './core';

/** A response as the host sends it. */
interface ResponseData {
  status: number;
  headers: Record<string, string>;
  allHeaders: Record<string, string | string[]>;
  body: Uint8Array;
}

/** A request as the host takes it: plain data, the payload as text, bytes or a form. */
interface PlainRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  contentType?: string;
  payload?: string | unknown[] | Record<string, string>;
  muteHttpExceptions?: boolean;
  followRedirects?: boolean;
  validateHttpsCertificates?: boolean;
  escaping?: boolean;
}

type Params = Record<string, unknown> & { headers?: Record<string, unknown> };

const FLAGS = ['muteHttpExceptions', 'followRedirects', 'validateHttpsCertificates', 'escaping'] as const;

class HTTPResponse {
  constructor(private readonly _r: ResponseData) {}
  getResponseCode(): number {
    count('HTTPResponse.getResponseCode');
    return this._r.status;
  }
  getContentText(charset?: string): string {
    count('HTTPResponse.getContentText');
    return host.text(this._r.body, charset);
  }
  getContent(): number[] {
    count('HTTPResponse.getContent');
    return importValue(host.bytes(this._r.body)) as number[];
  }
  getHeaders(): Record<string, string> {
    count('HTTPResponse.getHeaders');
    return { ...this._r.headers };
  }
  getAllHeaders(): Record<string, string | string[]> {
    count('HTTPResponse.getAllHeaders');
    return importValue(this._r.allHeaders) as Record<string, string | string[]>;
  }
  getBlob(): Blob {
    count('HTTPResponse.getBlob');
    const type = Object.keys(this._r.headers).find((h) => h.toLowerCase() === 'content-type');
    const bytes = importValue(host.bytes(this._r.body)) as number[];
    return new Blob(bytes, type ? this._r.headers[type] : null, null);
  }
  getAs(): Blob {
    return this.getBlob();
  }
}

function plainRequest(url: unknown, params: Params | null | undefined): PlainRequest {
  const p: Params = params || {};
  const request: PlainRequest = { url: String(url) };
  if (p.method !== undefined) request.method = String(p.method);
  if (p.headers) {
    const headers: Record<string, string> = {};
    for (const key of Object.keys(p.headers)) headers[key] = String(p.headers[key]);
    request.headers = headers;
  }
  if (p.contentType !== undefined) request.contentType = String(p.contentType);
  const payload = p.payload;
  if (payload !== undefined && payload !== null) {
    if (payload instanceof Blob) request.payload = payload.getBytes();
    else if (typeof payload === 'string' || Array.isArray(payload)) request.payload = payload;
    else if (typeof payload === 'object') {
      const form: Record<string, string> = {};
      for (const [key, value] of Object.entries(payload)) form[key] = String(value);
      request.payload = form;
    } else request.payload = String(payload);
  }
  for (const flagName of FLAGS) if (p[flagName] !== undefined) request[flagName] = !!p[flagName];
  return request;
}

export const UrlFetchApp = {
  fetch(url: unknown, params?: Params): HTTPResponse {
    return new HTTPResponse(call('UrlFetchApp.fetch', [plainRequest(url, params)]));
  },
  fetchAll(requests: Iterable<string | (Params & { url: unknown })>): HTTPResponse[] {
    const plain = Array.from(requests, (r) =>
      typeof r === 'string' ? plainRequest(r, {}) : plainRequest(r.url, r),
    );
    return call<ResponseData[]>('UrlFetchApp.fetchAll', [plain]).map((r) => new HTTPResponse(r));
  },
  getRequest(url: unknown, params?: Params) {
    count('UrlFetchApp.getRequest');
    const request = plainRequest(url, params);
    return { ...request, method: (request.method || 'get').toLowerCase(), headers: request.headers || {} };
  },
};
