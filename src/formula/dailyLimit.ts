/**
 * The spending cap of =FINDEMAIL (src/formula/dailyLimitPolicy.ts). The policy is in the owner's user properties under the
 * spreadsheet's id: a custom function reads the owner's user properties, and only the owner can write them, so no
 * editor can raise what formulas spend of the owner's credits. The day's count is a document property changed
 * only under the document lock, so cells evaluating at once count correctly; PropertiesService and LockService
 * are both allowed in custom functions (apps-script/guides/sheets/functions).
 */

import type { FormulaCapState, FormulaPolicy } from '../api';
import {
  FORMULA_GIVE_BACK_PREFIX,
  FORMULA_POLICY_PREFIX,
  FORMULA_SPEND_PROPERTY,
} from '../core/propertyNames';
import { timeId } from '../core/timeId';
import { serviceError } from '../lookup/contract';
import type { Gate } from '../lookup/gate';
import type { Clock, DocumentLock } from '../lookup/ports';
import type { Platform } from '../platform/platform';
import {
  capMessage,
  DEFAULT_FORMULA_POLICY,
  type FormulaSpend,
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

/** The day's spending (the spreadsheet's day, its time zone, as the watch counts its own), less what was given back without the lock (`names`: those records, to fold in). */
function readSpendAndGiveBacks(platform: Platform, now: number): { spend: FormulaSpend; names: string[] } {
  const all = platform.documentProperties().getProperties();
  const day = platform.clock.day(now);
  let spend = parseSpend(all[FORMULA_SPEND_PROPERTY], day);
  const names = Object.keys(all).filter((name) => name.startsWith(FORMULA_GIVE_BACK_PREFIX));
  for (const name of names) spend = giveBack(spend, parseSpend(all[name], day).used);
  return { spend, names };
}

/**
 * Gives back what was reserved but not charged: under the lock, one try; when it is busy (or LockService refuses),
 * as a record of its own that needs no lock, deducted at the next locked reservation. Never left reserved.
 */
function giveBackUnused(platform: Platform, lock: DocumentLock, now: number, unused: number): void {
  const given = lock.tryWith(() => {
    const { spend, names } = readSpendAndGiveBacks(platform, now);
    writeSpend(platform, giveBack(spend, unused));
    for (const name of names) platform.documentProperties().deleteProperty(name);
  });
  if (given) return;
  const record: FormulaSpend = { day: platform.clock.day(now), used: unused };
  platform.documentProperties().setProperty(FORMULA_GIVE_BACK_PREFIX + timeId(now), JSON.stringify(record));
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
      const { spend, names } = readSpendAndGiveBacks(platform, clock.now());
      const outcome = reserve(spend, policy, free);
      if (outcome.granted > 0 || names.length > 0) writeSpend(platform, outcome.next);
      for (const name of names) platform.documentProperties().deleteProperty(name);
      reserved += outcome.granted;
      return { take: outcome.granted, refusal };
    },
    close({ charged }) {
      const unused = reserved - charged;
      if (unused > 0) giveBackUnused(platform, lock, clock.now(), unused);
    },
  };
}

/** The sidebar's view: this user's policy for the spreadsheet and what formulas spent today. */
export function readFormulaCapState(platform: Platform): FormulaCapState {
  const { spend } = readSpendAndGiveBacks(platform, platform.clock.now());
  return { policy: readPolicy(platform), usedToday: spend.used, day: spend.day };
}

/** Saves this user's policy for the spreadsheet (it governs formulas when this user owns the spreadsheet). */
export function saveFormulaPolicy(platform: Platform, input: unknown): FormulaCapState {
  const policy = parsePolicy(input);
  platform.userProperties().setProperty(policyProperty(platform), JSON.stringify(policy));
  return readFormulaCapState(platform);
}
