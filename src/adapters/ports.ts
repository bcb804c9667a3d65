/** The lookup pipeline's and the store's ports over the real Apps Script services. */
import { ANSWERS_PREFIX, CHARGE_PREFIX, PENDING_PREFIX, SENDING_PREFIX } from '../core/propertyNames';
import type { Clock, LookupPorts } from '../lookup/ports';
import type { ChargeContext } from '../store/credits';
import type { Folded, Folding, SheetResultStore, StoreServices } from '../store/ports';
import { sheetResultStore } from '../store/resultStore';
import { resultsSheetOn } from '../store/resultsSheet';
import { RESULTS_LAYOUT } from '../store/table';
import { systemClock } from './clock';
import { creditsLog } from './creditsSheet';
import { documentCache } from './documentCache';
import { hiddenSheet } from './hiddenSheet';
import { fetchTransport } from './http';
import { documentLock, readOnlyDocumentLock, tryWithDocumentLock } from './lock';
import { documentProperties } from './properties';

/**
 * `writable`: the execution may write the spreadsheet (not a custom function). `charges`: who pays for what it
 * sends, for the credits log (default: the formulas'). `store`: the result store to use (a bulk slice's own).
 */
export function servicePorts(
  writable = false,
  charges?: ChargeContext,
  store?: SheetResultStore,
): LookupPorts {
  return {
    store: store ?? resultStore(writable, charges),
    cache: documentCache(),
    lock: writable ? documentLock : readOnlyDocumentLock,
    clock: systemClock,
    transport: fetchTransport,
  };
}

/** The result store over the real services. */
export function resultStore(writable: boolean, charges?: ChargeContext): SheetResultStore {
  return sheetResultStore(writable, storeServices(), charges);
}

/** The store's services: document properties, the results sheet, the credits log. */
export function storeServices(clock: Clock = systemClock): StoreServices {
  return {
    properties: documentProperties(),
    clock,
    resultsSheet: resultsSheetOn(hiddenSheet(RESULTS_LAYOUT)),
    appendCharges: creditsLog.append,
  };
}

/**
 * In an execution that may write the spreadsheet: folds every final batch into the hidden sheets, with `also`
 * (the bulk run's counts of what was folded) in the same hold. Never fails the caller's action: when the lock stays
 * busy or a service refuses (a quota), the batches wait for the next writing execution. Returns the results folded.
 */
export function foldAnswers(
  also?: (folded: Folded, all: Record<string, string>) => Record<string, string> | undefined,
): number {
  try {
    return tryWithDocumentLock(() => resultStore(true).fold(undefined, also).folded.results.size)?.value ?? 0;
  } catch {
    return 0;
  }
}

/** Names a fold would take: answers, sending records, what an earlier version kept for formulas. */
const FOLDED_PREFIXES = [ANSWERS_PREFIX, SENDING_PREFIX, PENDING_PREFIX, CHARGE_PREFIX];

/** The batches waiting to be folded, for the simple triggers. */
export function folding(
  also?: (folded: Folded, all: Record<string, string>) => Record<string, string> | undefined,
): Folding {
  return {
    waiting: (names = documentProperties().getKeys()) =>
      names.some((name) => FOLDED_PREFIXES.some((prefix) => name.startsWith(prefix))),
    fold: () => foldAnswers(also),
  };
}
