/** The service contract on the wire (shared/service-spec.md): the request, and the answer read into ./result.ts. */
import { FIELD_LIMITS } from '../core/limits';
import type { RawAnswer } from '../core/ports';
import { isRecord, parseStored } from '../core/storedJson';
import { withoutAddresses, withoutStop } from '../core/text';
import { redactKey } from './apiKey';
import {
  boundResult,
  cut,
  type ErrorKind,
  type LookupOutcome,
  type ProfileInfo,
  type RunEffect,
  type ServiceError,
  serviceError,
  unusableAnswer,
} from './result';

/** Bounded: it reaches notes, the run's message and its stored state. */
export function errorText(body: Record<string, unknown> | undefined): string | undefined {
  const text = body?.error ?? body?.message;
  return typeof text === 'string' && text.trim() !== '' ? cut(text.trim(), FIELD_LIMITS.message) : undefined;
}

export function readProfile(value: unknown): ProfileInfo {
  const profile: ProfileInfo = {};
  if (!isRecord(value)) return profile;
  if (typeof value.name === 'string' && value.name.trim() !== '') profile.name = value.name.trim();
  if (typeof value.updated_at === 'string') profile.updatedAt = value.updated_at;
  return profile;
}

export function optional(value: unknown, type: 'string' | 'boolean'): boolean {
  return value === undefined || value === null || typeof value === type;
}

/** Why a 200 body is not the contract's success shape (§2.2), or undefined when it is. */
export function offContract(json: Record<string, unknown>): string | undefined {
  if (json.status !== 'success') {
    return json.status === undefined
      ? 'no "status"'
      : `"status" is ${JSON.stringify(json.status).slice(0, 40)}`;
  }
  if (!('email_address' in json) || !optional(json.email_address, 'string'))
    return '"email_address" is missing or not text';
  if (!isRecord(json.profile)) return '"profile" is missing';
  const wrong = (
    [
      ['network_url', json.network_url, 'string'],
      ['email_status', json.email_status, 'string'],
      ['account_type', json.account_type, 'string'],
      ['is_catch_all', json.is_catch_all, 'boolean'],
      ['profile.name', json.profile.name, 'string'],
      ['profile.updated_at', json.profile.updated_at, 'string'],
    ] as const
  ).find(([, value, type]) => !optional(value, type));
  if (wrong) return `"${wrong[0]}" is not ${wrong[2] === 'string' ? 'text' : 'true or false'}`;
  if (typeof json.email_address === 'string' && json.email_address.trim().length > FIELD_LIMITS.email)
    return `"email_address" is longer than ${FIELD_LIMITS.email} characters`;
  return undefined;
}

export type HttpRequest = ReturnType<typeof buildLookupRequest>;

export function buildLookupRequest(endpoint: string, apiKey: string, networkUrl: string) {
  return {
    url: endpoint,
    method: 'post' as const,
    contentType: 'application/json' as const,
    headers: { 'X-KEY': apiKey },
    payload: JSON.stringify({ network_url: networkUrl }),
    muteHttpExceptions: true as const,
    followRedirects: false as const,
  };
}

/** The contract checks `X-KEY` before the body: without `network_url`, 401 for a bad key, 400 for a good one (free). */
export function buildKeyCheckRequest(endpoint: string, apiKey: string): HttpRequest {
  return { ...buildLookupRequest(endpoint, apiKey, ''), payload: '{}' };
}

/** A Date older than this is another clock's, not when the answer was sent. */
const DATE_TRUSTED_MS = 60_000;

/**
 * Retry-After (RFC 9110 §10.2.3) as ms from `now`. Delay-seconds count from receipt, and fetchAll returns with its
 * slowest answer: a fresh Date says when an early 429 came.
 */
export function parseRetryAfter(value: string | undefined, now: number, date?: string): number | undefined {
  const text = value?.trim() ?? '';
  const sent = date ? Date.parse(date) : Number.NaN;
  const answeredAt = now - sent <= DATE_TRUSTED_MS ? Math.min(now, sent + 1000) : now;
  const at = /^\d+$/.test(text) ? answeredAt + 1000 * Number(text) : Date.parse(text);
  return at >= 0 ? Math.max(0, at - now) : undefined;
}

export function interpretLookupResponse(
  status: number,
  body: string,
  headers: { location?: string; retryAfter?: string; date?: string } = {},
  now = 0,
): LookupOutcome {
  // A redirect means API_BASE_URL is not the service's own address; where it points stays out (maybe internal).
  if (status >= 300 && status < 400) {
    const message = `The service address redirects (HTTP ${status}${headers.location ? ' to another address' : ''}). Check API_BASE_URL: it must be the service's own address.`;
    return serviceError('config', message, { status, effect: 'stop' });
  }
  const stored = parseStored(body);
  const parsed = isRecord(stored) ? stored : undefined;
  // These mean the same with a gateway's HTML page as the body (a wrong API_BASE_URL path answers an HTML 404).
  const statusSays = [401, 402, 404, 429].includes(status);
  if (!parsed && status === 200) return unusableAnswer('its body is not JSON');
  if (!parsed && !statusSays) {
    return serviceError(
      status >= 500 ? 'server_error' : 'invalid_body',
      `The service answered HTTP ${status} with a body that is not JSON (a proxy or gateway error page?).`,
      { status, retryable: status >= 500 },
    );
  }
  const json = parsed ?? {};
  if (status === 200) return success(json);
  if (status === 422)
    return boundResult({
      kind: 'unprocessable',
      message: typeof json.message === 'string' ? json.message : (errorText(json) ?? 'Unprocessable profile'),
      profile: readProfile(json.profile),
    });
  const retryAfterMs = status === 429 ? parseRetryAfter(headers.retryAfter, now, headers.date) : undefined;
  return failure(status, errorText(json), retryAfterMs);
}

