/**
 * Runs the project's scripts/ (and clasp) as child processes, as `npm run …` would, with the offline guard preloaded:
 * a TCP connection or DNS lookup in them, or in any node process they start, is refused and recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = join(__dirname, '..', '..');
/** A tsx start takes seconds, and several run at once on a loaded 2-core machine. */
const SCRIPT_KILL_MS = 120_000;
export const AWAIT_SCRIPT_MS = 150_000;
const GUARD = pathToFileURL(join(__dirname, 'offline-guard.mjs')).href;
/** tsx's loader by URL: a bare `--import tsx` would be resolved from the child's folder, a temporary one here. */
const TSX = pathToFileURL(require.resolve('tsx')).href;

export interface ScriptRun {
  status: number | null;
  out: string;
  stdout: string;
}

const children = new Set<ChildProcess>();
const temps: string[] = [];

export function tempDir(prefix = 'pef-scripts-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Kills what is still running and removes the temporary folders (call in afterAll). */
export function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** File the offline guard records refused connections (and spawns, with noSpawn) into. */
  guardLog: string;
  /** Refuse and record every process start too. */
  noSpawn?: boolean;
}

/** Runs `node ARGS` asynchronously (so the runs of a test file overlap) under the offline guard. */
export function runNode(args: string[], options: RunOptions): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? ROOT,
      env: {
        ...process.env,
        ...options.env,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${GUARD}`.trim(),
        OFFLINE_GUARD_LOG: options.guardLog,
        OFFLINE_GUARD_NO_SPAWN: options.noSpawn ? '1' : '0',
      },
      timeout: SCRIPT_KILL_MS,
      killSignal: 'SIGKILL',
    });
    children.add(child);
    let out = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('close', (status) => {
      children.delete(child);
      resolve({ status, out, stdout });
    });
  });
}

/**
 * Runs scripts/`script` with tsx. `node --import tsx` rather than the tsx CLI, which runs the script in a second
 * process that a kill of the first would leave running.
 */
export function runScript(script: string, args: string[], options: RunOptions): Promise<ScriptRun> {
  return runNode(['--import', TSX, join(ROOT, 'scripts', script), ...args], options);
}

/** What the offline guard refused and recorded (empty when nothing tried the network). */
export function guardRecords(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}
