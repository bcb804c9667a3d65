/**
 * The service contract on the wire (shared/service-spec.md) as pure functions: the request, and the answer read into
 * the result's words (./result.ts): its JSON body and what it means.
 */

import { FIELD_LIMITS } from '../core/limits';
import { isRecord } from '../core/storedJson';
import { withoutAddresses, withoutStop } from '../core/text';
import {
  boundResult,
  cut,
  type LookupOutcome,
  type ProfileInfo,
  type ServiceError,
  serviceError,
  unusableAnswer,
} from './result';

// Reading a JSON answer of the service (shared/service-spec.md §2 and §7): the object, its error text, the profile
// record, and whether a 200 has the contract's success shape.

export function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The body's error text, bounded: it reaches notes, the run's message and its stored state. */
export function errorText(body: Record<string, unknown> | undefined): string | undefined {
  const text = body?.error ?? body?.message;
  return typeof text === 'string' && text.trim() !== '' ? cut(text.trim(), FIELD_LIMITS.message) : undefined;
}

export function readProfile(value: unknown): ProfileInfo {
  if (!value || typeof value !== 'object') return {};
  const record = value as Record<string, unknown>;
  const profile: ProfileInfo = {};
  if (typeof record.name === 'string' && record.name.trim() !== '') profile.name = record.name.trim();
  if (typeof record.updated_at === 'string') profile.updatedAt = record.updated_at;
  return profile;
}

/** Absent, null or of this type. */
export function optional(value: unknown, type: 'string' | 'boolean'): boolean {
  return value === undefined || value === null || typeof value === type;
}

/**
 * Why a 200 body is not the contract's success shape (§2.2), or undefined when it is. Required: `status` equal to
 * "success", `email_address` a string or null (empty or null: no address), `profile` an object. The other fields
 * may be absent or null (a not-found answer carries nulls), but when given they have the contract's types.
 */
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

export interface HttpRequest {
  url: string;
  method: 'post';
  contentType: 'application/json';
  headers: { 'X-KEY': string };
  payload: string;
  muteHttpExceptions: true;
  followRedirects: false;
}

export function buildLookupRequest(endpoint: string, apiKey: string, networkUrl: string): HttpRequest {
  return {
    url: endpoint,
    method: 'post',
    contentType: 'application/json',
    headers: { 'X-KEY': apiKey },
    payload: JSON.stringify({ network_url: networkUrl }),
    muteHttpExceptions: true,
    followRedirects: false,
  };
}

/**
 * Checks a key without spending a credit: the contract checks `X-KEY` before the body,
 * so a body without `network_url` gets 401 for a bad key and 400 for a good one.
 */
export function buildKeyCheckRequest(endpoint: string, apiKey: string): HttpRequest {
  return { ...buildLookupRequest(endpoint, apiKey, ''), payload: '{}' };
}

/** The headers of an answer that matter: where a redirect points, and when to try again after a 429 (and from when). */
export interface AnswerHeaders {
  location?: string;
  retryAfter?: string;
  /** The answer's Date: when the service sent it. */
  date?: string;
}

/** A service's Date this far before `now` is another clock's, not when its answer was sent. */
const DATE_TRUSTED_MS = 60_000;

/**
 * Retry-After as ms from `now`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or
 * unreadable. Delay-seconds count from when the answer was received (RFC 9110 §10.2.3): fetchAll returns with its
 * slowest answer, so a 429 that came at once has waited since; its Date (sent then, to the second: a second later
 * at most) says when, never later than `now`. Without a Date, or one more than a minute old, from `now`.
 */
export function parseRetryAfter(value: string | undefined, now: number, date?: string): number | undefined {
  const text = value?.trim() ?? '';
  const at = /^\d+$/.test(text) ? answeredAt(date, now) + 1000 * Number(text) : Date.parse(text);
  return at >= 0 ? Math.max(0, at - now) : undefined;
}

