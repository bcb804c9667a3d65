/** Helpers for the =FINDEMAIL tests: formulas typed into cells, the sandbox's lookups, expected results. */
import { predictLookup } from '../../../sandbox/profiles';
import type { LedgerEntry } from '../../../sandbox/service';
import type { World } from '../../support/harness';

/** The sandbox's lookup requests (requests that carried a profile URL), in arrival order. */
export function lookups(world: World): LedgerEntry[] {
  return world.sandbox.service.ledger().filter((entry) => entry.networkUrl !== undefined);
}

/**
 * The sizes of the fetchAll batches of lookups, in the order the emulator made them: the requests with a profile
 * URL of each UrlFetchApp call (whatever the machine's speed).
 */
export function lookupBatches(world: World): number[] {
  const sizes = new Map<number, number>();
  for (const record of world.env.fetches) {
    if (!record.payload?.includes('network_url')) continue;
    sizes.set(record.call, (sizes.get(record.call) ?? 0) + 1);
  }
  return [...sizes.values()];
}

/** The address the sandbox finds for a URL (fails the test when the sandbox would not find one). */
export function emailOf(profileUrl: string): string {
  const prediction = predictLookup(profileUrl);
  if (prediction.kind !== 'found') throw new Error(`${profileUrl} is not a found profile in the sandbox`);
  return prediction.email;
}

/** Types `=FINDEMAIL(<col><row>)` into `formulaCol` for rows first..last (filled down, one formula a cell). */
export function fillDown(
  world: World,
  formulaCol: string,
  urlCol: string,
  first: number,
  last: number,
): void {
  const rows: string[][] = [];
  for (let row = first; row <= last; row++) rows.push([`=FINDEMAIL(${urlCol}${row})`]);
  world.env.enter(world.ss.id, `${formulaCol}${first}:${formulaCol}${last}`, rows);
}

/** The error message a cell shows on hover (#ERROR!), or undefined. */
export function cellError(world: World, a1: string): string | undefined {
  return world.env.cell(world.ss.id, a1)?.error;
}

/** Every value of a column range, flattened. */
export function column(world: World, a1: string): unknown[] {
  return world.env.values(world.ss.id, a1).map((row) => row[0]);
}

/**
 * Evaluates the formulas of `col` rows first..last in waves of at most 30 at once: Apps Script runs no more for one
 * user (the emulator refuses the rest, as Apps Script does), as a person gets a long column done with Refresh.
 */
export async function recalculateInWaves(
  world: World,
  col: string,
  first: number,
  last: number,
  wave = 30,
): Promise<number> {
  let evaluated = 0;
  for (let from = first; from <= last; from += wave) {
    const cells = [];
    for (let row = from; row <= Math.min(last, from + wave - 1); row++) cells.push({ a1: `${col}${row}` });
    evaluated += (await world.env.recalculate(world.ss.id, { cells })).evaluated;
  }
  return evaluated;
}
