/**
 * The spending cap of =FINDEMAIL (src/formula/dailyLimitRules.ts). The cap's setting is in the owner's user properties under the
 * spreadsheet's id: a custom function reads the owner's user properties, and only the owner can write them, so no
 * editor can raise what formulas spend of the owner's credits. The day's count is a document property changed
 * only under the document lock, so cells evaluating at once count correctly; PropertiesService and LockService
 * are both allowed in custom functions (apps-script/guides/sheets/functions).
 */

import type { FormulaCapSetting, FormulaCapState } from '../api';
import { GIVE_BACK_CHECK_MS, GIVE_BACK_MARKER_SECONDS, GIVE_BACKS_FOLDED_AT_ONCE } from '../core/limits';
import {
  FORMULA_CAP_SETTING_PREFIX,
  FORMULA_GIVE_BACK_MARKER,
  FORMULA_GIVE_BACK_PREFIX,
  FORMULA_SPEND_PROPERTY,
} from '../core/propertyNames';
import { isRecord, parseStored } from '../core/storedJson';
import { timeId } from '../core/timeId';
import type { Gate } from '../lookup/gate';
import type { Clock, DocumentCache, DocumentLock } from '../lookup/ports';
import { serviceError } from '../lookup/result';
import type { Platform } from '../platform/platform';
import {
  capMessage,
  DEFAULT_FORMULA_CAP_SETTING,
  type FormulaSpend,
  giveBack,
  parseCapSetting,
  parseSpend,
  reserve,
} from './dailyLimitRules';

function capSettingProperty(platform: Platform): string {
  return FORMULA_CAP_SETTING_PREFIX + platform.spreadsheet().id();
}

/** The cap setting saved in this user's properties for this spreadsheet (in a custom function: the owner's). */
export function readCapSetting(platform: Platform): FormulaCapSetting {
  const raw = platform.userProperties().getProperty(capSettingProperty(platform));
  if (!raw) return { ...DEFAULT_FORMULA_CAP_SETTING };
  try {
    return parseCapSetting(JSON.parse(raw));
  } catch {
    return { ...DEFAULT_FORMULA_CAP_SETTING };
  }
}

/**
 * The day's spending as read: `folded` names the give-back records it has subtracted, `checked` when the document
 * properties' names were last read for give-back records (only kept when there is a document cache to mark them).
 */
interface SpendRead {
  spend: FormulaSpend;
  folded: string[];
  checked?: number;
  /** The names were read now. */
  looked: boolean;
}

/** Whether to read the properties' names for give-back records: `stored` is the spend record as read. */
type LookForRecords = (stored: { folded: string[]; checked?: number }) => boolean;

function spendExtras(raw: string | null): { folded: string[]; checked?: number } {
  const stored = parseStored(raw);
  const { folded, checked } = isRecord(stored) ? stored : {};
  return {
    folded: Array.isArray(folded) ? folded.filter((name) => typeof name === 'string') : [],
    checked: typeof checked === 'number' ? checked : undefined,
  };
}

/**
 * The day's spending (the spreadsheet's day, its time zone, as the watch counts its own), less what was given back
 * without the lock: the give-back records not yet folded in, `atMost` of them. The spend record names the records it
 * has subtracted (`folded`) until they are deleted, so a record folded but not deleted (the execution killed, or the
 * properties quota reached, between the deletes) is never subtracted twice. One property read when `look` says no
 * record is waiting; then the names' read; the whole store only when there are records to fold.
 */
function readSpend(platform: Platform, now: number, atMost: number, look: LookForRecords): SpendRead {
  const props = platform.documentProperties();
  const day = platform.clock.day(now);
  const raw = props.getProperty(FORMULA_SPEND_PROPERTY);
  let spend = parseSpend(raw, day);
  const stored = spendExtras(raw);
  if (!look(stored)) return { spend, folded: [], checked: stored.checked, looked: false };
  const records = props
    .getKeys()
    .filter((name) => name.startsWith(FORMULA_GIVE_BACK_PREFIX))
    .sort();
  if (records.length === 0) return { spend, folded: [], checked: now, looked: true };
  const already = new Set(stored.folded);
  const still = records.filter((name) => already.has(name));
  const fresh = records.filter((name) => !already.has(name)).slice(0, Math.max(0, atMost - still.length));
  if (fresh.length > 0) {
    const all = props.getProperties();
    for (const name of fresh) spend = giveBack(spend, parseSpend(all[name], day).used);
  }
  return { spend, folded: [...still, ...fresh], checked: now, looked: true };
}

