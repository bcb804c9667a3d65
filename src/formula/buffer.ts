/**
 * The simple triggers move what formulas paid for (the buffer in document properties) into the results sheet, so
 * that a sheet of many formulas rarely needs the sidebar for it. onOpen and onEdit run in AuthMode.LIMITED (or
 * FULL from onInstall), which may read and write the bound spreadsheet and its properties; in AuthMode.NONE they
 * may do neither (workspace/add-ons/concepts/editor-auth-lifecycle; apps-script/reference/script/auth-mode, whose
 * example reads document properties in onOpen unless the mode is NONE). onEdit runs on every edit: one read of the
 * property names, and the move only when the buffer holds something.
 */
import type { FormulaBuffer } from '../store/ports';

/** Returns how many buffered results were moved into the results sheet. Never fails the trigger. */
export function keepFormulaBuffer(event: unknown, buffer: FormulaBuffer): number {
  const mode = String((event as { authMode?: unknown } | undefined)?.authMode ?? '');
  if (mode !== 'LIMITED' && mode !== 'FULL') return 0;
  try {
    return buffer.holdsResults() ? buffer.keep() : 0;
  } catch {
    return 0;
  }
}
