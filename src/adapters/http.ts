/** UrlFetchApp: one batch of lookups through fetchAll, with transport failures isolated; one plain request. */
import { haltsRun, interpretAnswer, type RawAnswer } from '../core/answers';
import {
  buildLookupRequest,
  type HttpRequest,
  interpretFetchException,
  type LookupOutcome,
  redactKey,
} from '../core/lookup';
import type { SendPlan, Transport } from '../core/ports';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One batch through fetchAll; `undefined` for a request never sent (the caller may send it later).
 * fetchAll throws as a whole when any request fails at the transport level, and the other answers are lost
 * although the service already charged them. Then the batch is sent again one request at a time with fetch:
 * each good request is paid at most once more (bisecting would re-send some up to log2(n) times), the failing
 * one is isolated and classified. Re-sending stops at the deadline and at an answer that halts the run.
 */
function sendBatch(
  urls: string[],
  plan: SendPlan,
): { outcomes: Array<LookupOutcome | undefined>; sent: number } {
  if (urls.length === 0) return { outcomes: [], sent: 0 };
  const requests = urls.map((url) => buildLookupRequest(plan.endpoint, plan.apiKey, url));
  let message: string;
  try {
    const responses = UrlFetchApp.fetchAll(requests as GoogleAppsScript.URL_Fetch.URLFetchRequest[]);
    const outcomes = responses.map((response) =>
      interpretAnswer({ status: response.getResponseCode(), body: response.getContentText() }, plan.apiKey),
    );
    return { outcomes, sent: requests.length };
  } catch (error) {
    message = redactKey(errorMessage(error), plan.apiKey);
  }
  if (requests.length === 1 || interpretFetchException(message).error === 'quota') {
    return {
      outcomes: requests.map(() => interpretAnswer({ thrown: message }, plan.apiKey)),
      sent: requests.length,
    };
  }
  const outcomes: Array<LookupOutcome | undefined> = [];
  let sent = requests.length;
  let stopped = false;
  for (const request of requests) {
    if (stopped || Date.now() >= plan.deadline) {
      outcomes.push(undefined);
      continue;
    }
    sent += 1;
    const outcome = interpretAnswer(sendOne(request), plan.apiKey);
    outcomes.push(outcome);
    stopped = haltsRun(outcome);
  }
  return { outcomes, sent };
}

export const fetchTransport: Transport = { sendBatch };

export function sendOne(request: HttpRequest): RawAnswer {
  try {
    const response = UrlFetchApp.fetch(
      request.url,
      request as GoogleAppsScript.URL_Fetch.URLFetchRequestOptions,
    );
    return { status: response.getResponseCode(), body: response.getContentText() };
  } catch (error) {
    return { thrown: redactKey(errorMessage(error), request.headers['X-KEY']) };
  }
}
