/** The state of one =FINDEMAIL execution (./findEmail.ts): the owner's key, the budget, the pace, the outcomes. */

import { readCachedScriptConfig } from '../adapters/scriptConfig';
import { readApiKey } from '../adapters/settings';
import type { RowOutcome } from '../core/cells';
import { stableHash } from '../core/hash';
import {
  DEFAULT_CONCURRENCY,
  FORMULA_UNTIMED_START_SHARE,
  FORMULA_WORK_BUDGET_MS,
  HALT_SECONDS,
  MAX_BATCH_SIZE,
} from '../core/limits';
import { ACCOUNT_OK_KEY } from '../core/propertyNames';
import type { ProfileInput } from '../core/url';
import { FormulaBudget, fixedBatchSize } from '../lookup/budget';
import { parseHalt, readHalt, writeHalt } from '../lookup/claims';
import type { ServiceError } from '../lookup/contract';
import { loadPace, type Pacer } from '../lookup/pace';
import type { BatchSizer, LookupPorts } from '../lookup/ports';
import { accountError, ownerKeyMessage } from './messages';

export const PACE_SCOPE = 'formula';

/** State of one =FINDEMAIL execution. */
export interface Run {
  ports: LookupPorts;
  apiKey: string;
  keyHash: string;
  endpoint: string;
  /** Requests per batch: FETCH_CONCURRENCY's fixed size, or the document's kept pace (src/lookup/pace.ts). */
  sizer: BatchSizer;
  pacer?: Pacer;
  budget: FormulaBudget;
  sentFor: Map<string, string>;
  outcomes: Map<string, RowOutcome>;
}

/** `raw`: the HALT_KEY value when the caller read it already together with other keys. */
export function throwIfHalted(run: Run, raw?: string): void {
  const halt = raw === undefined ? readHalt(run.ports.cache, run.apiKey) : parseHalt(raw, run.apiKey);
  if (halt) throw new Error(halt.message);
}

/** Stored results of these keys go into the run's outcomes; returns the keys found. */
export function fromStore(run: Run, keys: string[]): Set<string> {
  const found = run.ports.store.getMany(keys);
  for (const [key, result] of found) run.outcomes.set(key, result);
  return new Set(found.keys());
}

/** After a 401 or 402 every formula of the document pauses (HALT_SECONDS). */
export function haltFormulas(run: Run, halt: ServiceError): void {
  if (halt.error !== 'unauthorized' && halt.error !== 'payment_required') return;
  writeHalt(run.ports.cache, run.apiKey, accountError(halt).message, HALT_SECONDS);
  run.ports.cache?.remove(ACCOUNT_OK_KEY);
}

/** The execution's state, once a lookup is needed: the owner's key, the budget, the request per key. */
export function startRun(
  ports: LookupPorts,
  endpoint: string,
  inputs: ProfileInput[],
  outcomes: Map<string, RowOutcome>,
  started: number,
): Run {
  const config = readCachedScriptConfig();
  const apiKey = readApiKey();
  if (!apiKey) throw new Error(ownerKeyMessage('No API key is saved for the formulas of this spreadsheet.'));
  const sentFor = new Map<string, string>();
  for (const input of inputs)
    if (input.kind === 'url' && !sentFor.has(input.key)) sentFor.set(input.key, input.sent);
  // The FINDEMAIL_BUDGET_MS script property lowers the budget, never above FORMULA_WORK_BUDGET_MS.
  const budgetMs = Math.min(FORMULA_WORK_BUDGET_MS, config.findEmailBudgetMs ?? FORMULA_WORK_BUDGET_MS);
  const untimedEnd = started + Math.round(budgetMs * FORMULA_UNTIMED_START_SHARE);
  const fixed = config.concurrency && Math.min(MAX_BATCH_SIZE, config.concurrency);
  const pacer = fixed
    ? undefined
    : loadPace(ports.cache, PACE_SCOPE, DEFAULT_CONCURRENCY, config.maxConcurrency, ports.clock.now());
  return {
    ports,
    apiKey,
    keyHash: stableHash(apiKey),
    endpoint,
    sizer: pacer ?? fixedBatchSize(fixed || DEFAULT_CONCURRENCY),
    pacer,
    budget: new FormulaBudget(started + budgetMs, untimedEnd),
    sentFor,
    outcomes,
  };
}
