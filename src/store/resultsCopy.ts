/**
 * This execution's copies of the results sheet, valid while TABLE_VERSION_PROPERTY (read first) is the one they were
 * read at. The version counts the log's merges into the buckets: while it is the same, other writers only appended.
 */
import type { ResultsSheet } from './resultsSheet';
import { entriesOf } from './table';

export interface ResultsCopy {
  sheet: ResultsSheet;
  /** Valid at `wholeVersion`; `logRows`: the log's rows read. */
  whole: Map<string, string> | null;
  wholeVersion?: string;
  logRows?: number;
  /** Hashes absent from the sheet at `absentVersion`. */
  absent: Set<string>;
  absentVersion?: string;
}

export function resultsCopy(sheet: ResultsSheet): ResultsCopy {
  return { sheet, whole: null, absent: new Set<string>() };
}

/** `version`: read before the sheet. From the whole copy when current, else their bucket rows. */
export function fromSheet(copy: ResultsCopy, hashes: string[], version: string): Map<string, string> {
  const { whole, absent } = copy;
  if (whole && copy.wholeVersion === version) return entriesOf(whole, hashes);
  if (copy.absentVersion !== version) absent.clear();
  copy.absentVersion = version;
  const unknown = hashes.filter((hash) => !absent.has(hash));
  const found = copy.sheet.readHashes(unknown);
  for (const hash of unknown) if (!found.has(hash)) absent.add(hash);
  return found;
}

/** The whole copy, plus the log's new rows when only the log changed since (a writer holds the lock), else read. */
export function wholeSheet(copy: ResultsCopy, version: string): Map<string, string> {
  if (copy.whole && copy.wholeVersion === version) return copy.whole;
  const merges = mergesOf(copy.wholeVersion);
  const appended =
    copy.whole && copy.logRows !== undefined && merges !== undefined && merges === mergesOf(version);
  const read = appended ? copy.sheet.readLogFrom(copy.logRows ?? 0) : copy.sheet.readAll();
  const whole = appended && copy.whole ? copy.whole : new Map<string, string>();
  for (const [hash, encoded] of read.results) whole.set(hash, encoded);
  copy.whole = whole;
  copy.wholeVersion = version;
  copy.logRows = read.logRows;
  return whole;
}

/** `<merges>~<id>`: the log's merges into the buckets, and a new `id` each write. */
export function tableVersion(before: string, merged: boolean, id: string): string {
  return `${(mergesOf(before) ?? 0) + (merged ? 1 : 0)}~${id}`;
}

/** The count of merges in a version; undefined when it has none (unknown). */
function mergesOf(version: string | undefined): number | undefined {
  const match = /^(\d+)~/.exec(version ?? '');
  return match ? Number(match[1]) : undefined;
}

/** This execution's own write keeps its copies current. */
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
    if (merged) copy.logRows = 0;
    else if (copy.logRows !== undefined) copy.logRows += added.size;
  }
  if (copy.absentVersion === before) {
    for (const hash of added.keys()) copy.absent.delete(hash);
    copy.absentVersion = after;
  }
}
