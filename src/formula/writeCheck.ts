/**
 * Formulas keep what they pay for in document properties (the buffer, the sending records, the day's count), but
 * whether a custom function may write document properties is not documented (apps-script/guides/sheets/functions
 * lists Properties without saying; emulator/README.md lists what users report). So before its first paid request
 * in a spreadsheet a formula writes a document property and reads it back, once: the property it leaves
 * (FORMULA_WRITES_PROPERTY) tells later formulas, in the read they make anyway. A refusal cannot be written
 * there, so it is kept in the document cache; meanwhile formulas send nothing (no claim taken, no credit spent)
 * and point to the bulk run, whose results they show.
 */
import { FORMULA_WRITES_REFUSED_SECONDS } from '../core/limits';
import { FORMULA_WRITES_PROPERTY, FORMULA_WRITES_REFUSED_KEY } from '../core/propertyNames';
import type { LookupPorts, StoreRead } from '../lookup/ports';
import type { Platform } from '../platform/platform';

/** `stored`: the execution's first read of the store, which read the document properties (a key was missing). */
export function formulasMayWrite(
  platform: Platform,
  { cache, clock }: LookupPorts,
  stored: StoreRead,
): boolean {
  if (stored.property(FORMULA_WRITES_PROPERTY)) return true;
  if (cache?.get(FORMULA_WRITES_REFUSED_KEY)) return false;
  if (platform.documentPropertyWritable(FORMULA_WRITES_PROPERTY, String(clock.now()))) return true;
  cache?.put(FORMULA_WRITES_REFUSED_KEY, '1', FORMULA_WRITES_REFUSED_SECONDS);
  return false;
}
