/** Helpers for the result-store tests: the results sheet as the add-on lays it out, read and seeded host-side. */

import { ANSWERS_PREFIX, RESULTS_SHEET } from '../../../src/core/propertyNames';
import { parseNetworkHosts, parseProfileInput } from '../../../src/core/url';
import type { LookupResult } from '../../../src/lookup/result';
import { encodeResult } from '../../../src/store/codec';
import {
  BUCKETS,
  bucketOf,
  FIRST_BUCKET_ROW,
  hashOf,
  LOG_FIRST_ROW,
  parseRows,
  TABLE_ROWS,
} from '../../../src/store/table';
import { SANDBOX_NETWORK_HOSTS, type World } from '../../support/harness';

const HOSTS = parseNetworkHosts(SANDBOX_NETWORK_HOSTS);

/** The normalised key the add-on stores a profile URL's result under. */
export function keyOf(profileUrl: string): string {
  const input = parseProfileInput(profileUrl, HOSTS);
  if (input.kind !== 'url') throw new Error(`not a profile URL: ${profileUrl}`);
  return input.key;
}

export { found } from '../../support/results';

/** Writes results straight into the results sheet (as a long history of runs would have left it). */
export function seedResultsSheet(world: World, results: Array<[string, LookupResult]>): void {
  const sheet = world.ss.sheetByName(RESULTS_SHEET) ?? world.ss.addSheet(RESULTS_SHEET, TABLE_ROWS, 2);
  const buckets = new Map<number, string[]>();
  const now = Date.now();
  for (const [profileUrl, result] of results) {
    const hash = hashOf(keyOf(profileUrl));
    const lines = buckets.get(bucketOf(hash)) ?? [];
    lines.push(hash + encodeResult(result, now));
    buckets.set(bucketOf(hash), lines);
  }
  for (let row = 1; row <= TABLE_ROWS; row++)
    for (let col = 1; col <= 2; col++) sheet.ensure(row, col).format = '@';
  sheet.ensure(1, 1).value = 'Profile Email Finder: paid results. Do not edit or delete.';
  for (const [bucket, lines] of buckets) sheet.ensure(FIRST_BUCKET_ROW + bucket, 1).value = lines.join('\n');
}

/** Every result in the results sheet, by hash (buckets and log). */
export function sheetResults(world: World): Map<string, string> {
  const sheet = world.ss.sheetByName(RESULTS_SHEET);
  if (!sheet) return new Map();
  const rows: unknown[][] = [];
  for (let row = FIRST_BUCKET_ROW; row <= TABLE_ROWS; row++) {
    const cells: unknown[] = [];
    for (let col = 1; col <= sheet.maxCols; col++) cells.push(sheet.get(row, col)?.value ?? '');
    rows.push(cells);
  }
  const all = parseRows(rows.slice(0, BUCKETS));
  return parseRows(rows.slice(LOG_FIRST_ROW - FIRST_BUCKET_ROW), all, true);
}

export function storedHash(profileUrl: string): string {
  return hashOf(keyOf(profileUrl));
}

/** Document property names with this prefix. */
export function propertyNames(world: World, prefix: string): string[] {
  return world.env
    .documentProperties(world.ss.id)
    .keys()
    .filter((key) => key.startsWith(prefix));
}

/** The profiles whose paid answers wait in batch answers (`pef.a.`, src/store/records.ts) for a writing execution. */
export function answersWaiting(world: World): string[] {
  const all = world.env.documentProperties(world.ss.id).all();
  return Object.entries(all)
    .filter(([name]) => name.startsWith(ANSWERS_PREFIX))
    .flatMap(([, value]) => (JSON.parse(value) as { r: Array<[string, string]> }).r.map(([key]) => key));
}
