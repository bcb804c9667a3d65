/**
 * What this execution knows of the results sheet, so it reads the sheet no more than it must: the whole sheet as
 * last read (a bulk slice's snapshot), and the hashes found absent, each valid while the table version
 * (TABLE_VERSION_PROPERTY, read from the document properties first) is the one they were read at. A writer changes
 * the version with every write; this execution's own writes keep its copies current (followOwnWrite). The version
 * counts the merges of the log into the bucket rows (tableVersion): while the count is the same, another writer
 * only appended to the log, so the whole copy reads the log's new rows alone.
 */
import type { ResultsSheet } from './ports';

export interface ResultsCopy {
  sheet: ResultsSheet;
  /** The whole sheet as last read, valid while the table version is `wholeVersion`; its log's rows read. */
  whole: Map<string, string> | null;
  wholeVersion?: string;
  logRows?: number;
  /** Hashes known to be absent from the sheet at table version `absentVersion`. */
  absent: Set<string>;
  absentVersion?: string;
}

export function resultsCopy(sheet: ResultsSheet): ResultsCopy {
  return { sheet, whole: null, absent: new Set<string>() };
}

/**
 * The sheet's results of these hashes as of `version` (read after the properties that gave it): from the
 * whole copy when it is current, else from their bucket rows; remembers which are absent.
 */
export function fromSheet(copy: ResultsCopy, hashes: string[], version: string): Map<string, string> {
  const found = new Map<string, string>();
  const { whole, absent } = copy;
  if (whole && copy.wholeVersion === version) {
    for (const hash of hashes) {
      const value = whole.get(hash);
      if (value !== undefined) found.set(hash, value);
    }
    return found;
  }
  if (copy.absentVersion !== version) absent.clear();
  copy.absentVersion = version;
  const unknown = hashes.filter((hash) => !absent.has(hash));
  for (const [hash, encoded] of copy.sheet.readHashes(unknown)) found.set(hash, encoded);
  for (const hash of unknown) if (!found.has(hash)) absent.add(hash);
  return found;
}

/**
 * Every result in the sheet as of `version`: the whole copy, current as it is, or with the log's new rows when only
 * the log changed since (the same count of merges: an append; a writer holds the document lock, so no merge runs
 * meanwhile), else read again.
 */
export function wholeSheet(copy: ResultsCopy, version: string): Map<string, string> {
  if (copy.whole && copy.wholeVersion === version) return copy.whole;
  const appended = copy.whole && copy.logRows !== undefined && sameBuckets(copy.wholeVersion, version);
  const read = appended ? copy.sheet.readLogFrom(copy.logRows ?? 0) : copy.sheet.readAll();
  const whole = appended && copy.whole ? copy.whole : new Map<string, string>();
  for (const [hash, encoded] of read.results) whole.set(hash, encoded);
  copy.whole = whole;
  copy.wholeVersion = version;
  copy.logRows = read.logRows;
  return whole;
}

/**
 * The table version after a write of results over `before` (TABLE_VERSION_PROPERTY): `<merges>~<id>`, the count
 * of merges of the log into the bucket rows, one more when this write merged (`merged`); a new `id` each write.
 */
export function tableVersion(before: string, merged: boolean, id: string): string {
  return `${(mergesOf(before) ?? 0) + (merged ? 1 : 0)}~${id}`;
}

/** Two table versions with the same bucket rows: the same count of merges (a version without one: unknown). */
function sameBuckets(a: string | undefined, b: string): boolean {
  const merges = a === undefined ? undefined : mergesOf(a);
  return merges !== undefined && merges === mergesOf(b);
}

function mergesOf(version: string): number | undefined {
  const match = /^(\d+)~/.exec(version);
  return match ? Number(match[1]) : undefined;
}

/** After this execution wrote `added` at table version `before` (now `after`): its own copies stay current. */
export function followOwnWrite(
  copy: ResultsCopy,
  before: string,
  after: string,
  added: ReadonlyMap<string, string>,
  merged = false,
): void {
  if (copy.whole && copy.wholeVersion === before) {
    for (const [hash, encoded] of added) copy.whole.set(hash, encoded);
    copy.wholeVersion = after;
    // Merged with the log into the buckets (the log empty now), or appended at the log's end, read up to there.
    if (merged) copy.logRows = 0;
    else if (copy.logRows !== undefined) copy.logRows += added.size;
  }
  if (copy.absentVersion === before) {
    for (const hash of added.keys()) copy.absent.delete(hash);
    copy.absentVersion = after;
  }
}
