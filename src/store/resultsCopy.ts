/**
 * What this execution knows of the results sheet, so it reads the sheet no more than it must: the whole sheet as
 * last read (a bulk slice's snapshot), and the hashes found absent, each valid while the table version
 * (TABLE_VERSION_PROPERTY, read from the document properties first) is the one they were read at. A writer changes
 * the version with every write; this execution's own writes keep its copies current (followOwnWrite).
 */
import type { ResultsSheet } from './ports';

export interface ResultsCopy {
  sheet: ResultsSheet;
  /** The whole sheet as last read, valid while the table version is `wholeVersion`. */
  whole: Map<string, string> | null;
  wholeVersion?: string;
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

/** Every result in the sheet as of `version`: the whole copy, read again unless it is current. */
export function wholeSheet(copy: ResultsCopy, version: string): Map<string, string> {
  if (!copy.whole || copy.wholeVersion !== version) {
    copy.whole = copy.sheet.readAll();
    copy.wholeVersion = version;
  }
  return copy.whole;
}

/** After this execution wrote `added` at table version `before` (now `after`): its own copies stay current. */
export function followOwnWrite(
  copy: ResultsCopy,
  before: string,
  after: string,
  added: ReadonlyMap<string, string>,
): void {
  if (copy.whole && copy.wholeVersion === before) {
    for (const [hash, encoded] of added) copy.whole.set(hash, encoded);
    copy.wholeVersion = after;
  }
  if (copy.absentVersion === before) {
    for (const hash of added.keys()) copy.absent.delete(hash);
    copy.absentVersion = after;
  }
}
