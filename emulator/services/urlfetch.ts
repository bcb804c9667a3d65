/** UrlFetchApp: real HTTP, fetchAll failing as a whole, the daily quota. */
import { fail } from '../errors';
import { allowedByManifest, notAllowlistedMessage } from '../host/manifest';
import { type FetchRequest, type FetchResponse, httpFailure, performFetch, validUrl } from '../model/http';
import type { FetchRecord } from '../types';
import { type Exec, requireFullAuth, type ServiceHost } from './context';

/** UrlFetchApp calls so far (numbers each call's requests in host.fetches). */
let calls = 0;

export async function urlFetch(
  host: ServiceHost,
  exec: Exec,
  method: string,
  args: unknown[],
): Promise<unknown> {
  requireFullAuth(exec, `UrlFetchApp.${method}`, 'https://www.googleapis.com/auth/script.external_request');
  const requests = method === 'fetchAll' ? (args[0] as FetchRequest[]) : [args[0] as FetchRequest];
  for (const request of requests) {
    const url = validUrl(request.url);
    // Refused before any request is sent, the whole fetchAll with it.
    if (!allowedByManifest(url, host.manifest.urlFetchWhitelist)) fail(notAllowlistedMessage(request.url));
  }
  host.chargeQuota(exec.user, 'urlfetch', requests.length);
  // fetchAll answers only when all its requests have ended, at most fetchAllAtOnce at the service at a time; one
  // transport failure (or an HTTP error without muteHttpExceptions) makes the whole call throw, the other answers
  // lost (as users report; the reference does not say).
  const call = ++calls;
  const settled: PromiseSettledResult<FetchResponse>[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < requests.length; index = next++) {
      settled[index] = await fetchOne(host, exec, requests[index], call).then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(requests.length, host.fetchAllAtOnce) }, worker));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  const responses = settled.map((s) => (s as PromiseFulfilledResult<FetchResponse>).value);
  return method === 'fetchAll' ? responses : responses[0];
}

async function fetchOne(
  host: ServiceHost,
  exec: Exec,
  request: FetchRequest,
  call: number,
): Promise<FetchResponse> {
  const record: FetchRecord = {
    execId: exec.id,
    call,
    url: request.url,
    method: (request.method ?? 'get').toLowerCase(),
    headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, String(v)])),
    payload: typeof request.payload === 'string' ? request.payload : undefined,
    startedAt: Date.now(),
    endedAt: 0,
  };
  host.fetches.push(record);
  try {
    const response = await performFetch(request, {
      timeoutMs: host.fetchTimeoutMs,
      signal: new AbortController().signal,
    });
    record.status = response.status;
    if (response.status >= 400 && !request.muteHttpExceptions) {
      fail(httpFailure(request.url, response.status, response.body.toString('utf8')));
    }
    return response;
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
    throw error;
  } finally {
    record.endedAt = Date.now();
  }
}
