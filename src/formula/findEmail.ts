/** =FINDEMAIL: stored, de-duplicated, parallel lookups inside one custom-function execution. */

import { systemClock } from '../adapters/clock';
import { documentLockRefused } from '../adapters/lock';
import { servicePorts } from '../adapters/ports';
import { readCachedScriptConfig } from '../adapters/scriptConfig';
import { fieldValues, parseFields, type RowOutcome, summaryValue } from '../core/cells';
import {
  DEFAULT_RETRY,
  FORMULA_CLAIM_SECONDS,
  FORMULA_KEY_CHECK_ABOVE,
  POLL_FIRST_MS,
  POLL_MAX_MS,
} from '../core/limits';
import { REFRESH_PATH } from '../core/product';
import { HALT_KEY } from '../core/propertyNames';
import { isPropertiesQuotaError, PROPERTIES_QUOTA_MESSAGE } from '../core/quota';
import { type ProfileInput, parseProfileInput } from '../core/url';
import {
  ACCOUNT_CHECK_MARKERS,
  accountCheckOver,
  dropAccountCheck,
  endAccountCheck,
} from '../lookup/accountCheck';
import { fixedBatchSize } from '../lookup/budget';
import { BULK_CLAIM, claimKey, FORMULA_CLAIM, readClaims, releaseClaims } from '../lookup/claims';
import { checkKeyFirst } from '../lookup/keyCheck';
import { knowsNothing } from '../lookup/pace';
import {
  type Claimed,
  claimUnknown,
  endSending,
  type SendReport,
  type SendRequest,
  sendBatches,
  startSending,
} from '../lookup/pipeline';
import { giveBackFormulaCredits, reserveFormulaCredits } from './dailyLimit';
import { fromStore, haltFormulas, PACE_SCOPE, type Run, startRun, throwIfHalted } from './execution';
import { accountError, BULK_RUN, LOCK_BUSY, NO_WRITES, NOT_IN_TIME, OTHER_CELL, UNSAVED } from './messages';
import { formulasMayWrite } from './writeCheck';

type Cell = unknown;

/**
 * Claims the keys neither stored nor claimed, one cell at a time checking the owner's account first while no lookup
 * proved it works (src/lookup/accountCheck.ts). Undefined when the lock stays busy.
 */
function claim(run: Run, keys: string[]): Claimed | undefined {
  const claimed = claimUnknown(run.ports, {
    keys,
    value: FORMULA_CLAIM,
    seconds: FORMULA_CLAIM_SECONDS,
    deadline: run.budget.end,
    accountCheck: { apiKey: run.apiKey },
    inStore: (unclaimed) => fromStore(run, unclaimed),
  });
  if (claimed?.halt) throw new Error(claimed.halt.message);
  return claimed;
}

/**
 * Before the first paced batch of `count` new URLs, the free key check when the formula pace knows nothing and the
 * range holds more than FORMULA_KEY_CHECK_ABOVE of them (src/lookup/keyCheck.ts). A 401, 404 or redirect
 * it meets is the cells' message: the claims are released and nothing is paid.
 */
function checkKeyBeforeRange(run: Run, count: number, claimed: string[]): void {
  const pacer = run.pacer;
  if (!pacer) return;
  pacer.runRows = count;
  if (!knowsNothing(pacer.state) || count <= FORMULA_KEY_CHECK_ABOVE) return;
  const halt = checkKeyFirst(run.ports, pacer, run, run.budget);
  if (!halt) return;
  haltFormulas(run, halt);
  releaseClaims(run.ports.cache, claimed);
  throw accountError(halt);
}

/**
 * Looks the claimed keys up through the pipeline; after a 401 or 402 every formula of the document pauses.
 * Checking the account, the first key goes alone (past the halt marker it was admitted by); its answer ends the
 * check, then the rest go at the run's pace, each batch after a read of the halt marker. Returns the keys another
 * execution turned out to be sending (to wait for).
 */
