/** The playground's state on disk: one JSON file in .playground-state/, written atomically. */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SavedService } from './service';
import { isSavedWorkbook, type SavedWorkbook } from './workbook';

export const STATE_FILE = 'state.json';
/** The format of state.json: 3 keeps the whole spreadsheet (2 kept one sheet and the results sheet only). */
export const STATE_VERSION = 3;

export interface SavedState {
  version: typeof STATE_VERSION;
  workbook: SavedWorkbook;
  service: SavedService;
}

/**
 * The saved state, or undefined for a fresh start. A file of another format, or one that cannot be read, is moved
 * aside (state.json.old) and the log says so: the playground then starts from the sample sheet.
 */
export function loadState(dir: string, log: (line: string) => void): SavedState | undefined {
  const file = join(dir, STATE_FILE);
  if (!existsSync(file)) return undefined;
  let reason: string;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as Partial<SavedState> | null;
    if (state?.version === STATE_VERSION && isSavedWorkbook(state.workbook) && state.service)
      return state as SavedState;
    reason =
      typeof state?.version === 'number' && state.version !== STATE_VERSION
        ? `its format is ${state.version}, this playground reads format ${STATE_VERSION}`
        : 'it is not a whole state this playground wrote';
  } catch (error) {
    reason = `it cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
  setAside(dir, file, log, reason);
  return undefined;
}

/** A saved state this playground cannot start from: moved to state.json.old, with a plain line in the log. */
export function setAside(dir: string, file: string, log: (line: string) => void, reason: string): void {
  const aside = join(dir, `${STATE_FILE}.old`);
  renameSync(file, aside);
  log(
    `The saved state was not used: ${reason}. The playground starts from the sample sheet and a fresh sandbox; the old file is kept in ${aside}.`,
  );
}

export function writeState(dir: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, STATE_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

export function clearState(dir: string): void {
  rmSync(join(dir, STATE_FILE), { force: true });
}
