/** UrlFetchApp: one batch of lookups through fetchAll; one plain request. */
import { interpretAnswer, type RawAnswer, wantsHeaders } from '../core/answers';
import {
  type AnswerHeaders,
  buildLookupRequest,
  type HttpRequest,
  interpretFetchException,
  redactKey,
} from '../core/lookup';
import type { SendPlan, SentBatch, Transport } from '../core/ports';

type Response = GoogleAppsScript.URL_Fetch.HTTPResponse;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A header by name, whatever its case (HTTP names are case-insensitive; getHeaders keeps the server's). */
function header(headers: Record<string, unknown>, name: string): string | undefined {
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name);
  const value = found === undefined ? undefined : headers[found];
  return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
}

/** The answer of one response; its headers are read only when they matter (a redirect, a 429). */
function rawAnswer(response: Response): RawAnswer {
  const status = response.getResponseCode();
  const answer: RawAnswer = { status, body: response.getContentText() };
  if (wantsHeaders(status)) {
    const headers = response.getHeaders() as Record<string, unknown>;
    const wanted: AnswerHeaders = {
      location: header(headers, 'location'),
      retryAfter: header(headers, 'retry-after'),
    };
    answer.headers = wanted;
  }
  return answer;
}

/**
 * One batch through fetchAll. fetchAll throws as a whole when any request fails at the transport level: every
 * answer of the batch is lost, although the service may have charged each. Nothing is re-sent here: the
 * pipeline re-sends each lost request alone, at most once (src/features/lookup/pipeline.ts), and the batch size
 * controller shrinks the batches (src/core/pace.ts). The daily-quota exception is thrown before anything is sent.
 */
function sendBatch(urls: string[], plan: SendPlan): SentBatch {
  if (urls.length === 0) return { outcomes: [], sent: 0, lost: false };
  const requests = urls.map((url) => buildLookupRequest(plan.endpoint, plan.apiKey, url));
  try {
    const responses = UrlFetchApp.fetchAll(requests as GoogleAppsScript.URL_Fetch.URLFetchRequest[]);
    const now = Date.now();
    const outcomes = responses.map((response) => interpretAnswer(rawAnswer(response), plan.apiKey, now));
    return { outcomes, sent: requests.length, lost: false };
  } catch (error) {
    const message = redactKey(errorMessage(error), plan.apiKey);
    const outcome = interpretFetchException(message);
    const sent = outcome.error === 'quota' ? 0 : requests.length;
    return { outcomes: requests.map(() => outcome), sent, lost: sent > 0 };
  }
}

export const fetchTransport: Transport = { sendBatch };

export function sendOne(request: HttpRequest): RawAnswer {
  try {
    const response = UrlFetchApp.fetch(
      request.url,
      request as GoogleAppsScript.URL_Fetch.URLFetchRequestOptions,
    );
    return rawAnswer(response);
  } catch (error) {
    return { thrown: redactKey(errorMessage(error), request.headers['X-KEY']) };
  }
}