function lookUpClaimed(run: Run, keys: string[], checkingAccount: boolean): string[] {
  const cache = run.ports.cache;
  let checkOpen = checkingAccount;
  try {
    if (!checkingAccount) checkKeyBeforeRange(run, keys.length, keys);
    const paced: SendRequest = {
      claimed: new Map(keys.map((key) => [key, run.sentFor.get(key) ?? key])),
      apiKey: run.apiKey,
      endpoint: run.endpoint,
      retry: DEFAULT_RETRY,
      holdSeconds: FORMULA_CLAIM_SECONDS,
      batchSize: run.sizer,
      budget: run.budget,
      haltFor: run.apiKey,
    };
    const alone: SendRequest = { ...paced, batchSize: fixedBatchSize(1), haltFor: undefined };
    const sending = startSending(checkingAccount ? alone : paced);
    let report: SendReport;
    try {
      let more = true;
      if (checkingAccount) {
        const [check] = sendBatches(run.ports, alone, sending, 1);
        if (check) {
          endAccountCheck(cache, run.apiKey, check.stored.length > 0);
          checkOpen = false;
          if (!check.halt) checkKeyBeforeRange(run, keys.length - 1, keys);
        }
        more = check !== undefined && !check.halt;
      }
      if (more) sendBatches(run.ports, paced, sending);
      if (sending.report.halt) haltFormulas(run, sending.report.halt);
    } finally {
      report = endSending(run.ports, sending);
    }
    if (report.haltedElsewhere) throw new Error(report.haltedElsewhere.message);
    for (const [key, outcome] of report.outcomes) run.outcomes.set(key, outcome);
    for (const [key, result] of report.alreadyKept ?? []) run.outcomes.set(key, result);
    for (const key of report.unsaved ?? []) run.outcomes.set(key, UNSAVED);
    if (report.halt) throw accountError(report.halt);
    return report.elsewhere ?? [];
  } finally {
    if (checkOpen) dropAccountCheck(cache);
    run.pacer?.save(cache, PACE_SCOPE);
  }
}

/**
 * The owner's daily cap for formulas (src/formula/dailyLimit.ts): only what is reserved is sent; the other
 * claimed keys are released and their cells say so, for free. What was reserved but not charged is given back.
 */
/** Looks up the keys the day's formula limit allows; returns the keys another execution is sending. */
function lookUpWithinCap(run: Run, keys: string[], checkingAccount: boolean): string[] {
  const reservation = reserveFormulaCredits(run.ports, keys.length, run.budget.end);
  const granted = reservation?.granted ?? 0;
  const allowed = keys.slice(0, granted);
  const refused = keys.slice(granted);
  if (refused.length > 0) {
    releaseClaims(run.ports.cache, refused);
    const outcome = reservation?.refusal ?? NOT_IN_TIME;
    for (const key of refused) run.outcomes.set(key, outcome);
  }
  if (allowed.length === 0) {
    if (checkingAccount) dropAccountCheck(run.ports.cache);
    return [];
  }
  try {
    return lookUpClaimed(run, allowed, checkingAccount);
  } finally {
    const charged = allowed.filter((key) => {
      const outcome = run.outcomes.get(key);
      return outcome !== undefined && outcome.kind !== 'error';
    }).length;
    giveBackFormulaCredits(run.ports, allowed.length - charged);
  }
}

/**
 * Waits (bounded by the budget) until a key another cell holds is released or the account check ends.
 * Returns the keys still without a result.
 */
function awaitOthers(run: Run, others: string[], blocked: string[]): string[] {
  const { cache, clock } = run.ports;
  let poll = POLL_FIRST_MS;
  while (run.budget.remainingMs(clock.now()) > poll) {
    clock.sleep(poll);
    poll = Math.min(POLL_MAX_MS, poll * 2);
    if (!cache) break;
    const markers = readClaims(cache, others, ACCOUNT_CHECK_MARKERS);
    throwIfHalted(run, markers[HALT_KEY] ?? '');
    const freed = others.filter((key) => !markers[claimKey(key)]);
    const unblocked = blocked.length > 0 && accountCheckOver(markers, run.apiKey);
    if (freed.length === 0 && !unblocked) continue;
    fromStore(run, freed);
    break;
  }
  return [...others, ...blocked].filter((key) => !run.outcomes.has(key));
}

