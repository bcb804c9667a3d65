/** UrlFetchApp adapter: parallel batches through fetchAll, isolation of transport failures, bounded retries. */
import {
  buildLookupRequest,
  type HttpRequest,
  interpretFetchException,
  interpretLookupResponse,
  type LookupOutcome,
  redactKey,
  type ServiceError,
} from '../core/lookup';
import { type RetryPolicy, retryDelayMs } from '../core/retry';

export interface LookupPlan {
  apiKey: string;
  endpoint: string;
  /** Requests per fetchAll call. */
  concurrency: number;
  /** Epoch ms after which no new request is started. */
  deadline: number;
  retry: RetryPolicy;
}

export interface LookupReport {
  /** By URL as sent. URLs missing here were never sent (deadline, or the run was halted). */
  outcomes: Map<string, LookupOutcome>;
  /** The first error that stops or pauses a run (401, 402, 404, quota), if any. */
  halt?: ServiceError;
  requestsSent: number;
}

type RawAnswer = { status: number; body: string } | { thrown: string };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function interpret(answer: RawAnswer, apiKey: string): LookupOutcome {
  if ('thrown' in answer) return interpretFetchException(answer.thrown);
  const outcome = interpretLookupResponse(answer.status, answer.body);
  return outcome.kind === 'error' ? { ...outcome, message: redactKey(outcome.message, apiKey) } : outcome;
}

/**
 * One batch through fetchAll; `undefined` for a request never sent (the caller retries it later).
 * fetchAll throws as a whole when any request fails at the transport level, and the other answers are lost
 * although the service already charged them. Then the batch is sent again one request at a time with fetch:
 * each good request is paid at most once more (bisecting would re-send some up to log2(n) times), the failing
 * one is isolated and classified. Re-sending stops at the deadline and at an answer that halts the run.
 */
function sendBatch(
  requests: HttpRequest[],
  plan: LookupPlan,
  counter: { sent: number },
): Array<RawAnswer | undefined> {
  if (requests.length === 0) return [];
  let message: string;
  try {
    counter.sent += requests.length;
    const responses = UrlFetchApp.fetchAll(requests as GoogleAppsScript.URL_Fetch.URLFetchRequest[]);
    return responses.map((response) => ({
      status: response.getResponseCode(),
      body: response.getContentText(),
    }));
  } catch (error) {
    message = redactKey(errorMessage(error), plan.apiKey);
  }
  if (requests.length === 1 || interpretFetchException(message).error === 'quota') {
    return requests.map(() => ({ thrown: message }));
  }
  const answers: Array<RawAnswer | undefined> = [];
  let stopped = false;
  for (const request of requests) {
    if (stopped || Date.now() >= plan.deadline) {
      answers.push(undefined);
      continue;
    }
    counter.sent += 1;
    const answer = sendOne(request);
    answers.push(answer);
    const outcome = interpret(answer, plan.apiKey);
    stopped = outcome.kind === 'error' && outcome.effect !== 'continue';
  }
  return answers;
}

/** Looks up distinct URLs (as the user wrote them) in parallel batches, retrying what may pass on a later try. */
export function lookupMany(urls: string[], plan: LookupPlan): LookupReport {
  const outcomes = new Map<string, LookupOutcome>();
  const counter = { sent: 0 };
  let halt: ServiceError | undefined;
  let pending = urls.slice();
  for (let attempt = 1; attempt <= plan.retry.maxAttempts && pending.length > 0 && !halt; attempt++) {
    const retryLater: string[] = [];
    for (let start = 0; start < pending.length && !halt; start += plan.concurrency) {
      // The first batch always goes out, so every call makes progress however small its budget.
      if ((start > 0 || attempt > 1) && Date.now() >= plan.deadline) break;
      const chunk = pending.slice(start, start + plan.concurrency);
      const answers = sendBatch(
        chunk.map((url) => buildLookupRequest(plan.endpoint, plan.apiKey, url)),
        plan,
        counter,
      );
      chunk.forEach((url, index) => {
        const answer = answers[index];
        if (!answer) return;
        const outcome = interpret(answer, plan.apiKey);
        outcomes.set(url, outcome);
        if (outcome.kind !== 'error') return;
        if (outcome.effect !== 'continue') halt = halt ?? outcome;
        else if (outcome.retryable && attempt < plan.retry.maxAttempts) retryLater.push(url);
      });
    }
    const delay = retryDelayMs(plan.retry, attempt + 1);
    if (retryLater.length === 0 || halt || Date.now() + delay >= plan.deadline) break;
    Utilities.sleep(delay);
    pending = retryLater;
  }
  return { outcomes, halt, requestsSent: counter.sent };
}

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
