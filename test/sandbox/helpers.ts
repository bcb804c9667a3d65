import { type SandboxServer, type StartSandboxOptions, startSandbox } from '../../sandbox/server';

export const KEY = 'test-key-aaaaaaaaaaaaaaaa';
export const OTHER_KEY = 'test-key-bbbbbbbbbbbbbbbb';
export const ORG = 'acme';
export const OTHER_ORG = 'globex';

export function start(overrides: Partial<StartSandboxOptions> = {}): Promise<SandboxServer> {
  return startSandbox({
    port: 0,
    organizations: [
      { name: ORG, keys: [KEY], credits: 100 },
      { name: OTHER_ORG, keys: [OTHER_KEY], credits: 5 },
    ],
    ...overrides,
  });
}

export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any field of the service's JSON answers
  json: any;
  headers: Headers;
}

/** POSTs to the endpoint; `body` is sent as is when a string, JSON-encoded otherwise. */
export async function post(
  sandbox: SandboxServer,
  body: unknown,
  options: { key?: string | null; path?: string; method?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers['X-KEY'] = key;
  const method = options.method ?? 'POST';
  const res = await fetch(`${sandbox.origin}${options.path ?? '/api/v1/network_finder'}`, {
    method,
    headers,
    body:
      method === 'GET' || method === 'HEAD'
        ? undefined
        : typeof body === 'string'
          ? body
          : JSON.stringify(body),
    signal: options.signal,
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: a test reads any field of the service's JSON answers
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
    json,
    headers: res.headers,
  };
}

export function lookup(sandbox: SandboxServer, networkUrl: string, key?: string | null): Promise<Answer> {
  return post(sandbox, { network_url: networkUrl }, { key });
}

/** Polls `predicate` every 20 ms, at most `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  for (let waited = 0; waited <= timeoutMs; waited += 20) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Condition not met within ${timeoutMs} ms`);
}
