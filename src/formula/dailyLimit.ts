/**
 * The spending cap of =FINDEMAIL (src/formula/dailyLimitPolicy.ts). The policy is in the owner's user properties under the
 * spreadsheet's id: a custom function reads the owner's user properties, and only the owner can write them, so no
 * editor can raise what formulas spend of the owner's credits. The day's count is a document property changed
 * only under the document lock, so cells evaluating at once count correctly; PropertiesService and LockService
 * are both allowed in custom functions (apps-script/guides/sheets/functions).
 */

import type { FormulaCapState, FormulaPolicy } from '../api';
import { GIVE_BACKS_FOLDED_AT_ONCE } from '../core/limits';
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

/** The day's spending as read under the lock: `folded` names the give-back records it has subtracted. */
interface SpendRead {
  spend: FormulaSpend;
  folded: string[];
}

function foldedOf(raw: string | null): string[] {
  try {
    const folded = (JSON.parse(raw ?? '') as { folded?: unknown }).folded;
    return Array.isArray(folded) ? folded.filter((name) => typeof name === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The day's spending (the spreadsheet's day, its time zone, as the watch counts its own), less what was given back
 * without the lock: the give-back records not yet folded in, `atMost` of them. The spend record names the records it
 * has subtracted (`folded`) until they are deleted, so a record folded but not deleted (the execution killed, or the
 * properties quota reached, between the deletes) is never subtracted twice. One property read and the names' read
 * when there is no give-back record; the whole store is read only when there are records to fold.
 */
function readSpend(platform: Platform, now: number, atMost: number): SpendRead {
  const props = platform.documentProperties();
  const day = platform.clock.day(now);
  const raw = props.getProperty(FORMULA_SPEND_PROPERTY);
  let spend = parseSpend(raw, day);
  const records = props
    .getKeys()
    .filter((name) => name.startsWith(FORMULA_GIVE_BACK_PREFIX))
    .sort();
  if (records.length === 0) return { spend, folded: [] };
  const already = new Set(foldedOf(raw));
  const still = records.filter((name) => already.has(name));
  const fresh = records.filter((name) => !already.has(name)).slice(0, Math.max(0, atMost - still.length));
  if (fresh.length > 0) {
    const all = props.getProperties();
    for (const name of fresh) spend = giveBack(spend, parseSpend(all[name], day).used);
  }
  return { spend, folded: [...still, ...fresh] };
}

/** Writes the day's spending naming the records folded in, then deletes those records, one call each. */
function writeSpendAndFold(platform: Platform, spend: FormulaSpend, folded: string[]): void {
  const record = folded.length > 0 ? { ...spend, folded } : spend;
  platform.documentProperties().setProperty(FORMULA_SPEND_PROPERTY, JSON.stringify(record));
  for (const name of folded) platform.documentProperties().deleteProperty(name);
}

/**
 * Gives back what was reserved but not charged: under the lock, one try; when it is busy (or LockService refuses),
 * as a record of its own that needs no lock, deducted at the next locked reservation. Never left reserved.
 */
function giveBackUnused(platform: Platform, lock: DocumentLock, now: number, unused: number): void {
  const given = lock.tryWith(() => {
    const { spend, folded } = readSpend(platform, now, GIVE_BACKS_FOLDED_AT_ONCE);
    writeSpendAndFold(platform, giveBack(spend, unused), folded);
  });
  if (given) return;
  const record: FormulaSpend = { day: platform.clock.day(now), used: unused };
  platform.documentProperties().setProperty(FORMULA_GIVE_BACK_PREFIX + timeId(now), JSON.stringify(record));
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
      const { spend, folded } = readSpend(platform, clock.now(), GIVE_BACKS_FOLDED_AT_ONCE);
      const outcome = reserve(spend, policy, free);
      if (outcome.granted > 0 || folded.length > 0) writeSpendAndFold(platform, outcome.next, folded);
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
  const { spend } = readSpend(platform, platform.clock.now(), Number.POSITIVE_INFINITY);
  return { policy: readPolicy(platform), usedToday: spend.used, day: spend.day };
}

/** Saves this user's policy for the spreadsheet (it governs formulas when this user owns the spreadsheet). */
export function saveFormulaPolicy(platform: Platform, input: unknown): FormulaCapState {
  const policy = parsePolicy(input);
  platform.userProperties().setProperty(policyProperty(platform), JSON.stringify(policy));
  return readFormulaCapState(platform);
}
