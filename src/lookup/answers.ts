/**
 * The one place that decides what an answer of the service means for a run: the outcome of a raw answer, and whether
 * it halts the run or may be retried. Pure (the contract itself is in src/lookup/contract.ts).
 */

import { redactKey } from './apiKey';
import { type AnswerHeaders, interpretFetchException, interpretLookupResponse } from './contract';
import type { LookupOutcome, ServiceError } from './result';

/**
 * What came back for one request: an HTTP answer (with the headers that matter, read only for a redirect or a
 * 429), or the text of the exception UrlFetchApp threw.
 */
export type RawAnswer = { status: number; body: string; headers?: AnswerHeaders } | { thrown: string };

/** The outcome of one answer at `now` (epoch ms, for a Retry-After date), with the key masked in every message. */
export function interpretAnswer(answer: RawAnswer, apiKey: string, now = 0): LookupOutcome {
  if ('thrown' in answer) return interpretFetchException(redactKey(answer.thrown, apiKey));
  const outcome = interpretLookupResponse(answer.status, answer.body, answer.headers, now);
  if (outcome.kind !== 'error') return outcome;
  const masked: ServiceError = { ...outcome, message: redactKey(outcome.message, apiKey) };
  if (outcome.said !== undefined) masked.said = redactKey(outcome.said, apiKey);
  return masked;
}

/** The answer stops or pauses the whole run (401, 402, 404, quota): nothing more is sent. */
export function haltsRun(outcome: LookupOutcome | undefined): outcome is ServiceError {
  return outcome?.kind === 'error' && outcome.effect !== 'continue';
}

/** A failure that may pass on a later try (500, 429, transport, time-out). */
export function mayRetry(outcome: LookupOutcome | undefined): boolean {
  return outcome?.kind === 'error' && outcome.effect === 'continue' && outcome.retryable;
}
