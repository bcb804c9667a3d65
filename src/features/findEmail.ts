/** =FINDEMAIL: cached, de-duplicated, parallel lookups inside one custom-function execution. */

import { BULK_CLAIM, claimKey, putClaims, readClaims, releaseClaims } from '../adapters/claims';
import { lookupMany } from '../adapters/http';
import {
  HALT_KEY,
  parseHalt,
  ResultCache,
  readApiKey,
  readHalt,
  readScriptConfig,
  writeHalt,
} from '../adapters/store';
import { SETTINGS_PATH } from '../adapters/ui';
import { fieldValues, parseFields, type RowOutcome, summaryValue } from '../core/cells';
import { stableHash } from '../core/hash';
import type { LookupResult, ServiceError } from '../core/lookup';
import { DEFAULT_RETRY, retryDelayMs } from '../core/retry';
import { type ProfileInput, parseProfileInput } from '../core/url';

// Custom functions must return within 30 seconds
// (https://developers.google.com/apps-script/guides/sheets/functions#guidelines). No request batch starts
// unless, judging by the slowest batch so far, it ends before this; the rest of the 30 s is the margin.
const WORK_BUDGET_MS = 22_000;
/**
 * Until a batch was timed, none starts later than this share of the budget (12 s of 22): a batch may take
 * 10 s or more, and one started after waiting on another cell must still end within the 30 s.
 */
const UNTIMED_START_SHARE = 12 / 22;
const DEFAULT_CONCURRENCY = 20;
/** After a 401 or 402 all formulas of the document stop calling the service this long. */
export const HALT_SECONDS = 120;
// A claim outlives the execution that made it (30 s at most): a claim that expired belongs to an ended
// execution, so taking the URL over never sends it while another cell still waits for its answer.
const CLAIM_SECONDS = 31;
/**
 * While no lookup proved the owner's account works (a charged answer in the last ACCOUNT_OK_SECONDS), one cell
 * at a time (the PROBE_KEY claim) sends a single request first; so after a 401 or 402, or on a sheet whose owner
 * has no credits, hundreds of cells evaluating at once send one failing request, not hundreds.
 */
const ACCOUNT_OK_SECONDS = 600;
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 1000;
const LOCK_WAIT_MS = 5000;
const PROBE_KEY = 'pef.probe';
const ACCOUNT_OK_KEY = 'pef.ok';

type Cell = unknown;

function pending(message: string): ServiceError {
  return { kind: 'error', error: 'timeout', message, retryable: true, effect: 'continue' };
}

const NOT_IN_TIME = pending('Not looked up in time; recalculate to try again.');
const OTHER_CELL = pending(
  'Another cell is still looking this profile up; recalculate in a moment to see the result.',
);
const BULK_RUN = pending(
  'The bulk run (Find e-mails) is looking this profile up; recalculate in a moment to see the result.',
);

function ownerKeyMessage(what: string): string {
  return `${what} =FINDEMAIL uses the API key of the spreadsheet's owner (Apps Script gives formulas the owner's settings). The owner opens ${SETTINGS_PATH} to save a key.`;
}

function accountError(error: ServiceError): Error {
  if (error.error === 'unauthorized') return new Error(ownerKeyMessage(`${error.message}`));
  if (error.error === 'payment_required') {
    return new Error(
      `${error.message} Add credits to the spreadsheet owner's account; formulas try again after ${HALT_SECONDS / 60} minutes.`,
    );
  }
  return new Error(error.message);
}

/** State of one =FINDEMAIL execution. */
interface Run {
  apiKey: string;
  keyHash: string;
  endpoint: string;
  concurrency: number;
  /** No batch starts when now + `slowestMs` is past this. */
  end: number;
  /** While `slowestMs` is unmeasured (0), no batch starts after this. */
  untimedEnd: number;
  slowestMs: number;
  sentFor: Map<string, string>;
  outcomes: Map<string, RowOutcome>;
  cache: ResultCache;
  docCache: GoogleAppsScript.Cache.Cache | null;
}

interface Claim {
  /** Looked up by this execution. */
  mine: string[];
  /** Another cell holds their claim. */
  others: string[];
  /** The bulk run holds their claim: not waited for. */
  bulk: string[];
  /** Free, but another cell is checking the account first. */
  blocked: string[];
  /** This execution checks the account with its first request. */
  probing: boolean;
}

/** `raw`: the HALT_KEY value when the caller read it already together with other keys. */
function throwIfHalted(run: Run, raw?: string): void {
  const halt = raw === undefined ? readHalt(run.apiKey) : parseHalt(raw, run.apiKey);
  if (halt) throw new Error(halt.message);
}

