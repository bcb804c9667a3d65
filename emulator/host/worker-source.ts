/**
 * The worker's code, compiled from TypeScript when the first thread starts (esbuild, a few tens of milliseconds):
 * - `thread`: worker/thread.ts, the thread's side of the RPC, run as the worker's script;
 * - `runtime`: runtime/index.ts, the Apps Script globals, an expression evaluated inside each execution's fresh
 *   vm context, so that every object and error it makes belongs to that context's realm.
 */
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const EMULATOR_DIR = join(__dirname, '..');
// Apps Script runs V8; the runtime keeps native classes and spread (no helpers that reach outside the context).
const TARGET = 'es2022';
const RUNTIME_GLOBAL = '__emulatorRuntime';

export interface WorkerSources {
  thread: string;
  runtime: string;
}

let compiled: WorkerSources | undefined;

function bundle(entry: string, options: { format: 'cjs' | 'iife'; globalName?: string }): string {
  const result = buildSync({
    entryPoints: [join(EMULATOR_DIR, entry)],
    bundle: true,
    write: false,
    platform: options.format === 'cjs' ? 'node' : 'neutral',
    target: TARGET,
    charset: 'utf8',
    legalComments: 'none',
    ...options,
  });
  return result.outputFiles[0].text;
}

export function workerSources(): WorkerSources {
  if (!compiled) {
    const runtime = bundle('runtime/index.ts', { format: 'iife', globalName: RUNTIME_GLOBAL });
    compiled = {
      thread: bundle('worker/thread.ts', { format: 'cjs' }),
      // An expression: the bundle's `var` stays local to the wrapper, nothing is left on the script's globals.
      runtime: `(function () {\n${runtime}\nreturn ${RUNTIME_GLOBAL};\n})()`,
    };
  }
  return compiled;
}
