/** The lookup pipeline's and the store's ports over the real Apps Script services. */
import { LOST_PROPERTY } from '../core/propertyNames';
import type { Clock, LookupPorts } from '../lookup/ports';
import type { ChargeContext } from '../store/credits';
import { bufferHoldsResults } from '../store/formulaBuffer';
import { heldByLostMarks } from '../store/lostMarks';
import type { FormulaBuffer, StoreServices } from '../store/ports';
import { sheetResultStore } from '../store/resultStore';
import { resultsSheetOn } from '../store/resultsSheet';
import { RESULTS_LAYOUT } from '../store/table';
import { systemClock } from './clock';
import { creditsLog } from './creditsSheet';
import { documentCache } from './documentCache';
import { hiddenSheet } from './hiddenSheet';
import { fetchTransport } from './http';
import { documentLock, readOnlyDocumentLock, tryWithDocumentLock, withStoreLock } from './lock';
import { documentProperties } from './properties';

/**
 * `writable`: the execution may write the spreadsheet (not a custom function): results go into the results sheet.
 * `charges`: who pays for what it stores, for the credits log (default: the formulas').
 */
export function servicePorts(writable = false, charges?: ChargeContext): LookupPorts {
  return {
    store: sheetResultStore(writable, storeServices(), charges),
    cache: documentCache(),
    lock: writable ? documentLock : readOnlyDocumentLock,
    clock: systemClock,
    transport: fetchTransport,
  };
}

/** The store's services: document properties, the results sheet, the credits log, the document lock. */
export function storeServices(clock: Clock = systemClock): StoreServices {
  return {
    properties: documentProperties(),
    cache: documentCache,
    clock,
    resultsSheet: resultsSheetOn(hiddenSheet(RESULTS_LAYOUT)),
    appendCharges: creditsLog.append,
    withStoreLock: (work, sheetWrites) => withStoreLock(clock, work, sheetWrites),
    tryStoreLock: (work) => tryWithDocumentLock(work, undefined, false) !== undefined,
  };
}

/**
 * At the start of an execution that may write the spreadsheet: moves what formulas paid for into the results
 * sheet. Never fails the caller's action: when the lock stays busy or a service refuses (a quota), the results
 * stay in the buffer for the next writing execution.
 */
export function keepPendingResults(): number {
  try {
    return tryWithDocumentLock(() => sheetResultStore(true, storeServices()).keepPending())?.value ?? 0;
  } catch {
    return 0;
  }
}

/** The formulas' buffer in document properties, for the simple triggers. */
export const formulaBuffer: FormulaBuffer = {
  holdsResults: () => bufferHoldsResults(documentProperties()),
  keep: keepPendingResults,
};

/**
 * The profiles of `urlKeys` whose answers were lost `atLeast` times lately, and until when (epoch ms) they are
 * not sent again: one read of LOST_PROPERTY.
 */
export function heldAfterLosses(
  urlKeys: string[],
  atLeast: number,
  now = systemClock.now(),
): Map<string, number> {
  if (urlKeys.length === 0) return new Map();
  return heldByLostMarks(documentProperties().getProperty(LOST_PROPERTY), urlKeys, atLeast, now);
}
