/** The lookup pipeline's ports over the real Apps Script services. */
import type { LookupPorts } from '../core/ports';
import { systemClock } from './clock';
import { documentCache } from './documentCache';
import { fetchTransport } from './http';
import { documentLock, readOnlyDocumentLock } from './lock';
import { sheetResultStore } from './resultStore';

/** `writable`: the execution may write the spreadsheet (not a custom function): results go into the results sheet. */
export function servicePorts(writable = false): LookupPorts {
  return {
    store: sheetResultStore(writable),
    cache: documentCache(),
    lock: writable ? documentLock : readOnlyDocumentLock,
    clock: systemClock,
    transport: fetchTransport,
  };
}
