/** The lookup pipeline's ports over the real Apps Script services. */
import type { LookupPorts } from '../lookup/ports';
import type { ChargeContext } from '../store/credits';
import { sheetResultStore } from '../store/resultStore';
import { systemClock } from './clock';
import { documentCache } from './documentCache';
import { fetchTransport } from './http';
import { documentLock, readOnlyDocumentLock } from './lock';

/**
 * `writable`: the execution may write the spreadsheet (not a custom function): results go into the results sheet.
 * `charges`: who pays for what it stores, for the credits log (default: the formulas').
 */
export function servicePorts(writable = false, charges?: ChargeContext): LookupPorts {
  return {
    store: sheetResultStore(writable, systemClock, charges),
    cache: documentCache(),
    lock: writable ? documentLock : readOnlyDocumentLock,
    clock: systemClock,
    transport: fetchTransport,
  };
}
