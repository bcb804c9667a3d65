/** The lookup pipeline's ports over the real Apps Script services. */
import type { LookupPorts } from '../lookup/ports';
import { sheetResultStore } from '../store/resultStore';
import { systemClock } from './clock';
import { documentCache } from './documentCache';
import { fetchTransport } from './http';
import { documentLock, readOnlyDocumentLock } from './lock';

/** `writable`: the execution may write the spreadsheet (not a custom function): results go into the results sheet. */
export function servicePorts(writable = false): LookupPorts {
  return {
    store: sheetResultStore(writable, systemClock),
    cache: documentCache(),
    lock: writable ? documentLock : readOnlyDocumentLock,
    clock: systemClock,
    transport: fetchTransport,
  };
}
