/**
 * "Try 10 rows first": a run over the rows of the first few new profiles of a range only. Its
 * profiles are then known, so the run over the whole range afterwards ("Run the rest") pays none of them again and
 * its plan prices only the rest. Pure.
 */

import type { RunPlan } from '../api';
import type { LookupResult } from '../lookup/result';
import type { ColumnRead } from './placement';

/** The range's first rows `count` long (the job's rows then end at the last of them). */
export function firstRowsOf(read: ColumnRead, count: number): ColumnRead {
  return { ...read, lastRow: read.firstRow + count - 1, rows: read.rows.slice(0, count) };
}

/**
 * The shortest first rows of `read` holding `profiles` new profiles (as `planOf` prices them), found by halving;
 * undefined when the whole range holds no more than that (the trial would be the whole run).
 */
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

/** The store's answers remembered, so that halving reads each key from the store once. */
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