function success(json: Record<string, unknown>): LookupOutcome {
  const odd = offContract(json);
  if (odd) return unusableAnswer(odd);
  const email = json.email_address;
  const profile = readProfile(json.profile);
  if (typeof email !== 'string' || email.trim() === '') return boundResult({ kind: 'not_found', profile });
  return boundResult({
    kind: 'found',
    email: email.trim(),
    emailStatus: typeof json.email_status === 'string' ? json.email_status : '',
    catchAll: json.is_catch_all === true,
    accountType: typeof json.account_type === 'string' ? json.account_type : '',
    profile,
  });
}

/** The contract's non-result statuses (§7): what each means and does to a run. */
const FAILURES: Record<number, [ErrorKind, string, RunEffect]> = {
  400: ['bad_request', 'The service did not accept this profile URL (HTTP 400).', 'continue'],
  401: ['unauthorized', 'The API key was rejected (HTTP 401).', 'stop'],
  402: ['payment_required', 'Out of credits (HTTP 402).', 'pause'],
  404: ['endpoint_not_found', 'The service address is wrong (HTTP 404). Check API_BASE_URL.', 'stop'],
};

function failure(status: number, said: string | undefined, retryAfterMs: number | undefined): ServiceError {
  const known = FAILURES[status];
  if (known) return serviceError(known[0], known[1], { status, effect: known[2], said });
  const retry = { status, retryable: true, said };
  if (status === 429)
    return { ...serviceError('rate_limited', 'Too many requests (HTTP 429).', retry), retryAfterMs };
  if (status >= 500) return serviceError('server_error', `The service failed (HTTP ${status}).`, retry);
  return serviceError('unexpected_status', `Unexpected answer HTTP ${status}.`, { status, said });
}

/** UrlFetchApp throws these even with muteHttpExceptions. */
export function interpretFetchException(message: string): ServiceError {
  const text = message.replace(/^Exception:\s*/, '');
  if (/too many times for one day: urlfetch/i.test(text)) {
    const usedUp = `Apps Script's daily limit of web requests is used up${cause(text)}. It resets within 24 hours.`;
    return serviceError('quota', usedUp, { effect: 'pause' });
  }
  // Refused before anything was sent, uncharged (reported: Blacksmoke16/GESI#99).
  if (/too many times in a short time: urlfetch/i.test(text)) {
    const refused = 'Apps Script refused this many web requests at once; they go again shortly.';
    return { ...serviceError('rate_limited', refused, { retryable: true }), retryAfterMs: 1000 };
  }
  if (/timeout|timed out/i.test(text)) {
    return serviceError('timeout', `The service did not answer in time${cause(text)}.`, { retryable: true });
  }
  return serviceError('transport', `The service could not be reached${cause(text)}.`, { retryable: true });
}

/** " (Address unavailable)": Apps Script's words for a failed fetch, without the address it names. */
function cause(text: string): string {
  const words = withoutStop(withoutAddresses(text));
  return words ? ` (${words})` : '';
}

/** The key masked in every message. */
export function interpretAnswer(answer: RawAnswer, apiKey: string, now = 0): LookupOutcome {
  if ('thrown' in answer) return interpretFetchException(redactKey(answer.thrown, apiKey));
  const outcome = interpretLookupResponse(answer.status, answer.body, answer.headers, now);
  if (outcome.kind !== 'error') return outcome;
  const masked: ServiceError = { ...outcome, message: redactKey(outcome.message, apiKey) };
  if (outcome.said !== undefined) masked.said = redactKey(outcome.said, apiKey);
  return masked;
}

/** A 400 (the key passed, the missing URL refused) or a 200 passes; else as a lookup's. */
export function keyCheckOutcome(answer: RawAnswer, apiKey: string, now: number): ServiceError | undefined {
  if ('status' in answer && (answer.status === 400 || answer.status === 200)) return undefined;
  const outcome = interpretAnswer(answer, apiKey, now);
  return outcome.kind === 'error' ? outcome : undefined;
}

export function haltsRun(outcome: LookupOutcome | undefined): outcome is ServiceError {
  return outcome?.kind === 'error' && outcome.effect !== 'continue';
}

/** Never a lost answer: it may have been charged. */
export function mayRetry(outcome: LookupOutcome | undefined): boolean {
  return outcome?.kind === 'error' && outcome.effect === 'continue' && outcome.retryable;
}
