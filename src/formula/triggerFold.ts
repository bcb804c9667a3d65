/**
 * The simple triggers fold the batches formulas paid for into the results sheet and the credits log, so that a
 * sheet of many formulas rarely needs the sidebar for it. onOpen and onEdit run in AuthMode.LIMITED (or FULL from
 * onInstall), which may read and write the bound spreadsheet and its properties; in AuthMode.NONE they may do
 * neither (workspace/add-ons/concepts/editor-auth-lifecycle; apps-script/reference/script/auth-mode, whose example
 * reads document properties in onOpen unless the mode is NONE). onEdit runs on every edit: one read of the property
 * names, and the fold only when there is something to fold.
 */
import type { Folding } from '../store/ports';

/** Returns how many results were folded into the results sheet. Never fails the trigger. */
export function foldOnTrigger(event: unknown, folding: Folding, names?: readonly string[]): number {
  const mode = String((event as { authMode?: unknown } | undefined)?.authMode ?? '');
  if (mode !== 'LIMITED' && mode !== 'FULL') return 0;
  try {
    return folding.waiting(names) ? folding.fold() : 0;
  } catch {
    return 0;
  }
}
