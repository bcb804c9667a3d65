/** The results sheet's layout (src/store/table.ts) on plain rows: buckets, the log, and cells kept under CELL_CHARS. */
import { HASH_CHARS, stableHash } from '../../src/core/hash';
import { CELL_CHARS } from '../../src/core/limits';
import { BUCKETS, bucketOf, hashOf, mergeIntoBuckets, parseRows } from '../../src/store/table';

const emptyBuckets = (): unknown[][] => Array.from({ length: BUCKETS }, () => ['']);

test('a hash has one bucket among BUCKETS, and 10,000 profiles spread over most of them', () => {
  const buckets = Array.from({ length: 10_000 }, (_, i) => bucketOf(hashOf(`linkedin.com/in/person-${i}`)));
  expect(buckets.every((bucket) => Number.isInteger(bucket) && bucket >= 0 && bucket < BUCKETS)).toBe(true);
  expect(new Set(buckets).size).toBeGreaterThan(BUCKETS * 0.8);
});

test('merged results are found again in their bucket rows; a later result of a profile replaces the earlier', () => {
  const ann = stableHash('linkedin.com/in/ann');
  const bob = stableHash('linkedin.com/in/bob');
  let rows = mergeIntoBuckets(
    emptyBuckets(),
    new Map([
      [ann, 'E1'],
      [bob, 'E2'],
    ]),
  );
  rows = mergeIntoBuckets(rows, new Map([[ann, 'E3']]));
  expect(rows).toHaveLength(BUCKETS);
  expect(parseRows(rows)).toEqual(
    new Map([
      [ann, 'E3'],
      [bob, 'E2'],
    ]),
  );
});

test('a bucket spills into more cells before one passes CELL_CHARS; every row is as wide as the widest', () => {
  const encoded = 'x'.repeat(4000);
  const hashes: string[] = [];
  for (let i = 0; hashes.length < 15; i++) {
    const hash = stableHash(`linkedin.com/in/p-${i}`);
    if (bucketOf(hash) === 7) hashes.push(hash);
  }
  const rows = mergeIntoBuckets(emptyBuckets(), new Map(hashes.map((hash) => [hash, encoded])));
  const cells = rows[7] as string[];
  expect(cells.length).toBe(2);
  for (const cell of cells) expect(cell.length).toBeLessThanOrEqual(CELL_CHARS);
  for (const row of rows) expect(row).toHaveLength(cells.length);
  expect(parseRows([rows[7]]).size).toBe(15);
});

test('log rows are [hash, result], later rows win; lines no longer than a hash hold nothing', () => {
  const ann = stableHash('linkedin.com/in/ann');
  const found = parseRows(
    [
      [ann, 'OLD'],
      ['short', 'X'],
      [ann, 'NEW'],
      ['', ''],
    ],
    new Map(),
    true,
  );
  expect(found).toEqual(new Map([[ann, 'NEW']]));
  expect(parseRows([[`${'a'.repeat(HASH_CHARS)}`, `${ann}R\n${'b'.repeat(HASH_CHARS)}S`]])).toEqual(
    new Map([
      [ann, 'R'],
      ['b'.repeat(HASH_CHARS), 'S'],
    ]),
  );
});
