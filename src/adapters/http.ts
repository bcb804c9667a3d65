/** UrlFetchApp: one batch of lookups, or the key check, through fetchAll. */

import { interpretAnswer, type RawAnswer } from '../lookup/answers';
import { redactKey } from '../lookup/apiKey';
import {
  buildKeyCheckRequest,
  buildLookupRequest,
  type HttpRequest,
  interpretFetchException,
} from '../lookup/contract';
import type { SendPlan, SentBatch, SentKeyCheck, Transport } from '../lookup/ports';
import type { KeyCheck, ServiceError } from '../lookup/result';
import { systemClock } from './clock';
import { readScriptConfig } from './scriptConfig';

type Response = GoogleAppsScript.URL_Fetch.HTTPResponse;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The answer of one response; its headers are read only when they matter (a redirect, a 429). */
function rawAnswer(response: Response): RawAnswer {
  const status = response.getResponseCode();
  const answer: RawAnswer = { status, body: response.getContentText() };
  if (status === 429 || (status >= 300 && status < 400)) {
    // HTTP/1.1 servers send these names capitalised, HTTP/2 ones in lower case.
    const headers = response.getHeaders() as Record<string, string>;
    answer.headers = {
      location: headers.Location ?? headers.location,
      retryAfter: headers['Retry-After'] ?? headers['retry-after'],
      date: headers.Date ?? headers.date,
    };
  }
  return answer;
}

/**
 * One batch through fetchAll. Whether one transport failure makes the whole call throw is not documented: when it
 * throws, every answer of the batch is taken as lost, and maybe charged (src/lookup/pipeline.ts keeps each as such,
 * never sent again unasked). The quota exceptions come before anything is sent.
 */
function sendBatch(urls: string[], plan: SendPlan): SentBatch {
  if (urls.length === 0) return { outcomes: [], sent: 0, lost: false };
  const requests = urls.map((url) => buildLookupRequest(plan.endpoint, plan.apiKey, url));
  return fetchEach(requests, plan.apiKey, (answer, now) => interpretAnswer(answer, plan.apiKey, now));
}

/**
 * One fetchAll of `requests`, each answer read by `read`; when fetchAll throws, every request gets that failure
 * (and `lost` says the batch went out, unless the daily quota stopped it before anything was sent).
 */
function fetchEach<T>(
  requests: HttpRequest[],
  apiKey: string,
  read: (answer: RawAnswer, now: number) => T,
): { outcomes: Array<T | ServiceError>; sent: number; lost: boolean } {
  try {
    const responses = UrlFetchApp.fetchAll(requests as GoogleAppsScript.URL_Fetch.URLFetchRequest[]);
    const now = systemClock.now();
    return {
      outcomes: responses.map((response) => read(rawAnswer(response), now)),
      sent: requests.length,
      lost: false,
    };
  } catch (error) {
    const outcome = interpretFetchException(redactKey(errorMessage(error), apiKey));
    // The daily quota and the short-time limit refuse the call before anything is sent.
    const sent = outcome.error === 'quota' || outcome.error === 'rate_limited' ? 0 : requests.length;
    return { outcomes: requests.map(() => outcome), sent, lost: sent > 0 };
  }
}

/**
 * The key check's one reading (the sidebar's and a session's): a 400 (the key passed, the missing URL refused) or an
 * off-contract 200 passes; any other answer is read as a lookup's would be (401 key refused, 404 or a redirect: the
 * configuration, 429 with its Retry-After, 5xx), the key masked in what it says.
 */
export function keyCheckOutcome(answer: RawAnswer, apiKey: string, now: number): ServiceError | undefined {
  if ('status' in answer && (answer.status === 400 || answer.status === 200)) return undefined;
  const outcome = interpretAnswer(answer, apiKey, now);
  return outcome.kind === 'error' ? outcome : undefined;
}

/** The key check: one request without `network_url` (free: answered 400 for a good key, before any lookup). */
function sendKeyCheck(endpoint: string, apiKey: string): SentKeyCheck {
  const sent = fetchEach([buildKeyCheckRequest(endpoint, apiKey)], apiKey, (answer, now) =>
    keyCheckOutcome(answer, apiKey, now),
  );
  return { error: sent.outcomes[0], sent: sent.sent, lost: sent.lost };
}

const checkKey = (plan: SendPlan): SentKeyCheck => sendKeyCheck(plan.endpoint, plan.apiKey);

export const fetchTransport: Transport = { sendBatch, checkKey };

/** The sidebar's key check: the same request and reading as a session's (see sendKeyCheck). */
export function askServiceAboutKey(key: string): KeyCheck | { config: string } {
  const config = readScriptConfig();
  if (!config.endpoint.ok) return { config: config.endpoint.message };
  const { error } = sendKeyCheck(config.endpoint.endpoint, key);
  if (!error) return { valid: true };
  if (error.error === 'unauthorized') return { valid: false, message: error.said ?? 'Unauthorized' };
  return error;
}
