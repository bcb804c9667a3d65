/**
 * What the store reaches Apps Script through: src/adapters/ports.ts makes these over the real services; tests may
 * pass plain objects. Types only.
 */
import type { SheetPort } from '../core/sheet';
import type { CachedResult, Clock, ResultStore } from '../lookup/ports';
import type { LookupResult } from '../lookup/result';

/** A properties store (document properties): the part of PropertiesService's Properties the store uses. */
export interface PropertyStore {
  getProperty(key: string): string | null;
  getProperties(): Record<string, string>;
  getKeys(): string[];
  setProperties(values: Record<string, string>): unknown;
  deleteProperty(key: string): unknown;
}

/**
 * How a hidden sheet of the store is made when missing: its name, the rows it has at least, its columns (plain
 * text: a result, a profile or a time must never be read as a number or a formula), and its first row: a title in
 * its first cell, or a header across its columns.
 */
export interface SheetLayout {
  name: string;
  rows: number;
  columns: number;
  title?: string;
  header?: string[];
  /**
   * The hidden sheet's protection description (Data > Protected sheets and ranges): it only warns, so a person
   * editing it by hand is asked to confirm while every editor's executions still write it.
   */
  guard?: string;
}

/**
 * A hidden sheet's cells: the calls of a sheet (src/core/sheet.ts) the store makes, and rows or columns added in the
 * layout's plain-text format.
 */
export interface HiddenSheetRows
  extends Pick<SheetPort, 'lastRow' | 'maxRows' | 'maxColumns' | 'values' | 'write' | 'clear'> {
  /** Inserts `count` rows after row `after`, plain text over the layout's columns. */
  addRows(after: number, count: number): void;
  /** Inserts `count` columns after column `after`, plain text over the layout's rows. */
  addColumns(after: number, count: number): void;
}

/** One of the store's hidden sheets (the results sheet, the credits log), by its layout. */
export interface HiddenSheet {
  /**
   * Opens the spreadsheet once for reads by A1 notation inside the sheet (`2:4097`, `A4098:B5097`), each one call
   * that does not look the sheet up; a read gives null when there is no sheet (never written, or deleted).
   */
  reader(): (a1: string) => unknown[][] | null;
  /** The sheet, or null when there is none. */
  find(): HiddenSheetRows | null;
  /** The sheet, made hidden with its layout when missing (the person's sheet stays active). Call holding the lock. */
  findOrCreate(): HiddenSheetRows;
}

/** The credits log's hidden sheet, as the store writes it and the Credits tab reads it (./creditsLog.ts). */
export interface CreditsLog {
  /** Appends rows to the log, creating the sheet when missing. Call holding the document lock. */
  append(rows: string[][]): void;
  /** Every row of the log below the header, in one read; null when there is no log. */
  readRows(): unknown[][] | null;
  /** The log's last row (its header's row when empty); 0 when there is no log. */
  lastRow(): number;
  /** Rows `first`..`last` of the log, in one read. */
  readRowsBetween(first: number, last: number): unknown[][];
  /** The outcomes of the log, in one read of their column; null when there is no log. */
  readOutcomes(): unknown[] | null;
}

/** The hidden results sheet: encoded results by hash. */
export interface ResultsSheet {
  /** The results of these hashes found in the sheet. */
  readHashes(hashes: string[]): Map<string, string>;
  /** Every result in the sheet, in one read. */
  readAll(): ResultsRead;
  /** The results of the log's rows from `logRow` on (0: its first row), in one read. */
  readLogFrom(logRow: number): ResultsRead;
  /**
   * Adds results, creating the sheet when missing. Call holding the document lock. True when it merged the log
   * into the bucket rows (the only write that changes them).
   */
  appendResults(added: Map<string, string>): boolean;
}

/** Results read from the sheet (hash -> encoded), and the rows its log has. */
export interface ResultsRead {
  results: Map<string, string>;
  logRows: number;
}

/** The store's services in one execution. */
export interface StoreServices {
  properties: PropertyStore;
  clock: Clock;
  resultsSheet: ResultsSheet;
  /** Appends rows to the credits log (its hidden sheet). Call holding the document lock. */
  appendCharges(rows: string[][]): void;
}

/** The sending records and answers waiting to be folded, as the simple triggers see them. */
export interface Folding {
  /** Whether any answers or records wait to be folded: among `names` (the properties' names), else one read of them. */
  waiting(names?: readonly string[]): boolean;
  /** Folds what is final into the hidden sheets, under the document lock; never throws. Returns the results folded. */
  fold(): number;
}

/** What folding the final sending records and answers of a read comes to: the sheets are written first. */
export interface Folded {
  /** Results for the results sheet (URL hash -> encoded). */
  results: Map<string, string>;
  /** Rows for the credits log. */
  charges: string[][];
  /** By a run's id: its charged answers, those that found an address, its lost answers. */
  byRun: Map<string, { used: number; found: number; lost: number }>;
  /** Windows of bulk slices that ended without writing them (their tokens). */
  endedWindows: string[];
  /** The properties folded, deleted once the rest is written. */
  names: string[];
}

/** A fold, for the caller holding the lock: the properties after it, what it folded (a run counts it in that hold). */
export interface FoldOutcome {
  all: Record<string, string>;
  folded: Folded;
}

export interface SheetResultStore extends ResultStore {
  /** Every stored result (the results sheet read whole, and the answers not folded yet). */
  allResults(): LookupResult[];
  /**
   * The stored results of these keys, with when each was stored, as of `all` (the document properties as read in
   * this hold of the lock): answers not folded yet, then the results sheet.
   */
  lookIn(urlKeys: string[], all: Readonly<Record<string, string>>): Map<string, CachedResult>;
  /**
   * Folds every final sending record and answers into the sheets and deletes them. Call holding the document lock,
   * in an execution that may write the spreadsheet. `all`: the document properties as read in this hold (else read
   * now); `also`: more properties to write in the same call, from what was folded (a run's counts).
   */
  fold(
    all?: Record<string, string>,
    also?: (folded: Folded, all: Record<string, string>) => Record<string, string> | undefined,
  ): FoldOutcome;
}
