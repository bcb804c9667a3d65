/** The playground's state on disk: one JSON file in .playground-state/, written atomically. */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SavedService } from './service';
import type { SavedWorkbook } from './workbook';

export const STATE_FILE = 'state.json';

export interface SavedState {
  version: 2;
  workbook: SavedWorkbook;
  service: SavedService;
}

export function loadState(dir: string, log: (line: string) => void): SavedState | undefined {
  const file = join(dir, STATE_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as SavedState;
    if (state?.version !== 2 || !state.workbook || !state.service) throw new Error('unknown format');
    return state;
  } catch (error) {
    log(
      `Ignoring the saved state in ${file} (${error instanceof Error ? error.message : String(error)}): starting fresh.`,
    );
    return undefined;
  }
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
