/**
 * The project's pinned clasp (devDependencies), run as `node <clasp's entry>`: no PATH lookup, no npx, so it works
 * the same where npm's shims are `.cmd` files (Windows) and never fetches another clasp version.
 * `tsx scripts/clasp.ts ARGS` runs `clasp ARGS` in the current folder (the npm scripts clasp:login, clasp:open…).
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** clasp pushes the build output only: rootDir is where scripts/build.ts writes. */
export const CLASP_ROOT_DIR = 'dist';

/** The JS entry of the installed @google/clasp (its package exports only that file). */
export function claspEntry(): string {
  return createRequire(join(ROOT, 'package.json')).resolve('@google/clasp');
}

/** Runs the pinned clasp with `args`; its output goes to this terminal unless `capture`. */
export function runClasp(
  args: string[],
  options: { cwd?: string; capture?: boolean } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [claspEntry(), ...args], {
    cwd: options.cwd ?? process.cwd(),
    stdio: options.capture ? ['inherit', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
}

/** The scriptId of `dir`/.clasp.json, or '' when the file or the id is missing. */
export function readScriptId(dir = ROOT): string {
  const file = join(dir, '.clasp.json');
  if (!existsSync(file)) return '';
  const settings = JSON.parse(readFileSync(file, 'utf8')) as { scriptId?: unknown };
  return typeof settings.scriptId === 'string' ? settings.scriptId.trim() : '';
}

/** Writes `dir`/.clasp.json for `scriptId`, pushing dist/ (the committed file is a template with an empty scriptId; npm run clasp:create fills it in). */
export function writeClaspSettings(scriptId: string, dir = ROOT): string {
  const file = join(dir, '.clasp.json');
  writeFileSync(file, `${JSON.stringify({ scriptId, rootDir: CLASP_ROOT_DIR }, null, 2)}\n`);
  return file;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const run = runClasp(process.argv.slice(2));
  if (run.error) console.error(`clasp could not start: ${run.error.message} (run npm install first)`);
  process.exit(run.status ?? 1);
}
