/**
 * The state of one =FINDEMAIL execution (./findEmail.ts): the owner's key, the budget, the pace, the outcomes, and
 * the lookup session's policy built from them.
 */

import {
  DEFAULT_CONCURRENCY,
  DEFAULT_RETRY,
  FORMULA_CLAIM_SECONDS,
  FORMULA_KEY_CHECK_ABOVE,
  FORMULA_UNTIMED_START_SHARE,
  FORMULA_WORK_BUDGET_MS,
  MAX_BATCH_SIZE,
} from '../core/limits';
import { PACE_PREFIX, PACE_SCOPES } from '../core/propertyNames';
import type { ProfileInput } from '../core/url';
import { FormulaBudget, fixedBatchSize } from '../lookup/budget';
import type { RowOutcome } from '../lookup/cellValues';
import { FORMULA_CLAIM } from '../lookup/claims';
import type { Gate } from '../lookup/gate';
import { keyCheckGate } from '../lookup/keyCheck';
import { openPace, type PaceStep } from '../lookup/paceStep';
import type { LookupPorts, SendBudget, StoreRead } from '../lookup/ports';
import type { ServiceError } from '../lookup/result';
import type { LookupPolicy } from '../lookup/session';
import type { Platform } from '../platform/platform';
import { formulaSpendGate } from './dailyLimit';
import { accountCheckGate, haltFormulas, haltGate } from './gates';
import { ownerKeyMessage } from './messages';

/** State of one =FINDEMAIL execution. */
export interface FormulaExecution {
  ports: LookupPorts;
  apiKey: string;
  endpoint: string;
  /** The document's kept pace (src/lookup/paceStep.ts); undefined when FETCH_CONCURRENCY fixes the batch size. */
  pace?: PaceStep;
  /** FETCH_CONCURRENCY's fixed size, when set. */
  fixedSize?: number;
  budget: FormulaBudget;
  /** Normalised URL -> the URL as the user wrote it (what the service gets). */
  spellingSent: Map<string, string>;
  outcomes: Map<string, RowOutcome>;
}

/** Stored results of these keys go into the execution's outcomes; returns the store's read. */
export function fromStore(execution: FormulaExecution, keys: string[]): StoreRead {
  const read = execution.ports.store.readStored(keys);
  for (const [key, result] of read.results) execution.outcomes.set(key, result);
  return read;
}

/** The execution's state, once a lookup is needed: the owner's key, the budget, the request per key. */
export function startFormulaExecution(
  platform: Platform,
  ports: LookupPorts,
  endpoint: string,
  inputs: ProfileInput[],
  outcomes: Map<string, RowOutcome>,
  started: number,
  stored: StoreRead,
): FormulaExecution {
  const config = platform.cachedConfig();
  const apiKey = platform.settings.apiKey();
  if (!apiKey) throw new Error(ownerKeyMessage('No API key is saved for the formulas of this spreadsheet.'));
  const spellingSent = new Map<string, string>();
  for (const input of inputs)
    if (input.kind === 'url' && !spellingSent.has(input.key)) spellingSent.set(input.key, input.sent);
  // The FINDEMAIL_BUDGET_MS script property lowers the budget, never above FORMULA_WORK_BUDGET_MS.
  const budgetMs = Math.min(FORMULA_WORK_BUDGET_MS, config.findEmailBudgetMs ?? FORMULA_WORK_BUDGET_MS);
  const untimedEnd = started + Math.round(budgetMs * FORMULA_UNTIMED_START_SHARE);
  const fixedSize = config.concurrency ? Math.min(MAX_BATCH_SIZE, config.concurrency) : undefined;
  // Nothing known, a range sends up to the cap in its first batch: a formula has room for few batches.
  const cap = config.maxConcurrency;
  // The formulas' pace as kept in its document property, as the execution's first read of the store found it.
  const keptPace = stored.property(PACE_PREFIX + PACE_SCOPES.formula);
  const pace = fixedSize
    ? undefined
    : openPace(ports, {
        scope: PACE_SCOPES.formula,
        start: cap,
        cap,
        kept: () => keptPace,
        keep: (value) => keepPaceProperty(platform, value),
      });
  return {
    ports,
    apiKey,
    endpoint,
    pace,
    fixedSize,
    budget: new FormulaBudget(started + budgetMs, untimedEnd),
    spellingSent,
    outcomes,
  };
}

/** A document property write a formula may lose (the pace's copy): its failure changes nothing else. */
function keepPaceProperty(platform: Platform, value: string): void {
  try {
    platform.documentProperties().setProperty(PACE_PREFIX + PACE_SCOPES.formula, value);
  } catch {
    // The cache keeps the pace for ten minutes all the same.
  }
}

/** The gates of one =FINDEMAIL execution, in order. */
function formulaGates(
  platform: Platform,
  ports: LookupPorts,
  execution: { apiKey: string; endpoint: string; pace?: PaceStep; budget: SendBudget },
  claimSeconds: number,
): Gate[] {
  const { cache } = ports;
  const onHalt = (halt: ServiceError) => haltFormulas(cache, execution.apiKey, halt);
  const keyCheck = keyCheckGate(
    ports,
    execution.pace?.pacer,
    execution,
    execution.budget,
    FORMULA_KEY_CHECK_ABOVE,
    onHalt,
  );
  return [
    haltGate(cache, execution.apiKey),
    keyCheck,
    accountCheckGate(cache, execution.apiKey, claimSeconds, keyCheck),
    formulaSpendGate(platform, ports),
  ];
}

/** How a =FINDEMAIL execution looks up: formula claims, its budget and pace, its gates. */
export function formulaLookupPolicy(platform: Platform, execution: FormulaExecution): LookupPolicy {
  const { ports, pace } = execution;
  return {
    apiKey: execution.apiKey,
    endpoint: execution.endpoint,
    claim: { value: FORMULA_CLAIM, seconds: FORMULA_CLAIM_SECONDS },
    budget: execution.budget,
    retry: DEFAULT_RETRY,
    sizer: pace?.pacer ?? fixedBatchSize(execution.fixedSize ?? DEFAULT_CONCURRENCY),
    pace: pace?.policy,
    inStore: (unclaimed) => {
      const read = fromStore(execution, unclaimed);
      return { stored: read.results, room: read.room };
    },
    gates: formulaGates(platform, ports, execution, FORMULA_CLAIM_SECONDS),
  };
}
