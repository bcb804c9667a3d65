/** =FINDEMAIL: cached, de-duplicated, parallel lookups inside one custom-function execution. */

import { lookupMany } from '../adapters/http';
import { ResultCache, readApiKey, readHalt, readScriptConfig, writeHalt } from '../adapters/store';
import { SETTINGS_PATH } from '../adapters/ui';
import { fieldValues, parseFields, type RowOutcome, summaryValue } from '../core/cells';
import { stableHash } from '../core/hash';
import type { LookupResult, ServiceError } from '../core/lookup';
import { DEFAULT_RETRY } from '../core/retry';
import { type ProfileInput, parseProfileInput } from '../core/url';

// Custom functions must return within 30 seconds
// (https://developers.google.com/apps-script/guides/sheets/functions#guidelines). Stop starting work after this.
const WORK_BUDGET_MS = 22_000;
const DEFAULT_CONCURRENCY = 20;
/** After a 401 or 402 all formulas of the document stop calling the service this long. */
export const HALT_SECONDS = 120;
/** Another cell already looking a URL up holds a claim this long at most. */
const CLAIM_SECONDS = 25;
const POLL_MS = 500;
const CLAIM_PREFIX = 'pef.claim.';

type Cell = unknown;

function ownerKeyMessage(what: string): string {
  return `${what} =FINDEMAIL uses the API key of the spreadsheet's owner (Apps Script gives formulas the owner's settings). The owner saves a key in ${SETTINGS_PATH}.`;
}

function accountError(error: ServiceError): Error {
  if (error.error === 'unauthorized') return new Error(ownerKeyMessage(`${error.message}`));
  if (error.error === 'payment_required') {
    return new Error(
      `${error.message} Add credits to the owner's account; formulas retry after ${HALT_SECONDS / 60} minutes.`,
    );
  }
  return new Error(error.message);
}

/**
 * Claims the URLs no other running cell is looking up (document lock + document cache),
 * so cells evaluating at once on a cold cache do not send the same URL twice.
 */
function claim(keys: string[]): { mine: string[]; others: string[] } {
  const cache = CacheService.getDocumentCache();
  const lock = LockService.getDocumentLock();
  if (!cache || !lock?.tryLock(3000)) return { mine: keys, others: [] };
  try {
    const claimKeys = keys.map((key) => CLAIM_PREFIX + stableHash(key));
    const held = cache.getAll(claimKeys);
    const mine = keys.filter((_, index) => !held[claimKeys[index]]);
    const others = keys.filter((_, index) => Boolean(held[claimKeys[index]]));
    const claims: Record<string, string> = {};
    for (const key of mine) claims[CLAIM_PREFIX + stableHash(key)] = '1';
    if (mine.length) cache.putAll(claims, CLAIM_SECONDS);
    return { mine, others };
  } finally {
    lock.releaseLock();
  }
}

function release(keys: string[]): void {
  if (keys.length)
    CacheService.getDocumentCache()?.removeAll(keys.map((key) => CLAIM_PREFIX + stableHash(key)));
}

/** Waits (bounded) for results other cells are fetching; returns what arrived. */
function awaitOthers(keys: string[], cache: ResultCache, until: number): Map<string, LookupResult> {
  const arrived = new Map<string, LookupResult>();
  let waiting = keys.slice();
  while (waiting.length > 0 && Date.now() + POLL_MS < until) {
    Utilities.sleep(POLL_MS);
    const found = cache.getMany(waiting);
    for (const [key, result] of found) arrived.set(key, result);
    waiting = waiting.filter((key) => !found.has(key));
    if (waiting.length === 0) break;
    const claimsLeft = CacheService.getDocumentCache()?.getAll(
      waiting.map((key) => CLAIM_PREFIX + stableHash(key)),
    );
    if (claimsLeft && Object.keys(claimsLeft).length === 0) break; // the other cell gave up: look them up here
  }
  return arrived;
}

