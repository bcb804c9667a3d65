/**
 * `npm run bench:credits` (also step 8 of `npm run bench`): the Credits tab over a long log, through the built
 * dist/ in the Apps Script emulator. Opening the tab (getCreditsSummary) with 1,000 and with 100,000 logged
 * charges, side by side: spreadsheet calls and time; then Export of 20,000 rows: executions and time. Every loop is
 * bounded; nothing leaves 127.0.0.1 (the summary and the export send no request).
 */
import { performance } from 'node:perf_hooks';
import { Environment, spreadsheetCalls } from '../emulator';
import { startSandbox } from '../sandbox/server';
import type { CreditsExport } from '../src/api';
import { CREDITS_SHEET } from '../src/core/propertyNames';
import { CREDITS_HEADER, LOST_OUTCOME_TEXT } from '../src/store/credits';

const OWNER = 'owner@example.com';
const DAY = 24 * 3600 * 1000;
const MAX_EXPORT_STEPS = 50;

/** `count` charges over 40 days, laid out as the add-on writes them (src/store/credits.ts): runs and formulas. */
function logRows(count: number, now: number): string[][] {
  const rows: string[][] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(now - Math.floor((i / count) * 40 * DAY) - 1000)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    const outcome = i % 17 === 0 ? LOST_OUTCOME_TEXT : i % 3 === 0 ? 'no address' : 'found';
    const profile = `network.com/in/bench-${i}`;
    rows.push(
      i % 4 === 0
        ? [at, 'formulas', "the spreadsheet owner's key", 'formulas', profile, outcome, '=FINDEMAIL']
        : [at, 'run', OWNER, 'a1b2c3d4', profile, outcome, `run r-${i % 4} · 'Sheet1'!A2:A9000`],
    );
  }
  return rows;
}

function withLog(env: Environment, count: number): string {
  const ss = env.createSpreadsheet({ owner: OWNER, data: [['Profile URL']] });
  const rows = logRows(count, Date.now());
  const sheet = ss.addSheet(CREDITS_SHEET, rows.length + 1, CREDITS_HEADER.length);
  [CREDITS_HEADER, ...rows].forEach((row, r) => {
    row.forEach((value, c) => {
      sheet.ensure(r + 1, c + 1).value = value;
    });
  });
  return ss.id;
}

async function openTab(env: Environment, count: number) {
  const id = withLog(env, count);
  const started = performance.now();
  const result = await env.execute('getCreditsSummary', [], { user: OWNER, spreadsheetId: id });
  const ms = performance.now() - started;
  if (!result.ok) throw new Error(`getCreditsSummary failed: ${result.error?.message}`);
  return { count, ms, spreadsheetCalls: spreadsheetCalls(result.counts) };
}

async function exportLog(env: Environment, count: number) {
  const id = withLog(env, count);
  const started = performance.now();
  let step: CreditsExport | undefined;
  let executions = 0;
  for (; executions < MAX_EXPORT_STEPS && !step?.done; executions++) {
    step = (await env.run('exportCreditsLog', [step ?? {}], {
      user: OWNER,
      spreadsheetId: id,
    })) as CreditsExport;
  }
  if (!step?.done) throw new Error(`the export did not end within ${MAX_EXPORT_STEPS} executions`);
  return { count, executions, ms: performance.now() - started, message: step.message };
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, organizations: [] });
  const env = new Environment({ scriptProperties: { API_BASE_URL: sandbox.baseUrl } });
  try {
    const small = await openTab(env, 1_000);
    const large = await openTab(env, 100_000);
    const exported = await exportLog(env, 20_000);
    console.log('Credits tab (getCreditsSummary), one execution each:');
    for (const run of [small, large])
      console.log(
        `  ${run.count.toLocaleString('en-US').padStart(7)} charges: ${run.spreadsheetCalls} spreadsheet calls, ${Math.round(run.ms)} ms`,
      );
    console.log(
      `  100,000 vs 1,000: ${(large.spreadsheetCalls / small.spreadsheetCalls).toFixed(2)}x the calls, ${(large.ms / small.ms).toFixed(1)}x the time`,
    );
    console.log(
      `Export of ${exported.count.toLocaleString('en-US')} rows: ${exported.executions} executions, ${(exported.ms / 1000).toFixed(1)} s (${exported.message})`,
    );
  } finally {
    await env.close();
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
