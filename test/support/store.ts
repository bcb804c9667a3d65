/**
 * The store's ports as plain objects over one spreadsheet's state (document properties, the results sheet, the
 * credits log), counting the property calls by kind, with a clock the test moves. For unit tests of the store and
 * of what builds on it (a bulk slice); the store in Apps Script is in test/e2e/store/.
 */

import type { StoreServices } from '../../src/store/ports';
import { MemoryProperties, testClock } from './platform';

export function memoryStorePorts({
  properties = {},
  documentProperties = new MemoryProperties(),
  clock = testClock(),
}: {
  /** Document properties at the start. */
  properties?: Record<string, string>;
  /** The document properties themselves (a platform's, shared with the code under test). */
  documentProperties?: MemoryProperties;
  clock?: ReturnType<typeof testClock>;
} = {}) {
  const props = documentProperties.values;
  for (const [key, value] of Object.entries(properties)) props.set(key, value);
  const sheet = new Map<string, string>();
  const appended: Array<[string, string]> = [];
  const log: string[][] = [];
  /** Property calls by kind; `deleted`: the names deleted, in order. */
  const calls = { reads: 0, writes: 0, deletes: 0 };
  const deleted: string[] = [];
  /** Runs as the results sheet is written: another execution's write in the middle of a fold. */
  const meanwhile: Array<() => void> = [];
  /** The order the sheets and properties were written in: 'results', 'charges', 'properties', 'delete'. */
  const writes: string[] = [];
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
      setProperties: (values) => {
        calls.writes++;
        writes.push('properties');
        for (const [key, value] of Object.entries(values)) props.set(key, value);
      },
      deleteProperty: (key) => {
        calls.deletes++;
        writes.push('delete');
        deleted.push(key);
        props.delete(key);
      },
    },
    clock,
    resultsSheet: {
      readHashes: (hashes) =>
        new Map(hashes.filter((hash) => sheet.has(hash)).map((hash) => [hash, sheet.get(hash) as string])),
      readAll: () => ({ results: new Map(sheet), logRows: appended.length }),
      // The log as this fake keeps it: what appendResults added, in order (it never merges).
      readLogFrom: (logRow) => ({ results: new Map(appended.slice(logRow)), logRows: appended.length }),
      appendResults: (added) => {
        if (added.size > 0) writes.push('results');
        for (const [hash, encoded] of added) sheet.set(hash, encoded);
        appended.push(...added);
        for (const write of meanwhile.splice(0)) write();
        return false;
      },
    },
    appendCharges: (rows) => {
      if (rows.length > 0) writes.push('charges');
      log.push(...rows);
    },
  };
  return {
    io,
    props,
    sheet,
    log,
    calls,
    deleted,
    meanwhile,
    writes,
    clock,
    later: (ms: number) => clock.sleep(ms),
    now: () => clock.now(),
  };
}

export type MemoryStorePorts = ReturnType<typeof memoryStorePorts>;