function resolveAll(inputs: ProfileInput[]): Map<string, RowOutcome> {
  const started = Date.now();
  const outcomes = new Map<string, RowOutcome>();
  const keys = [...new Set(inputs.flatMap((input) => (input.kind === 'url' ? [input.key] : [])))];
  if (keys.length === 0) return outcomes;
  const config = readScriptConfig();
  if (!config.endpoint.ok) throw new Error(config.endpoint.message);
  const cache = new ResultCache();
  for (const [key, result] of cache.getMany(keys)) outcomes.set(key, result);
  let missing = keys.filter((key) => !outcomes.has(key));
  if (missing.length === 0) return outcomes;

  const apiKey = readApiKey();
  if (!apiKey) throw new Error(ownerKeyMessage('No API key is saved for the owner of this spreadsheet.'));
  const halt = readHalt(apiKey);
  if (halt) throw new Error(halt.message);

  const { mine, others } = claim(missing);
  const sentFor = new Map<string, string>();
  for (const input of inputs)
    if (input.kind === 'url' && !sentFor.has(input.key)) sentFor.set(input.key, input.sent);
  const lookUp = (lookupKeys: string[]) => {
    const report = lookupMany(
      lookupKeys.map((key) => sentFor.get(key)!),
      {
        apiKey,
        endpoint: config.endpoint.ok ? config.endpoint.endpoint : '',
        concurrency: config.concurrency ?? DEFAULT_CONCURRENCY,
        deadline: started + WORK_BUDGET_MS,
        retry: DEFAULT_RETRY,
      },
    );
    const results: Array<[string, LookupResult]> = [];
    for (const key of lookupKeys) {
      const outcome = report.outcomes.get(sentFor.get(key)!);
      if (!outcome) continue;
      outcomes.set(key, outcome);
      if (outcome.kind !== 'error') results.push([key, outcome]);
    }
    cache.putMany(results);
    if (report.halt) {
      const error = accountError(report.halt);
      if (report.halt.error === 'unauthorized' || report.halt.error === 'payment_required') {
        writeHalt(apiKey, error.message, HALT_SECONDS);
      }
      throw error;
    }
  };
  try {
    lookUp(mine);
  } finally {
    release(mine);
  }
  if (others.length) {
    for (const [key, result] of awaitOthers(others, cache, started + WORK_BUDGET_MS / 2))
      outcomes.set(key, result);
    missing = others.filter((key) => !outcomes.has(key));
    if (missing.length) lookUp(missing);
  }
  return outcomes;
}

function outcomeFor(input: ProfileInput, outcomes: Map<string, RowOutcome>): RowOutcome | { kind: 'empty' } {
  if (input.kind === 'empty') return input;
  if (input.kind === 'invalid') return { kind: 'invalid', reason: input.reason };
  return (
    outcomes.get(input.key) ?? {
      kind: 'error',
      error: 'timeout',
      message: 'Not looked up in time; recalculate to try again.',
      retryable: true,
      effect: 'continue',
    }
  );
}

/** The custom function's body: a single value or a 2-D range, with optional output fields. */
export function findEmail(value: Cell | Cell[][], fieldsSpec?: unknown): unknown {
  const fields = parseFields(fieldsSpec);
  if (!fields.ok) throw new Error(fields.message);
  const isRange = Array.isArray(value);
  const grid: Cell[][] = isRange
    ? (value as Cell[][]).map((row) => (Array.isArray(row) ? row : [row]))
    : [[value]];
  if (fields.fields && grid.some((row) => row.length > 1)) {
    throw new Error('With output fields, give a single column of URLs (e.g. A2:A100).');
  }
  const inputs = grid.map((row) => row.map(parseProfileInput));
  const outcomes = resolveAll(inputs.flat());
  if (fields.fields) {
    const chosen = fields.fields;
    return inputs.map((row) => fieldValues(outcomeFor(row[0], outcomes), chosen));
  }
  const values = inputs.map((row) => row.map((input) => summaryValue(outcomeFor(input, outcomes))));
  return isRange ? values : values[0][0];
}
