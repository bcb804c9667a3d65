/** Service-call counts by method name (`Range.getValues`), as executions report them. */

/** Is this service-call name a call to the Spreadsheet service (for the benchmark's counts)? */
export function isSpreadsheetCall(name: string): boolean {
  return (
    /^(Range|RangeList|Sheet|Spreadsheet|SpreadsheetApp)\./.test(name) && name !== 'SpreadsheetApp.getUi'
  );
}

export function spreadsheetCalls(counts: Record<string, number>): number {
  let total = 0;
  for (const [name, n] of Object.entries(counts)) if (isSpreadsheetCall(name)) total += n;
  return total;
}

export function addCounts(into: Record<string, number>, from: Record<string, number> | undefined): void {
  for (const [name, n] of Object.entries(from ?? {})) into[name] = (into[name] ?? 0) + n;
}

/** PropertiesService reads and writes (each counts toward the daily properties quota). */
export function propertyCalls(counts: Record<string, number>): number {
  return sumOf(counts, /^Properties\./);
}

/** CacheService reads and writes. */
export function cacheCalls(counts: Record<string, number>): number {
  return sumOf(counts, /^Cache\./);
}

function sumOf(counts: Record<string, number>, pattern: RegExp): number {
  let total = 0;
  for (const [name, n] of Object.entries(counts)) if (pattern.test(name)) total += n;
  return total;
}
