/**
 * The store's ports as plain objects over one spreadsheet's state (document properties, the results sheet, the
 * credits log, the document lock, a document cache), counting the property and lock calls, with a clock the test
 * moves. For the store's unit tests; the store in Apps Script is in test/e2e/store/.
 */

import type { StoreServices } from '../../src/store/ports';
import { memoryCache } from './platform';

export function memoryStorePorts({
  properties = {},
  withCache = false,
}: {
  /** The document properties at the start. */
  properties?: Record<string, string>;
  /** Whether the execution has a document cache (where a formula's batch keeps its journal). */
  withCache?: boolean;
} = {}) {
  const props = new Map(Object.entries(properties));
  const cached = new Map<string, string>();
  const cache = memoryCache(cached);
  const sheet = new Map<string, string>();
  const log: string[][] = [];
  const calls = { reads: 0, writes: 0, locks: 0 };
  /** The document lock stays busy (or LockService refuses it): the store's tries get nothing. */
  const lock = { busy: false };
  /** Runs inside a setProperties that deletes all others: another execution's write landing after its last read. */
  const beforeRewrite: Array<() => void> = [];
  /** Runs as the results sheet is written (another execution's write between keepPending's reads). */
  const meanwhile: Array<() => void> = [];
  let now = Date.UTC(2026, 10, 27, 9);
  const io: StoreServices = {
    properties: {
      getProperty: (key) => {
        calls.reads++;
        return props.get(key) ?? null;
      },
      getProperties: () => {
        calls.reads++;
        return Object.fromEntries(props);
      },
      getKeys: () => {
        calls.reads++;
        return [...props.keys()];
      },
      setProperties: (values, deleteAllOthers) => {
        calls.writes++;
        if (deleteAllOthers) for (const write of beforeRewrite.splice(0)) write();
        if (deleteAllOthers) props.clear();
        for (const [key, value] of Object.entries(values)) props.set(key, value);
      },
    },
    cache: () => (withCache ? cache : null),
    clock: {
      now: () => now,
      sleep: (ms) => {
        now += ms;
      },
    },
    resultsSheet: {
      readHashes: (hashes) =>
        new Map(hashes.filter((hash) => sheet.has(hash)).map((hash) => [hash, sheet.get(hash) as string])),
      readAll: () => new Map(sheet),
      appendResults: (added) => {
        for (const [hash, encoded] of added) sheet.set(hash, encoded);
        for (const write of meanwhile.splice(0)) write();
      },
    },
    appendCharges: (rows) => {
      log.push(...rows);
    },
    withStoreLock: (work) => {
      calls.locks++;
      if (lock.busy) throw new Error('busy');
      work();
    },
    tryStoreLock: (work) => {
      calls.locks++;
      if (lock.busy) return false;
      work();
      return true;
    },
  };
  return {
    io,
    lock,
    meanwhile,
    beforeRewrite,
    props,
    cached,
    sheet,
    log,
    calls,
    later: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}
