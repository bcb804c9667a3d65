/**
 * The spending cap of =FINDEMAIL (src/formula/dailyLimitPolicy.ts). The policy is in the owner's user properties under the
 * spreadsheet's id: a custom function reads the owner's user properties, and only the owner can write them, so no
 * editor can raise what formulas spend of the owner's credits. The day's count is a document property changed
 * only under the document lock, so cells evaluating at once count correctly; PropertiesService and LockService
 * are both allowed in custom functions (apps-script/guides/sheets/functions).
 */

import type { FormulaCapState, FormulaPolicy } from '../api';
import { FORMULA_POLICY_PREFIX, FORMULA_SPEND_PROPERTY } from '../core/propertyNames';
import { serviceError } from '../lookup/contract';
import type { Gate } from '../lookup/gate';
import type { Clock, DocumentLock } from '../lookup/ports';
import type { Platform } from '../platform/platform';
import {
  capMessage,
  DEFAULT_FORMULA_POLICY,
  giveBack,
  parsePolicy,
  parseSpend,
  reserve,
} from './dailyLimitPolicy';

function policyProperty(platform: Platform): string {
  return FORMULA_POLICY_PREFIX + platform.spreadsheet().id();
}

/** The policy saved in this user's properties for this spreadsheet (in a custom function: the owner's). */
export function readPolicy(platform: Platform): FormulaPolicy {
  const raw = platform.userProperties().getProperty(policyProperty(platform));
  if (!raw) return { ...DEFAULT_FORMULA_POLICY };
  try {
    return parsePolicy(JSON.parse(raw));
  } catch {
    return { ...DEFAULT_FORMULA_POLICY };
  }
}

/** What formulas spent on the day of `now`: the spreadsheet's day (its time zone), as the watch counts its own. */
function readSpend(platform: Platform, now: number) {
  return parseSpend(
    platform.documentProperties().getProperty(FORMULA_SPEND_PROPERTY),
    platform.clock.day(now),
  );
}

function writeSpend(platform: Platform, spend: { day: string; used: number }): void {
  platform.documentProperties().setProperty(FORMULA_SPEND_PROPERTY, JSON.stringify(spend));
}

/**
 * The owner's daily limit as a gate of the lookup session (src/lookup/gate.ts): under the document lock, with the
 * claims, what is claimed is reserved first (one property read and write), so cells evaluating at once never pass
 * the limit together; the keys beyond it say so, for free. At the session's end what was reserved but not charged
 * (errors, lookups not sent in time) is given back.
 */
export function formulaSpendGate(
  platform: Platform,
  { lock, clock }: { lock: DocumentLock; clock: Clock },
): Gate {
  const policy = readPolicy(platform);
  const refusal = serviceError('config', capMessage(policy));
  let reserved = 0;
  return {
    name: 'daily limit',
    admit(_markers, free) {
      if (!policy.enabled || policy.dailyCap === 0) return { take: 0, refusal };
      const outcome = reserve(readSpend(platform, clock.now()), policy, free);
      if (outcome.granted > 0) writeSpend(platform, outcome.next);
      reserved += outcome.granted;
      return { take: outcome.granted, refusal };
    },
    close({ charged }) {
      const unused = reserved - charged;
      if (unused > 0)
        lock.tryWith(() => writeSpend(platform, giveBack(readSpend(platform, clock.now()), unused)));
    },
  };
}

/** The sidebar's view: this user's policy for the spreadsheet and what formulas spent today. */
export function readFormulaCapState(platform: Platform): FormulaCapState {
  const spend = readSpend(platform, platform.clock.now());
  return { policy: readPolicy(platform), usedToday: spend.used, day: spend.day };
}

/** Saves this user's policy for the spreadsheet (it governs formulas when this user owns the spreadsheet). */
export function saveFormulaPolicy(platform: Platform, input: unknown): FormulaCapState {
  const policy = parsePolicy(input);
  platform.userProperties().setProperty(policyProperty(platform), JSON.stringify(policy));
  return readFormulaCapState(platform);
}