/** Writes the day's spending naming the records folded in, then deletes those records, one call each. */
function writeSpendAndFold(platform: Platform, spend: FormulaSpend, read: SpendRead, marked: boolean): void {
  const record: FormulaSpend & { folded?: string[]; checked?: number } = { ...spend };
  if (read.folded.length > 0) record.folded = read.folded;
  if (marked && read.checked !== undefined) record.checked = read.checked;
  platform.documentProperties().setProperty(FORMULA_SPEND_PROPERTY, JSON.stringify(record));
  for (const name of read.folded) platform.documentProperties().deleteProperty(name);
}

/**
 * When to read the properties' names for give-back records. Without a document cache: always. With one, a
 * lock-free give-back also puts a marker there (FORMULA_GIVE_BACK_MARKER); the cache is best-effort, so the names
 * are read anyway once GIVE_BACK_CHECK_MS has passed since the last read (a new spend record counts as read now).
 */
function lookForRecords(
  cache: DocumentCache | null | undefined,
  marked: boolean,
  now: number,
): LookForRecords {
  return ({ folded, checked }) =>
    !cache || marked || folded.length > 0 || (checked !== undefined && now - checked >= GIVE_BACK_CHECK_MS);
}

/**
 * Gives back what was reserved but not charged: under the lock, one try; when it is busy (or LockService refuses),
 * as a record of its own that needs no lock, deducted at a later locked reservation (marked in the cache for it).
 * Never left reserved.
 */
function giveBackUnused(platform: Platform, ports: SpendPorts, now: number, unused: number): void {
  const given = ports.lock.tryWith(() => {
    const read = readSpend(platform, now, GIVE_BACKS_FOLDED_AT_ONCE, lookForRecords(ports.cache, false, now));
    writeSpendAndFold(platform, giveBack(read.spend, unused), read, Boolean(ports.cache));
  });
  if (given) return;
  const record: FormulaSpend = { day: platform.clock.day(now), used: unused };
  platform.documentProperties().setProperty(FORMULA_GIVE_BACK_PREFIX + timeId(now), JSON.stringify(record));
  try {
    ports.cache?.put(FORMULA_GIVE_BACK_MARKER, '1', GIVE_BACK_MARKER_SECONDS);
  } catch {
    // The names are read again within GIVE_BACK_CHECK_MS all the same.
  }
}

/** What the gate reaches besides the platform: the document lock, the clock, the document cache (if any). */
interface SpendPorts {
  lock: DocumentLock;
  clock: Clock;
  cache?: DocumentCache | null;
}

/**
 * The owner's daily limit as a gate of the lookup session (src/lookup/gate.ts): under the document lock, with the
 * claims, what is claimed is reserved first (one property read and write), so cells evaluating at once never pass
 * the limit together; the keys beyond it say so, for free. At the session's end what was reserved but not charged
 * (errors, lookups not sent in time) is given back. The give-back marker is read with the claims (one cache call).
 */
export function formulaSpendGate(platform: Platform, ports: SpendPorts): Gate {
  const { clock, cache } = ports;
  const setting = readCapSetting(platform);
  const refusal = serviceError('config', capMessage(setting));
  let reserved = 0;
  return {
    name: 'daily limit',
    markers: [FORMULA_GIVE_BACK_MARKER],
    admit(markers, free) {
      if (!setting.enabled || setting.dailyCap === 0) return { take: 0, refusal };
      const now = clock.now();
      const marked = Boolean(cache && markers[FORMULA_GIVE_BACK_MARKER]);
      // Removed before the names are read: a give-back written after that read marks the cache again.
      if (marked) cache?.remove(FORMULA_GIVE_BACK_MARKER);
      const read = readSpend(platform, now, GIVE_BACKS_FOLDED_AT_ONCE, lookForRecords(cache, marked, now));
      const outcome = reserve(read.spend, setting, free);
      if (outcome.granted > 0 || read.folded.length > 0 || (cache && read.looked))
        writeSpendAndFold(platform, outcome.next, { ...read, checked: read.checked ?? now }, Boolean(cache));
      reserved += outcome.granted;
      return { take: outcome.granted, refusal };
    },
    close({ charged }) {
      const unused = reserved - charged;
      if (unused > 0) giveBackUnused(platform, ports, clock.now(), unused);
    },
  };
}

/** The sidebar's view: this user's cap setting for the spreadsheet and what formulas spent today. */
export function readFormulaCapState(platform: Platform): FormulaCapState {
  const { spend } = readSpend(platform, platform.clock.now(), Number.POSITIVE_INFINITY, () => true);
  return { setting: readCapSetting(platform), usedToday: spend.used, day: spend.day };
}

/** Saves this user's cap setting for the spreadsheet (it governs formulas when this user owns the spreadsheet). */
export function saveFormulaCapSetting(platform: Platform, input: unknown): FormulaCapState {
  const setting = parseCapSetting(input);
  platform.userProperties().setProperty(capSettingProperty(platform), JSON.stringify(setting));
  return readFormulaCapState(platform);
}
