/**
 * The spending cap of =FINDEMAIL (src/formula/dailyLimitPolicy.ts). The policy is in the owner's user properties under the
 * spreadsheet's id: a custom function reads the owner's user properties, and only the owner can write them, so no
 * editor can raise what formulas spend of the owner's credits. The day's count is a document property changed
 * only under the document lock, so cells evaluating at once count correctly; PropertiesService and LockService
 * are both allowed in custom functions (apps-script/guides/sheets/functions).
 */

import { systemClock } from '../adapters/clock';
import { documentProperties, userProperties } from '../adapters/properties';
import { activeSpreadsheet } from '../adapters/spreadsheet';
import type { FormulaCapState, FormulaPolicy } from '../api';
import { FORMULA_POLICY_PREFIX, FORMULA_SPEND_PROPERTY } from '../core/propertyNames';
import { type ServiceError, serviceError } from '../lookup/contract';
import type { Clock, DocumentLock } from '../lookup/ports';
import {
  capMessage,
  DEFAULT_FORMULA_POLICY,
  dayOf,
  giveBack,
  parsePolicy,
  parseSpend,
  reserve,
} from './dailyLimitPolicy';

function policyProperty(): string {
  return FORMULA_POLICY_PREFIX + activeSpreadsheet().getId();
}

/** The policy saved in this user's properties for this spreadsheet (in a custom function: the owner's). */
export function readPolicy(): FormulaPolicy {
  const raw = userProperties().getProperty(policyProperty());
  if (!raw) return { ...DEFAULT_FORMULA_POLICY };
  try {
    return parsePolicy(JSON.parse(raw));
  } catch {
    return { ...DEFAULT_FORMULA_POLICY };
  }
}

function readSpend(now: number) {
  return parseSpend(documentProperties().getProperty(FORMULA_SPEND_PROPERTY), dayOf(now));
}

function writeSpend(spend: { day: string; used: number }): void {
  documentProperties().setProperty(FORMULA_SPEND_PROPERTY, JSON.stringify(spend));
}

export interface Reservation {
  granted: number;
  policy: FormulaPolicy;
  /** What a cell beyond the grant says (no credit spent). */
  refusal: ServiceError;
}

/**
 * Reserves credits for `wanted` lookups under the document lock; undefined when the lock stayed busy (then
 * nothing may be sent). Each reservation is one property read and write.
 */
export function reserveFormulaCredits(
  { lock, clock }: { lock: DocumentLock; clock: Clock },
  wanted: number,
  deadline: number,
): Reservation | undefined {
  const policy = readPolicy();
  const refusal = serviceError('config', capMessage(policy));
  if (!policy.enabled || policy.dailyCap === 0) return { granted: 0, policy, refusal };
  const granted = lock.tryWith(() => {
    const outcome = reserve(readSpend(clock.now()), policy, wanted);
    if (outcome.granted > 0) writeSpend(outcome.next);
    return outcome.granted;
  }, deadline);
  return granted ? { granted: granted.value, policy, refusal } : undefined;
}

/** Gives back credits reserved but not charged (errors, lookups not sent in time). */
export function giveBackFormulaCredits(
  { lock, clock }: { lock: DocumentLock; clock: Clock },
  count: number,
): void {
  if (count <= 0) return;
  lock.tryWith(() => writeSpend(giveBack(readSpend(clock.now()), count)));
}

/** The sidebar's view: this user's policy for the spreadsheet and what formulas spent today. */
export function readFormulaCapState(now = systemClock.now()): FormulaCapState {
  return { policy: readPolicy(), usedToday: readSpend(now).used };
}

/** Saves this user's policy for the spreadsheet (it governs formulas when this user owns the spreadsheet). */
export function saveFormulaPolicy(input: unknown): FormulaCapState {
  const policy = parsePolicy(input);
  userProperties().setProperty(policyProperty(), JSON.stringify(policy));
  return readFormulaCapState();
}