/** When an answer sent at `date` (its Date header) was received, at the latest: `now` when that says nothing. */
function answeredAt(date: string | undefined, now: number): number {
  const sent = date ? Date.parse(date) : Number.NaN;
  return now - sent <= DATE_TRUSTED_MS ? Math.min(now, sent + 1000) : now;
}

/** Maps one HTTP answer to an outcome. Every status of the contract, and whatever else a proxy may answer. */
export function interpretLookupResponse(
  status: number,
  body: string,
  headers: AnswerHeaders = {},
  now = 0,
): LookupOutcome {
  if (status >= 300 && status < 400) return redirected(status, headers);
  const parsed = parseJson(body);
  // These statuses mean the same with a web server's or gateway's HTML page as the body (a wrong API_BASE_URL
  // path answers an HTML 404): classify them by status, not as an unreadable body.
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
  if (status === 422) {
    const said = errorText(json);
    return boundResult({
      kind: 'unprocessable',
      message: typeof json.message === 'string' ? json.message : (said ?? 'Unprocessable profile'),
      profile: readProfile(json.profile),
    });
  }
  const retryAfterMs = status === 429 ? parseRetryAfter(headers.retryAfter, now, headers.date) : undefined;
  return failure(status, errorText(json), retryAfterMs);
}

/** followRedirects is false: a redirect means API_BASE_URL is not the service's own address (http for https?). */
function redirected(status: number, headers: AnswerHeaders): ServiceError {
  // Where it points is left out: no address in a message (it may be an internal one).
  const to = headers.location ? ' to another address' : '';
  return serviceError(
    'config',
    `The service address redirects (HTTP ${status}${to}). Check API_BASE_URL: it must be the service's own address.`,
    { status, effect: 'stop' },
  );
}

/** A 200: a result when it has the contract's shape (§2.2), otherwise ERROR with the reason. */
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

/** Every status that is neither a result nor a redirect: 400, 401, 402, 404, 429, 5xx and the unexpected. */
function failure(status: number, said: string | undefined, retryAfterMs: number | undefined): ServiceError {
  switch (status) {
    case 400:
      return serviceError('bad_request', 'The service did not accept this profile URL (HTTP 400).', {
        status,
        said,
      });
    case 401:
      return serviceError('unauthorized', 'The API key was rejected (HTTP 401).', {
        status,
        effect: 'stop',
        said,
      });
    case 402:
      return serviceError('payment_required', 'Out of credits (HTTP 402).', {
        status,
        effect: 'pause',
        said,
      });
    case 404:
      return serviceError(
        'endpoint_not_found',
        'The service address is wrong (HTTP 404). Check API_BASE_URL.',
        {
          status,
          effect: 'stop',
          said,
        },
      );
    case 429:
      return {
        ...serviceError('rate_limited', 'Too many requests (HTTP 429).', { status, retryable: true, said }),
        retryAfterMs,
      };
    default:
      if (status >= 500) {
        return serviceError('server_error', `The service failed (HTTP ${status}).`, {
          status,
          retryable: true,
          said,
        });
      }
      return serviceError('unexpected_status', `Unexpected answer HTTP ${status}.`, { status, said });
  }
}

/** Classifies an exception thrown by UrlFetchApp (these throw even with muteHttpExceptions). */
export function interpretFetchException(message: string): ServiceError {
  const text = message.replace(/^Exception:\s*/, '');
  if (/too many times for one day: urlfetch/i.test(text)) {
    return serviceError(
      'quota',
      `Apps Script's daily limit of web requests is used up${cause(text)}. It resets within 24 hours.`,
      { effect: 'pause' },
    );
  }
  // Refused before anything was sent ("Service invoked too many times in a short time: urlfetch", reported:
  // Blacksmoke16/GESI#99): tried again after a pause, uncharged.
  if (/too many times in a short time: urlfetch/i.test(text)) {
    return {
      ...serviceError(
        'rate_limited',
        'Apps Script refused this many web requests at once; they go again shortly.',
        {
          retryable: true,
        },
      ),
      retryAfterMs: 1000,
    };
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
