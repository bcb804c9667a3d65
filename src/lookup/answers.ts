/**
 * The one place that decides what an answer of the service means for a run: the outcome of a raw answer, whether
 * it halts the run or may be retried, and why a bulk run halts. Pure (the contract itself is in lookup.ts).
 */

import type { HaltReason } from '../bulk/jobMachine';
import { SETTINGS_PATH } from '../core/product';
import { redactKey } from './apiKey';
import {
  type AnswerHeaders,
  interpretFetchException,
  interpretLookupResponse,
  type LookupOutcome,
  type ServiceError,
  withAdvice,
} from './contract';

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

/** Why a bulk run halts on this error, and what the sidebar tells the user to do. */
export function haltOf(error: ServiceError): { reason: HaltReason; message: string } {
  switch (error.error) {
    case 'payment_required':
      return {
        reason: 'out_of_credits',
        message: withAdvice(
          error,
          'Rows not yet processed stay empty. Add credits to your account, then Resume.',
        ),
      };
    case 'unauthorized':
    case 'missing_key':
      return {
        reason: error.error === 'unauthorized' ? 'key_rejected' : 'no_key',
        message: withAdvice(error, `Save a valid key in ${SETTINGS_PATH}, then Resume.`),
      };
    case 'quota':
      return {
        reason: 'quota',
        message: withAdvice(error, 'Resume tomorrow.'),
      };
    case 'endpoint_not_found':
    case 'config':
      return { reason: 'configuration', message: error.message };
    default:
      return { reason: error.effect === 'stop' ? 'configuration' : 'error', message: error.message };
  }
}
