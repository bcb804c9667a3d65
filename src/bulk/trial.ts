/** "Try 10 rows first": a run over the rows of a range's first few new profiles only. Pure. */
import type { RunPlan } from '../api';
import type { LookupResult } from '../lookup/result';
import type { ColumnRead } from './placement';

export function firstRowsOf(read: ColumnRead, count: number): ColumnRead {
  return { ...read, lastRow: read.firstRow + count - 1, rows: read.rows.slice(0, count) };
}

/** The shortest first rows holding `profiles` new profiles, by halving; undefined when that is the whole range. */
export function trialRead(
  read: ColumnRead,
  planOf: (read: ColumnRead) => RunPlan,
  profiles: number,
  whole: RunPlan,
): ColumnRead | undefined {
  if (whole.newProfiles <= profiles) return undefined;
  let low = 1;
  let high = read.rows.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (planOf(firstRowsOf(read, middle)).newProfiles >= profiles) high = middle;
    else low = middle + 1;
  }
  return firstRowsOf(read, low);
}

/** Halving reads each key from the store once. */
export function rememberingStore(
  stored: (keys: string[]) => Map<string, LookupResult>,
): (keys: string[]) => Map<string, LookupResult> {
  const known = new Map<string, LookupResult | null>();
  return (keys) => {
    const unknown = keys.filter((key) => !known.has(key));
    if (unknown.length > 0) {
      const found = stored(unknown);
      for (const key of unknown) known.set(key, found.get(key) ?? null);
    }
    const answer = new Map<string, LookupResult>();
    for (const key of keys) {
      const result = known.get(key);
      if (result) answer.set(key, result);
    }
    return answer;
  };
}
