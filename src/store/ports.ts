/**
 * What the store reaches Apps Script through: src/adapters/ports.ts makes these over the real services; tests may
 * pass plain objects. Types only.
 */
import type { Clock } from '../lookup/ports';

/** A properties store (document properties): the part of PropertiesService's Properties the store uses. */
export interface PropertyStore {
  getProperty(key: string): string | null;
  getProperties(): Record<string, string>;
  getKeys(): string[];
  setProperties(values: Record<string, string>, deleteAllOthers?: boolean): unknown;
}

/** The hidden results sheet: encoded results by hash. */
export interface ResultsSheet {
  /** The results of these hashes found in the sheet. */
  readHashes(hashes: string[]): Map<string, string>;
  /** Every result in the sheet, in one read. */
  readAll(): Map<string, string>;
  /** Adds results, creating the sheet when missing. Call holding the document lock. */
  appendResults(added: Map<string, string>): void;
}

/** The store's services in one execution. */
export interface StoreServices {
  properties: PropertyStore;
  clock: Clock;
  resultsSheet: ResultsSheet;
  /** Appends rows to the credits log (its hidden sheet). Call holding the document lock. */
  appendCharges(rows: string[][]): void;
  /**
   * Runs `work` holding the document lock, trying a few times; throws when the lock stays busy. `sheetWrites`:
   * the execution may write the spreadsheet (its writes are flushed before the release).
   */
  withStoreLock(work: () => void, sheetWrites: boolean): void;
}

/** The formulas' buffer, as the simple triggers see it. */
export interface FormulaBuffer {
  /** One read of the document properties' names: whether formulas left results waiting to be saved. */
  holdsResults(): boolean;
  /** Moves the buffered results into the results sheet; never throws. Returns how many moved. */
  keep(): number;
}
