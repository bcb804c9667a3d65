/**
 * =FINDEMAIL: parse the input, look up through a session (src/lookup/session.ts: claims, gates, sending, all
 * released and ended there), wait for other cells' answers, render.
 */

import { parseFields } from '../core/cells';
import { FORMULA_LOCK_PAUSE_MS, POLL_FIRST_MS, POLL_MAX_MS } from '../core/limits';
import { REFRESH_PATH } from '../core/product';
import { HALT_KEY } from '../core/propertyNames';
import { isPropertiesQuotaError, propertiesQuotaMessage } from '../core/quota';
import { type ProfileInput, parseProfileInput } from '../core/url';
import { ACCOUNT_CHECK_MARKERS, accountCheckOver } from '../lookup/accountCheck';
import { fieldValues, type RowOutcome, summaryValue } from '../lookup/cellValues';
import { BULK_CLAIM, claimKey, parseHalt, readClaims } from '../lookup/claims';
import { type LookupReport, type LookupSession, openLookup } from '../lookup/session';
import type { Platform } from '../platform/platform';
import { type FormulaExecution, formulaLookupPolicy, fromStore, startFormulaExecution } from './execution';
import { accountError, BULK_RUN, LOCK_BUSY, NO_WRITES, NOT_IN_TIME, OTHER_CELL, UNSAVED } from './messages';
import { formulasMayWrite } from './writeCheck';

type Cell = unknown;

/**
 * Waits (bounded by the budget) until a key another cell holds is released or the account check ends.
 * Returns the keys still without a result.
 */
function awaitOthers(execution: FormulaExecution, others: string[], blocked: string[]): string[] {
  const { cache, clock } = execution.ports;
  let poll = POLL_FIRST_MS;
  while (execution.budget.remainingMs(clock.now()) > poll) {
    clock.sleep(poll);
    poll = Math.min(POLL_MAX_MS, poll * 2);
    if (!cache) break;
    const markers = readClaims(cache, others, ACCOUNT_CHECK_MARKERS);
    const halt = parseHalt(markers[HALT_KEY], execution.apiKey);
    if (halt) throw new Error(halt.message);
    const freed = others.filter((key) => !markers[claimKey(key)]);
    const unblocked = blocked.length > 0 && accountCheckOver(markers, execution.apiKey);
    if (freed.length === 0 && !unblocked) continue;
    fromStore(execution, freed);
    break;
  }
  return [...others, ...blocked].filter((key) => !execution.outcomes.has(key));
}

/** What a lookup brought: its outcomes kept, and what the cells wait for (other cells', the bulk run's). */
interface Waiting {
  others: string[];
  byBulk: string[];
}

function take(execution: FormulaExecution, report: LookupReport): Waiting {
  for (const [key, outcome] of report.outcomes) execution.outcomes.set(key, outcome);
  for (const [key, result] of report.alreadyKept) execution.outcomes.set(key, result);
  for (const key of report.unsaved) execution.outcomes.set(key, UNSAVED);
  if (report.stop) throw new Error(report.stop.message);
  if (report.halt) throw accountError(report.halt);
  const byBulk: string[] = [];
  const others = [...report.elsewhere];
  for (const [key, holder] of report.heldBy) (holder === BULK_CLAIM ? byBulk : others).push(key);
  return { others, byBulk };
}

/**
 * After the document lock was busy or refused for the `refusals`-th time: a pause of FORMULA_LOCK_PAUSE_MS, doubled
 * at each refusal, times a random factor from 1 to 2, when the budget has room for it and a lookup after it. False
 * when it has not. Doubling keeps a column's retries from adding to the LockService rate quota that refused them
 * (its refusal has no documented duration).
 */
function pauseForLock(execution: FormulaExecution, refusals: number): boolean {
  const { clock } = execution.ports;
  const pause = Math.round(FORMULA_LOCK_PAUSE_MS * 2 ** Math.min(refusals - 1, 4) * (1 + Math.random()));
  if (execution.budget.remainingMs(clock.now()) <= 2 * pause) return false;
  clock.sleep(pause);
  return true;
}

