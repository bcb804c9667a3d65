/**
 * Everything the service may have charged: the hidden results sheet, and until folded there, ./records.ts. A fold
 * writes the sheets first, then deletes the properties, so nothing paid for is lost whatever stops it.
 */
import type { Platform } from '../core/ports';
import { ANSWERS_PREFIX, SENDING_PREFIX, TABLE_VERSION_PROPERTY } from '../core/propertyNames';
import { timeId } from '../core/timeId';
import type { LookupResult } from '../lookup/result';
import { type CachedResult, decodeResult } from './codec';
import { type Folded, fold, readRecords } from './records';
import {
  followOwnWrite,
  fromSheet,
  type ResultsCopy,
  resultsCopy,
  tableVersion,
  wholeSheet,
} from './resultsCopy';
import { resultsSheetOn } from './resultsSheet';
import { hashOf } from './table';

type Properties = Readonly<Record<string, string>>;

export type Store = ReturnType<typeof storeOf>;

/** What one execution read of the results sheet is kept for it (./resultsCopy.ts). */
export function storeOf(
  platform: Pick<Platform, 'documentProperties' | 'clock' | 'resultsSheet' | 'creditsLog'>,
) {
  const copy: ResultsCopy = resultsCopy(resultsSheetOn(platform.resultsSheet));
  const props = () => platform.documentProperties();
  const now = () => platform.clock.now();

  const versionIn = (all: Properties) => all[TABLE_VERSION_PROPERTY] ?? '';

  /** `all`: the properties read in this hold. A writer keeps the whole sheet, a reader reads its rows. */
  function lookIn(keys: string[], all: Properties, whole = true): Map<string, CachedResult> {
    const pending = readRecords(all, now()).results;
    const version = versionIn(all);
    const unfolded = keys.map(hashOf).filter((hash) => !pending.has(hash));
    const inSheet = whole ? wholeSheet(copy, version) : fromSheet(copy, unfolded, version);
    return decoded(keys, (hash) => pending.get(hash) ?? inSheet.get(hash));
  }

  return {
    lookIn,
    /** The sheet first (no property call), then one read of the properties for the keys it lacks. */
    getMany(keys: string[]): Map<string, LookupResult> {
      const first = fromSheet(copy, keys.map(hashOf), copy.absentVersion ?? '');
      const results = decoded(keys, (hash) => first.get(hash));
      const lacking = keys.filter((key) => !results.has(key));
      if (lacking.length > 0)
        for (const [key, cached] of lookIn(lacking, props().getProperties(), false)) results.set(key, cached);
      return new Map([...results].map(([key, cached]) => [key, cached.result]));
    },
    allResults(): LookupResult[] {
      const all = props().getProperties();
      const merged = new Map([...wholeSheet(copy, versionIn(all)), ...readRecords(all, now()).results]);
      return [...merged.values()].flatMap((encoded) => decodeResult(encoded)?.result ?? []);
    },
    /** Holding the lock, in a writing execution. `runs`: also runs' sends; `also`: more properties in the same call. */
    fold(
      read: Record<string, string> | undefined,
      runs: boolean,
      also: (folded: Folded) => Record<string, string> = () => ({}),
    ): { all: Record<string, string>; folded: Folded } {
      const all = { ...(read ?? props().getProperties()) };
      const folded = fold(readRecords(all, now()).final, now(), runs);
      const values = also(folded);
      if (folded.names.length === 0 && Object.keys(values).length === 0) return { all, folded };
      const merged = copy.sheet.appendResults(folded.results);
      platform.creditsLog.append(folded.charges);
      const before = versionIn(all);
      if (folded.results.size > 0)
        values[TABLE_VERSION_PROPERTY] = tableVersion(before, merged, timeId(now()));
      if (Object.keys(values).length > 0) props().setProperties(values);
      Object.assign(all, values);
      for (const name of folded.names) {
        props().deleteProperty(name);
        delete all[name];
      }
      if (values[TABLE_VERSION_PROPERTY])
        followOwnWrite(copy, before, values[TABLE_VERSION_PROPERTY], folded.results, merged);
      return { all, folded };
    },
  };
}

function decoded(keys: string[], encodedAt: (hash: string) => string | undefined): Map<string, CachedResult> {
  const found = new Map<string, CachedResult>();
  for (const key of keys) {
    const cached = decodeResult(encodedAt(hashOf(key)));
    if (cached) found.set(key, cached);
  }
  return found;
}

/** In a writing execution; never throws. */
export function foldFormulas(
  platform: Pick<Platform, 'documentProperties' | 'clock' | 'resultsSheet' | 'creditsLog' | 'lock'>,
): number {
  try {
    return (
      platform.lock.tryWith(() => storeOf(platform).fold(undefined, false).folded.results.size)?.value ?? 0
    );
  } catch {
    return 0;
  }
}

export function waitingToFold(names: readonly string[]): boolean {
  return names.some((name) => name.startsWith(ANSWERS_PREFIX) || name.startsWith(SENDING_PREFIX));
}
