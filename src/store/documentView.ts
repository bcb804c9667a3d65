/**
 * The result store's records in document properties as one read sees them: the formulas' buffer (./formulaBuffer.ts),
 * the records of batches being sent (./sendingRecords.ts), the results sheet's version (TABLE_VERSION_PROPERTY);
 * the answers lost lately (LOST_PROPERTY) are in ./lostMarks.ts. Reading only; src/store/resultStore.ts writes.
 */

import { SENDING_PREFIX, TABLE_VERSION_PROPERTY } from '../core/propertyNames';
import { timeId } from '../core/timeId';
import { isPendingKey, reservedBytes } from './formulaBuffer';
import type { PropertyStore } from './ports';
import { type ExpiredSending, parseSending } from './sendingRecords';
import { hashOf } from './table';

/** Document properties as read in one call. */
export interface DocumentView {
  all: Record<string, string>;
  version: string;
  /** Bytes of results waiting in the buffer, and of buffered batches under way at a typical size. */
  pendingBytes: number;
  /** URL hashes of batches under way elsewhere. */
  sending: Set<string>;
  /** Records of batches whose execution ended before their answers were stored (settled as lost answers). */
  expired: ExpiredSending[];
}

/** A new version of the results sheet (TABLE_VERSION_PROPERTY): a time and a random part. */
export function newVersion(now: number): string {
  return timeId(now);
}

/** Reads the document properties once: the buffer's results, its size, the batches under way elsewhere. */
export function readDocumentView(props: PropertyStore, now: number): DocumentView {
  const all = props.getProperties();
  let pendingBytes = 0;
  const sending = new Set<string>();
  const expired: ExpiredSending[] = [];
  for (const key of Object.keys(all)) {
    if (isPendingKey(key)) pendingBytes += key.length + all[key].length;
    const record = key.startsWith(SENDING_PREFIX) ? parseSending(all[key]) : undefined;
    if (record && record.u > now) {
      for (const urlKey of record.k) sending.add(hashOf(urlKey));
      if (record.b) pendingBytes += reservedBytes(record.k.length);
    } else if (record) expired.push({ name: key, record });
  }
  return { all, version: all[TABLE_VERSION_PROPERTY] ?? '', pendingBytes, sending, expired };
}
