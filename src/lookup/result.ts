/** What a lookup answers, the key check's verdict, and the bounds on every kept field (src/core/limits.ts). */
import { FIELD_LIMITS } from '../core/limits';
import { quoteService, withoutStop } from '../core/text';

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
/** A 200 off the contract, or a lost answer: maybe charged, so kept like a result (bought again only if asked). */
export type Unusable = { kind: 'unusable'; lost: boolean; message: string; profile: ProfileInfo };
/** What the service may have charged a credit for. */
export type LookupResult = Found | NotFound | Unprocessable | Unusable;

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

/** What a whole run does after the error. */
export type RunEffect = 'continue' | 'pause' | 'stop';

export interface ServiceError {
  kind: 'error';
  error: ErrorKind;
  status?: number;
  message: string;
  retryable: boolean;
  effect: RunEffect;
  retryAfterMs?: number;
  /** The service's own words, quoted at the end of `message`. */
  said?: string;
}

/** Our words, then `advice`, then the service's own words quoted once. */
export function withAdvice(error: Pick<ServiceError, 'message' | 'said'>, advice: string): string {
  const at = error.said === undefined ? -1 : error.message.lastIndexOf(QUOTE_START);
  if (at < 0) return `${error.message} ${advice}`;
  return `${error.message.slice(0, at)} ${advice}${error.message.slice(at)}`;
}

const QUOTE_START = ' The service said: "';

export type LookupOutcome = LookupResult | ServiceError;

export const CUT_MARKER = '…';

/** Never cuts a surrogate pair in half. */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit - CUT_MARKER.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + CUT_MARKER;
}

export function boundResult(result: LookupResult): LookupResult {
  const { name, updatedAt } = result.profile;
  const profile: ProfileInfo = {};
  if (name !== undefined) profile.name = cut(name, FIELD_LIMITS.name);
  if (updatedAt !== undefined) profile.updatedAt = cut(updatedAt, FIELD_LIMITS.updatedAt);
  if (result.kind === 'not_found') return { kind: 'not_found', profile };
  if (result.kind !== 'found')
    return { ...result, message: cut(result.message, FIELD_LIMITS.message), profile };
  return {
    ...result,
    email: cut(result.email, FIELD_LIMITS.email),
    emailStatus: cut(result.emailStatus, FIELD_LIMITS.status),
    accountType: cut(result.accountType, FIELD_LIMITS.status),
    profile,
  };
}

export type KeyCheck = { valid: true } | { valid: false; message: string } | ServiceError;

export function serviceError(
  error: ErrorKind,
  message: string,
  options: { status?: number; retryable?: boolean; effect?: RunEffect; said?: string } = {},
): ServiceError {
  const outcome: ServiceError = {
    kind: 'error',
    error,
    status: options.status,
    message: `${message}${quoteService(options.said)}`,
    retryable: options.retryable ?? false,
    effect: options.effect ?? 'continue',
  };
  if (options.said && quoteService(options.said)) outcome.said = options.said;
  return outcome;
}

function unusable(lost: boolean, message: string): LookupResult {
  return boundResult({ kind: 'unusable', lost, message, profile: {} });
}

export function unusableAnswer(reason: string): LookupResult {
  return unusable(
    false,
    `The service answered HTTP 200 without a usable result (${reason}); it may have charged a credit.`,
  );
}

export function lostAnswer(cause: string): LookupResult {
  const stated = withoutStop(cause);
  const why = stated.charAt(0).toLowerCase() + stated.slice(1);
  return unusable(true, `The answer was lost on the way: ${why}; the service may have charged a credit.`);
}