/**
 * Under the document lock: re-reads the result store and the claims, and claims the keys that are neither
 * cached nor claimed. Results are cached before their claim is released, so a key seen unclaimed here is
 * either in the store read after it or really unknown: no two cells pay for one URL.
 * Returns undefined when the lock stays busy.
 */
function claim(run: Run, keys: string[]): Claim | undefined {
  const lock = LockService.getDocumentLock();
  const docCache = run.docCache;
  if (!lock || !docCache) {
    for (const [key, result] of run.cache.getMany(keys)) run.outcomes.set(key, result);
    return {
      mine: keys.filter((key) => !run.outcomes.has(key)),
      others: [],
      bulk: [],
      blocked: [],
      probing: false,
    };
  }
  if (!lock.tryLock(Math.max(0, Math.min(LOCK_WAIT_MS, run.end - Date.now())))) return undefined;
  try {
    const markers = readClaims(docCache, keys, [PROBE_KEY, ACCOUNT_OK_KEY, HALT_KEY]);
    throwIfHalted(run, markers[HALT_KEY] ?? '');
    const bulk = keys.filter((key) => markers[claimKey(key)] === BULK_CLAIM);
    const others = keys.filter((key) => markers[claimKey(key)] && markers[claimKey(key)] !== BULK_CLAIM);
    const unclaimed = keys.filter((key) => !markers[claimKey(key)]);
    for (const [key, result] of run.cache.getMany(unclaimed)) run.outcomes.set(key, result);
    const free = unclaimed.filter((key) => !run.outcomes.has(key));
    const accountOk = markers[ACCOUNT_OK_KEY] === run.keyHash;
    if (free.length > 0 && !accountOk && markers[PROBE_KEY]) {
      return { mine: [], others, bulk, blocked: free, probing: false };
    }
    const probing = free.length > 0 && !accountOk;
    putClaims(docCache, free, '1', CLAIM_SECONDS);
    if (probing) docCache.put(PROBE_KEY, '1', CLAIM_SECONDS);
    return { mine: free, others, bulk, blocked: [], probing };
  } finally {
    lock.releaseLock();
  }
}

/** A batch may start now: it ends in time judging by the slowest so far, or early enough when none was timed. */
function mayStart(run: Run, now: number, waitMs = 0): boolean {
  if (run.slowestMs === 0 && now + waitMs > run.untimedEnd) return false;
  return now + waitMs + run.slowestMs <= run.end;
}

/**
 * Looks the claimed keys up, one fetchAll batch at a time, caching and releasing after every batch, so what
 * was paid for is kept even if the execution is ended later. Retries transient failures in later batches.
 */
function lookUpClaimed(run: Run, keys: string[], probing: boolean): void {
  const queue = keys.slice();
  const tries = new Map<string, number>();
  const notBefore = new Map<string, number>();
  let probeOpen = probing;
  try {
    while (queue.length > 0) {
      const now = Date.now();
      const ready = queue.filter((key) => (notBefore.get(key) ?? 0) <= now);
      if (ready.length === 0) {
        const wait = Math.min(...queue.map((key) => notBefore.get(key) ?? now)) - now;
        if (!mayStart(run, now, wait)) break;
        Utilities.sleep(wait);
        continue;
      }
      if (!mayStart(run, now)) break;
      if (!probeOpen) throwIfHalted(run);
      const batch = ready.slice(0, probeOpen ? 1 : run.concurrency);
      const started = Date.now();
      const report = lookupMany(
        batch.map((key) => run.sentFor.get(key) ?? key),
        {
          apiKey: run.apiKey,
          endpoint: run.endpoint,
          concurrency: batch.length,
          deadline: run.end - run.slowestMs,
          retry: { ...DEFAULT_RETRY, maxAttempts: 1 },
        },
      );
      run.slowestMs = Math.max(run.slowestMs, Date.now() - started);
      const results: Array<[string, LookupResult]> = [];
      const done: string[] = [];
      for (const key of batch) {
        const outcome = report.outcomes.get(run.sentFor.get(key) ?? key);
        const attempt = (tries.get(key) ?? 0) + 1;
        tries.set(key, attempt);
        if (outcome) run.outcomes.set(key, outcome);
        if (outcome?.kind === 'error' && outcome.retryable && attempt < DEFAULT_RETRY.maxAttempts) {
          notBefore.set(key, Date.now() + retryDelayMs(DEFAULT_RETRY, attempt + 1));
          continue;
        }
        if (outcome && outcome.kind !== 'error') results.push([key, outcome]);
        done.push(key);
      }
      run.cache.putMany(results);
      releaseClaims(run.docCache, done);
      for (const key of done) queue.splice(queue.indexOf(key), 1);
      if (probeOpen) {
        if (results.length > 0) run.docCache?.put(ACCOUNT_OK_KEY, run.keyHash, ACCOUNT_OK_SECONDS);
        run.docCache?.remove(PROBE_KEY);
        probeOpen = false;
      }
      if (report.halt) {
        const error = accountError(report.halt);
        if (report.halt.error === 'unauthorized' || report.halt.error === 'payment_required') {
          writeHalt(run.apiKey, error.message, HALT_SECONDS);
          run.docCache?.remove(ACCOUNT_OK_KEY);
        }
        throw error;
      }
    }
  } finally {
    releaseClaims(run.docCache, queue);
    if (probeOpen) run.docCache?.remove(PROBE_KEY);
  }
}

