/**
 * `npm run bench:emulator`: what one service call costs the emulator while its execution has sheet writes not
 * flushed (emulator/services/pending.ts answers it from the execution's own view of the spreadsheet), in a
 * spreadsheet of 1,000 rows and of 20,000 rows, side by side, in one run. A small fixture script (not the add-on),
 * no request sent. Every loop is bounded.
 *
 *   npx tsx bench/emulator-calls.ts [--calls=N]   N reads a measure (default 300)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Environment } from '../emulator';

const OWNER = 'owner@example.com';
const SIZES = [1000, 20_000];
const COLUMNS = 6;
const REPEATS = 3;

const FIXTURE = `
/** Writes one cell (left pending unless flushed), then reads one cell \`calls\` times. */
function probe(calls, flush) {
  var sheet = SpreadsheetApp.getActiveSheet();
  sheet.getRange(1, ${COLUMNS + 1}).setValue('pending');
  if (flush) SpreadsheetApp.flush();
  for (var i = 0; i < calls; i++) sheet.getRange(2 + (i % 500), 1).getValue();
  return calls;
}
`;

async function measure(env: Environment, rows: number, calls: number, flush: boolean): Promise<number> {
  const data = Array.from({ length: rows }, (_, r) =>
    Array.from({ length: COLUMNS }, (_, c) => `r${r + 1}c${c + 1}-https://www.network.com/in/someone-${r}`),
  );
  const ss = env.createSpreadsheet({ owner: OWNER, rows: rows + 1, cols: COLUMNS + 2, data });
  let best = Number.POSITIVE_INFINITY;
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    const started = performance.now();
    const result = await env.execute('probe', [calls, flush], { spreadsheetId: ss.id });
    const ms = performance.now() - started;
    if (!result.ok) throw new Error(`probe failed: ${result.error?.message}`);
    best = Math.min(best, ms);
  }
  return best / calls;
}

async function main(): Promise<void> {
  const callsArg = process.argv.find((arg) => arg.startsWith('--calls='));
  const calls = Math.min(2000, Math.max(10, Number(callsArg?.slice('--calls='.length) ?? 300)));
  const dir = mkdtempSync(join(tmpdir(), 'pef-bench-emulator-'));
  writeFileSync(join(dir, 'Code.js'), FIXTURE);
  writeFileSync(
    join(dir, 'appsscript.json'),
    JSON.stringify({ timeZone: 'Etc/UTC', runtimeVersion: 'V8', exceptionLogging: 'STACKDRIVER' }),
  );
  const env = new Environment({ distDir: dir });
  try {
    const figures = [];
    for (const rows of SIZES) {
      const pending = await measure(env, rows, calls, false);
      const flushed = await measure(env, rows, calls, true);
      figures.push({ rows, pending, flushed });
    }
    console.log(
      `Emulator: ms per service call (one-cell getValue, best of ${REPEATS} executions of ${calls} calls), ${COLUMNS} columns`,
    );
    for (const { rows, pending, flushed } of figures) {
      console.log(
        `  ${String(rows).padStart(6)} rows: ${pending.toFixed(3)} ms with a write pending, ${flushed.toFixed(3)} ms flushed`,
      );
    }
    const [small, large] = figures;
    console.log(
      `  ${large.rows} rows / ${small.rows} rows, with a write pending: ${(large.pending / small.pending).toFixed(2)}x`,
    );
  } finally {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
