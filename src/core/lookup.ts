/** The service contract (shared/service-spec.md) as pure functions: build a request, interpret a response. */
import { boundResult, cut, FIELD_LIMITS } from './bounds';

export interface ProfileInfo {
  name?: string;
  updatedAt?: string;
}

export type Found = {
  kind: 'found';
  email: string;
  emailStatus: string;
  catchAll: boolean;
  accountType: string;
  profile: ProfileInfo;
};
export type NotFound = { kind: 'not_found'; profile: ProfileInfo };
export type Unprocessable = { kind: 'unprocessable'; message: string; profile: ProfileInfo };
/** A result worth keeping: the service answered for this profile and charged a credit. */
export type LookupResult = Found | NotFound | Unprocessable;

export type ErrorKind =
  | 'bad_request' // 400: the service rejected the URL; no credit
  | 'unauthorized' // 401
  | 'payment_required' // 402
  | 'endpoint_not_found' // 404
  | 'rate_limited' // 429
  | 'server_error' // 500 and other 5xx
  | 'unexpected_status'
  | 'invalid_body' // not JSON (an HTML page from a proxy) or not the contract's shape
  | 'transport' // connection reset, DNS, refused
  | 'timeout'
  | 'quota' // Apps Script's daily UrlFetch quota
  | 'missing_key'
  | 'config';

/** What a whole run does after this error: go on with other rows, pause (resumable later) or stop (needs a fix). */
export type RunEffect = 'continue' | 'pause' | 'stop';

export interface ServiceError {
  kind: 'error';
  error: ErrorKind;
  status?: number;
  message: string;
  retryable: boolean;
  effect: RunEffect;
  /** A 429's Retry-After, in ms: no request before it has passed. */
  retryAfterMs?: number;
}

export type LookupOutcome = LookupResult | ServiceError;

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

export type KeyCheck = { valid: true } | { valid: false; message: string } | ServiceError;

export function interpretKeyCheck(status: number, body: string): KeyCheck {
  if (status === 400) return { valid: true };
  if (status === 401) return { valid: false, message: errorText(parseJson(body)) ?? 'Unauthorized' };
  // A 200 to a body without network_url is off-contract, whatever it holds; the key evidently works.
  if (status === 200) return { valid: true };
  const outcome = interpretLookupResponse(status, body);
  if (outcome.kind === 'error') return outcome;
  return { valid: true };
}

export function serviceError(
  error: ErrorKind,
  message: string,
  options: { status?: number; retryable?: boolean; effect?: RunEffect } = {},
): ServiceError {
  return {
    kind: 'error',
    error,
    status: options.status,
    message,
    retryable: options.retryable ?? false,
    effect: options.effect ?? 'continue',
  };
}