/**
 * Waits (bounded by the budget) until a key another cell holds is released or the account check ends.
 * Returns the keys still without a result.
 */
function awaitOthers(run: Run, others: string[], blocked: string[]): string[] {
  let poll = POLL_FIRST_MS;
  while (Date.now() + poll < run.end) {
    Utilities.sleep(poll);
    poll = Math.min(POLL_MAX_MS, poll * 2);
    if (!run.docCache) break;
    const markers = readClaims(run.docCache, others, [PROBE_KEY, ACCOUNT_OK_KEY, HALT_KEY]);
    throwIfHalted(run, markers[HALT_KEY] ?? '');
    const freed = others.filter((key) => !markers[claimKey(key)]);
    const unblocked = blocked.length > 0 && (!markers[PROBE_KEY] || markers[ACCOUNT_OK_KEY] === run.keyHash);
    if (freed.length === 0 && !unblocked) continue;
    for (const [key, result] of run.cache.getMany(freed)) run.outcomes.set(key, result);
    break;
  }
  return [...others, ...blocked].filter((key) => !run.outcomes.has(key));
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
  const sentFor = new Map<string, string>();
  for (const input of inputs)
    if (input.kind === 'url' && !sentFor.has(input.key)) sentFor.set(input.key, input.sent);
  // The FINDEMAIL_BUDGET_MS script property lowers the budget, never above WORK_BUDGET_MS.
  const budgetMs = Math.min(WORK_BUDGET_MS, config.findEmailBudgetMs ?? WORK_BUDGET_MS);
  const run: Run = {
    apiKey,
    keyHash: stableHash(apiKey),
    endpoint: config.endpoint.endpoint,
    concurrency: config.concurrency ?? DEFAULT_CONCURRENCY,
    end: started + budgetMs,
    untimedEnd: started + Math.round(budgetMs * UNTIMED_START_SHARE),
    slowestMs: 0,
    sentFor,
    outcomes,
    cache,
    docCache: CacheService.getDocumentCache(),
  };
  throwIfHalted(run);
  const heldByOthers = new Set<string>();
  const heldByBulk = new Set<string>();
  while (missing.length > 0 && mayStart(run, Date.now())) {
    const claimed = claim(run, missing);
    for (const key of claimed?.mine ?? []) heldByOthers.delete(key);
    for (const key of claimed?.bulk ?? []) heldByBulk.add(key);
    missing = missing.filter((key) => !heldByBulk.has(key));
    if (claimed?.mine.length) lookUpClaimed(run, claimed.mine, claimed.probing);
    const others = claimed ? claimed.others : [];
    const blocked = claimed ? claimed.blocked : missing;
    for (const key of others) heldByOthers.add(key);
    if (others.length === 0 && blocked.length === 0) break;
    missing = awaitOthers(run, others, blocked);
  }
  for (const key of keys) {
    if (outcomes.has(key)) continue;
    outcomes.set(key, heldByBulk.has(key) ? BULK_RUN : heldByOthers.has(key) ? OTHER_CELL : NOT_IN_TIME);
  }
  return outcomes;
}

function outcomeFor(input: ProfileInput, outcomes: Map<string, RowOutcome>): RowOutcome | { kind: 'empty' } {
  if (input.kind === 'empty') return input;
  if (input.kind === 'invalid') return { kind: 'invalid', reason: input.reason };
  return outcomes.get(input.key) ?? NOT_IN_TIME;
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
  const hosts = readScriptConfig().networkHosts;
  const inputs = grid.map((row) => row.map((cell) => parseProfileInput(cell, hosts)));
  const outcomes = resolveAll(inputs.flat());
  if (fields.fields) {
    const chosen = fields.fields;
    return inputs.map((row) => fieldValues(outcomeFor(row[0], outcomes), chosen));
  }
  const values = inputs.map((row) => row.map((input) => summaryValue(outcomeFor(input, outcomes))));
  return isRange ? values : values[0][0];
}