/** Looks the missing keys up, waiting for other cells' claims (and a busy or refused lock) while the budget allows. */
function lookUpMissing(execution: FormulaExecution, session: LookupSession, keys: string[]): void {
  const { clock } = execution.ports;
  const heldByOthers = new Set<string>();
  const heldByBulk = new Set<string>();
  let lockBusy = false;
  let lockRefusals = 0;
  let missing = keys;
  while (missing.length > 0 && execution.budget.mayStart(clock.now())) {
    const report = session.lookUp(
      new Map(missing.map((key) => [key, execution.spellingSent.get(key) ?? key])),
    );
    const waiting = take(execution, report);
    for (const key of waiting.byBulk) heldByBulk.add(key);
    for (const key of waiting.others) heldByOthers.add(key);
    lockBusy = report.lockBusy;
    missing = missing.filter((key) => !execution.outcomes.has(key));
    // A busy or refused lock: the lookup goes again after a pause, as the quota's window passes.
    if (lockBusy) {
      lockRefusals++;
      if (!pauseForLock(execution, lockRefusals)) break;
      continue;
    }
    const blocked = report.blocked;
    if (waiting.others.length === 0 && blocked.length === 0) break;
    missing = awaitOthers(execution, waiting.others, blocked);
  }
  for (const key of keys) {
    if (execution.outcomes.has(key)) continue;
    const notLookedUp = lockBusy ? LOCK_BUSY : NOT_IN_TIME;
    execution.outcomes.set(
      key,
      heldByBulk.has(key) ? BULK_RUN : heldByOthers.has(key) ? OTHER_CELL : notLookedUp,
    );
  }
}

function resolveAll(platform: Platform, inputs: ProfileInput[]): Map<string, RowOutcome> {
  const started = platform.clock.now();
  const outcomes = new Map<string, RowOutcome>();
  const keys = [...new Set(inputs.flatMap((input) => (input.kind === 'url' ? [input.key] : [])))];
  if (keys.length === 0) return outcomes;
  const config = platform.cachedConfig();
  if (!config.endpoint.ok) throw new Error(config.endpoint.message);
  const ports = platform.lookupPorts(false);
  const stored = ports.store.readStored(keys);
  for (const [key, result] of stored.results) outcomes.set(key, result);
  const missing = keys.filter((key) => !outcomes.has(key));
  if (missing.length === 0) return outcomes;
  if (!formulasMayWrite(platform, ports, stored)) {
    for (const key of missing) outcomes.set(key, NO_WRITES);
    return outcomes;
  }
  const execution = startFormulaExecution(
    platform,
    ports,
    config.endpoint.endpoint,
    inputs,
    outcomes,
    started,
    stored,
  );
  const session = openLookup(ports, formulaLookupPolicy(platform, execution));
  try {
    lookUpMissing(execution, session, missing);
  } finally {
    session.close();
  }
  return outcomes;
}

function outcomeFor(input: ProfileInput, outcomes: Map<string, RowOutcome>): RowOutcome | { kind: 'empty' } {
  if (input.kind === 'empty') return input;
  if (input.kind === 'invalid') return { kind: 'invalid', reason: input.reason };
  return outcomes.get(input.key) ?? NOT_IN_TIME;
}

/** The custom function's body: a single value or a 2-D range, with optional output fields. */
export function findEmail(platform: Platform, value: Cell | Cell[][], fieldsSpec?: unknown): unknown {
  // A referenced empty cell arrives as ""; no argument at all arrives as undefined.
  if (value === undefined) {
    throw new Error(
      'Give =FINDEMAIL a profile URL or the cell holding one, e.g. =FINDEMAIL(A2), or a column: =FINDEMAIL(A2:A200).',
    );
  }
  const fields = parseFields(fieldsSpec);
  if (!fields.ok) throw new Error(fields.message);
  const isRange = Array.isArray(value);
  const grid: Cell[][] = isRange
    ? (value as Cell[][]).map((row) => (Array.isArray(row) ? row : [row]))
    : [[value]];
  if (fields.fields && grid.some((row) => row.length > 1)) {
    throw new Error('With output fields, give a single column of URLs (e.g. A2:A100).');
  }
  let outcomes: Map<string, RowOutcome>;
  let inputs: ProfileInput[][];
  try {
    const hosts = platform.cachedConfig().networkHosts;
    inputs = grid.map((row) => row.map((cell) => parseProfileInput(cell, hosts)));
    outcomes = resolveAll(platform, inputs.flat());
  } catch (error) {
    // Apps Script's daily properties quota: a clear message, not the service's bare one.
    if (isPropertiesQuotaError(error))
      throw new Error(`${propertiesQuotaMessage(error)} Then use ${REFRESH_PATH}.`);
    throw error;
  }
  if (fields.fields) {
    const chosen = fields.fields;
    return inputs.map((row) => fieldValues(outcomeFor(row[0], outcomes), chosen));
  }
  const values = inputs.map((row) => row.map((input) => summaryValue(outcomeFor(input, outcomes))));
  return isRange ? values : values[0][0];
}
