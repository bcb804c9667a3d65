/**
 * The formulas' buffer: custom functions may read the results sheet but not write it, so what =FINDEMAIL pays for
 * waits in document properties (a result a property, PENDING_PREFIX; a batch's charges a property, CHARGE_PREFIX)
 * until the next writing execution moves it into the sheets (keepPending). Bounded: a formula sends no more than
 * the buffer has room for, counting the buffered batches under way at a typical result's size.
 */
import { PENDING_RESULT_RESERVE_BYTES, PENDING_RESULTS_BUDGET_BYTES } from '../core/limits';
import { CHARGE_PREFIX, PENDING_PREFIX, SENDING_PREFIX } from '../core/propertyNames';
import type { LookupResult } from '../lookup/result';
import { decodeResult } from './codec';
import { bufferedCharges, lostRowsOf, rowsOfBuffered } from './credits';
import type { PropertyStore } from './ports';
import { newRecordName, parseSending } from './sendingRecords';

/** Buffered by formulas until a writing execution moves it into the sheets: a result, or a batch's charges. */
export function isPendingKey(key: string): boolean {
  return key.startsWith(PENDING_PREFIX) || key.startsWith(CHARGE_PREFIX);
}

/** The buffered result of this hash in a read of the document properties (`all`). */
export function pendingOf(all: Readonly<Record<string, string>>, hash: string): string | undefined {
  return all[PENDING_PREFIX + hash];
}

/** Bytes a buffered batch of this many keys holds while under way, at a typical result's size. */
export function reservedBytes(keys: number): number {
  return keys * PENDING_RESULT_RESERVE_BYTES;
}

/** How many more results formulas may pay for while the buffer holds `pendingBytes`. */
export function roomLeft(pendingBytes: number): number {
  return Math.max(
    0,
    Math.floor((PENDING_RESULTS_BUDGET_BYTES - pendingBytes) / PENDING_RESULT_RESERVE_BYTES),
  );
}

/**
 * The properties that buffer a formula batch's results (`added`, hash -> encoded) and its charges (its results
 * `entries` and the keys whose answers were `lost`), stored at `at`; `now` names the charges' records.
 */
export function bufferedValues(
  added: ReadonlyMap<string, string>,
  entries: Array<[string, LookupResult]>,
  lost: readonly string[],
  at: number,
  now: () => number,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [hash, encoded] of added) values[PENDING_PREFIX + hash] = encoded;
  for (const record of bufferedCharges(entries, lost, at))
    values[newRecordName(CHARGE_PREFIX, now())] = record;
  return values;
}

/**
 * Document properties sorted for keepPending: the buffered results to move into the sheet (by hash), the buffered
 * charges to move into the credits log (its rows, oldest first), with the lost answers of sending records whose
 * execution ended before storing them (`lostKeys`, whose lost marks go up), the properties that stay, and how many
 * go (buffered results and charges, ended and expired sending records).
 */
export function sortForKeeping(all: Record<string, string>, now: number) {
  const added = new Map<string, string>();
  const charges: string[][] = [];
  const kept: Record<string, string> = {};
  const lostKeys: string[] = [];
  let dropped = 0;
  for (const key of Object.keys(all).sort()) {
    const value = all[key];
    const record = key.startsWith(SENDING_PREFIX) ? parseSending(value) : undefined;
    if (key.startsWith(CHARGE_PREFIX)) {
      charges.push(...rowsOfBuffered(value));
    } else if (isPendingKey(key)) {
      if (decodeResult(value)) added.set(key.slice(PENDING_PREFIX.length), value);
    } else if (record && record.u <= now) {
      charges.push(...lostRowsOf(record, now));
      lostKeys.push(...record.k);
    } else if (!key.startsWith(SENDING_PREFIX) || record) {
      kept[key] = value;
      continue;
    }
    dropped++;
  }
  return { added, charges, kept, lostKeys, dropped };
}

/** Whether formulas left results waiting to be saved: one read of the document properties' names. */
export function bufferHoldsResults(props: PropertyStore): boolean {
  return props.getKeys().some(isPendingKey);
}
