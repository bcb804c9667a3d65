/** UrlFetchApp: one batch of lookups through fetchAll; one plain request. */
import { interpretAnswer, type RawAnswer } from '../core/answers';
import { redactKey } from '../core/apiKey';
import { buildLookupRequest, type HttpRequest, interpretFetchException } from '../core/lookup';
import type { SendPlan, SentBatch, Transport } from '../core/ports';

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
    };
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