/** Whatever fails, the claims taken are released: a failed formula never leaves a bulk run waiting. */
function lookUpClaimedOrRelease(run: Run, claimed: Claimed): string[] {
  try {
    return lookUpWithinCap(run, claimed.mine, claimed.checksAccount);
  } catch (error) {
    releaseClaims(run.ports.cache, claimed.mine);
    if (claimed.checksAccount) dropAccountCheck(run.ports.cache);
    throw error;
  }
}

function resolveAll(inputs: ProfileInput[]): Map<string, RowOutcome> {
  const started = systemClock.now();
  const outcomes = new Map<string, RowOutcome>();
  const keys = [...new Set(inputs.flatMap((input) => (input.kind === 'url' ? [input.key] : [])))];
  if (keys.length === 0) return outcomes;
  const config = readCachedScriptConfig();
  if (!config.endpoint.ok) throw new Error(config.endpoint.message);
  const ports = servicePorts();
  for (const [key, result] of ports.store.getMany(keys)) outcomes.set(key, result);
  let missing = keys.filter((key) => !outcomes.has(key));
  if (missing.length === 0) return outcomes;
  if (!formulasMayWrite(ports)) {
    for (const key of missing) outcomes.set(key, NO_WRITES);
    return outcomes;
  }

  const run = startRun(ports, config.endpoint.endpoint, inputs, outcomes, started);
  throwIfHalted(run);
  const heldByOthers = new Set<string>();
  const heldByBulk = new Set<string>();
  while (missing.length > 0 && run.budget.mayStart(ports.clock.now())) {
    const claimed = claim(run, missing);
    const others: string[] = [];
    for (const key of claimed?.mine ?? []) heldByOthers.delete(key);
    for (const [key, holder] of claimed?.heldBy ?? []) {
      if (holder === BULK_CLAIM) heldByBulk.add(key);
      else others.push(key);
    }
    for (const key of claimed?.unsaved ?? []) outcomes.set(key, UNSAVED);
    missing = missing.filter((key) => !heldByBulk.has(key) && !outcomes.has(key));
    if (claimed?.mine.length) others.push(...lookUpClaimedOrRelease(run, claimed));
    const blocked = claimed ? claimed.blocked : missing;
    for (const key of others) heldByOthers.add(key);
    if (others.length === 0 && blocked.length === 0) break;
    missing = awaitOthers(run, others, blocked);
  }
  for (const key of keys) {
    if (outcomes.has(key)) continue;
    const notLookedUp = documentLockRefused() ? LOCK_BUSY : NOT_IN_TIME;
    outcomes.set(key, heldByBulk.has(key) ? BULK_RUN : heldByOthers.has(key) ? OTHER_CELL : notLookedUp);
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
    const hosts = readCachedScriptConfig().networkHosts;
    inputs = grid.map((row) => row.map((cell) => parseProfileInput(cell, hosts)));
    outcomes = resolveAll(inputs.flat());
  } catch (error) {
    // Apps Script's daily properties quota: a clear message, not the service's bare one.
    if (isPropertiesQuotaError(error))
      throw new Error(`${PROPERTIES_QUOTA_MESSAGE} Then use ${REFRESH_PATH}.`);
    throw error;
  }
  if (fields.fields) {
    const chosen = fields.fields;
    return inputs.map((row) => fieldValues(outcomeFor(row[0], outcomes), chosen));
  }
  const values = inputs.map((row) => row.map((input) => summaryValue(outcomeFor(input, outcomes))));
  return isRange ? values : values[0][0];
}