function parseJson(body: string): Record<string, unknown> | undefined {
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
function errorText(body: Record<string, unknown> | undefined): string | undefined {
  const text = body?.error ?? body?.message;
  return typeof text === 'string' && text.trim() !== '' ? cut(text.trim(), FIELD_LIMITS.message) : undefined;
}

function readProfile(value: unknown): ProfileInfo {
  if (!value || typeof value !== 'object') return {};
  const record = value as Record<string, unknown>;
  const profile: ProfileInfo = {};
  if (typeof record.name === 'string' && record.name.trim() !== '') profile.name = record.name.trim();
  if (typeof record.updated_at === 'string') profile.updatedAt = record.updated_at;
  return profile;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Absent, null or of this type. */
function optional(value: unknown, type: 'string' | 'boolean'): boolean {
  return value === undefined || value === null || typeof value === type;
}

/**
 * Why a 200 body is not the contract's success shape (§2.2), or undefined when it is. Required: `status` equal to
 * "success", `email_address` a string or null (empty or null: no address), `profile` an object. The other fields
 * may be absent or null (a not-found answer carries nulls), but when given they have the contract's types.
 */
function offContract(json: Record<string, unknown>): string | undefined {
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

/** A 200 that is not a result: shown as ERROR with the reason, never stored, looked up again on the next run. */
function oddSuccess(reason: string): ServiceError {
  return serviceError(
    'invalid_body',
    `The service answered HTTP 200 without a result (${reason}); not kept, looked up again on the next run.`,
    { status: 200 },
  );
}

/** The headers of an answer that matter: where a redirect points, and when to try again after a 429. */
export interface AnswerHeaders {
  location?: string;
  retryAfter?: string;
}

/**
 * Retry-After as ms from `now`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or
 * unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  const at = /^\d+$/.test(text) ? now + 1000 * Number(text) : Date.parse(text);
  return at >= 0 ? Math.max(0, at - now) : undefined;
}

/** Maps one HTTP answer to an outcome. Every status of the contract, and whatever else a proxy may answer. */
export function interpretLookupResponse(
  status: number,
  body: string,
  headers: AnswerHeaders = {},
  now = 0,
): LookupOutcome {
  // followRedirects is false: a redirect means API_BASE_URL is not the service's own address (http for https?).
  if (status >= 300 && status < 400) {
    const to = headers.location ? ` to ${cut(headers.location, 200)}` : '';
    return serviceError(
      'config',
      `The service address redirects (HTTP ${status}${to}). Check API_BASE_URL: it must be the service's own address.`,
      { status, effect: 'stop' },
    );
  }
  const parsed = parseJson(body);
  const said = errorText(parsed);
  const retryAfterMs = status === 429 ? parseRetryAfter(headers.retryAfter, now) : undefined;
  // These statuses mean the same with a web server's or gateway's HTML page as the body (a wrong API_BASE_URL
  // path answers an HTML 404): classify them by status, not as an unreadable body.
  const statusSays = [401, 402, 404, 429].includes(status);
  if (!parsed && !statusSays) {
    const retryable = status >= 500;
    return serviceError(
      status >= 500 ? 'server_error' : 'invalid_body',
      `The service answered HTTP ${status} with a body that is not JSON (a proxy or gateway error page?).`,
      { status, retryable },
    );
  }
  const json = parsed ?? {};
  switch (status) {
    case 200: {
      const odd = offContract(json);
      if (odd) return oddSuccess(odd);
      const email = json.email_address;
      const profile = readProfile(json.profile);
      if (typeof email !== 'string' || email.trim() === '')
        return boundResult({ kind: 'not_found', profile });
      return boundResult({
        kind: 'found',
        email: email.trim(),
        emailStatus: typeof json.email_status === 'string' ? json.email_status : '',
        catchAll: json.is_catch_all === true,
        accountType: typeof json.account_type === 'string' ? json.account_type : '',
        profile,
      });
    }
    case 400:
      return serviceError('bad_request', said ?? 'The service rejected the profile URL (400).', { status });
    case 401:
      return serviceError('unauthorized', `The API key was rejected: ${said ?? 'Unauthorized'}.`, {
        status,
        effect: 'stop',
      });
    case 402:
      return serviceError('payment_required', `Out of credits: ${said ?? 'Payment Required'}.`, {
        status,
        effect: 'pause',
      });
    case 404:
      return serviceError(
        'endpoint_not_found',
        `The service address is wrong (404 ${said ?? 'Not Found'}). Check API_BASE_URL.`,
        { status, effect: 'stop' },
      );
    case 422:
      return boundResult({
        kind: 'unprocessable',
        message: typeof json.message === 'string' ? json.message : (said ?? 'Unprocessable profile'),
        profile: readProfile(json.profile),
      });
    case 429:
      return {
        ...serviceError('rate_limited', said ?? 'Too many requests (429).', { status, retryable: true }),
        retryAfterMs,
      };
    default:
      if (status >= 500) {
        return serviceError('server_error', said ?? `The service failed (HTTP ${status}).`, {
          status,
          retryable: true,
        });
      }
      return serviceError(
        'unexpected_status',
        `Unexpected answer HTTP ${status}${said ? `: ${said}` : ''}.`,
        {
          status,
        },
      );
  }
}

/** Classifies an exception thrown by UrlFetchApp (these throw even with muteHttpExceptions). */
export function interpretFetchException(message: string): ServiceError {
  const text = message.replace(/^Exception:\s*/, '');
  if (/too many times for one day: urlfetch/i.test(text)) {
    return serviceError(
      'quota',
      `Apps Script's daily limit of service calls is used up (${text}). Resume later.`,
      {
        effect: 'pause',
      },
    );
  }
  if (/timeout|timed out/i.test(text)) {
    return serviceError('timeout', `The service did not answer in time (${text}).`, { retryable: true });
  }
  return serviceError('transport', `The service could not be reached (${text}).`, { retryable: true });
}

/** Replaces every occurrence of the key in a text meant for people or logs. */
export function redactKey(text: string, apiKey: string | null | undefined): string {
  if (!apiKey || apiKey.length < 4) return text;
  return text.split(apiKey).join(maskKey(apiKey));
}

/** The only form of a key that ever leaves the user properties: eight dots and the last four characters. */
export function maskKey(apiKey: string): string {
  return `••••••••${apiKey.slice(-4)}`;
}

/** Shape check before a key is stored: printable, no spaces, a plausible length. */
export function checkKeyShape(raw: unknown): { ok: true; key: string } | { ok: false; message: string } {
  if (typeof raw !== 'string') return { ok: false, message: 'Paste your API key.' };
  const key = raw.trim();
  if (key === '') return { ok: false, message: 'Paste your API key.' };
  if (key.length < 8 || key.length > 256) {
    return { ok: false, message: 'That does not look like an API key (expected 8 to 256 characters).' };
  }
  if (!/^[\x21-\x7e]+$/.test(key)) {
    return {
      ok: false,
      message: 'An API key has no spaces or special characters; copy it again from API settings.',
    };
  }
  return { ok: true, key };
}
