/**
 * `npm run bench:billing`: "each profile paid once, at any size". A mixed workload of 20,000 distinct
 * profiles in one spreadsheet, in the Apps Script emulator against the sandbox service on 127.0.0.1 (low latency):
 *
 *   1. the owner's bulk run over 12,000 rows (profiles 0–11,999, 10% of rows repeat one in another spelling);
 *   2. =FINDEMAIL range formulas over 6,000 rows (profiles 10,000–15,999: 2,000 already paid by the bulk run),
 *      evaluated all at once, then again until every row shows (bounded);
 *   3. a second editor's bulk run over 6,000 rows (profiles 14,000–19,999: 2,000 already paid by formulas);
 *   4. re-evaluations: the range formulas again, and 1,000 single-cell formulas over paid profiles, twice.
 *
 * Prints credits per distinct profile (goal 1.000), the store's size, property calls in all, per 1,000 bulk rows
 * and per 1,000 cached evaluations. Writes the figures to bench/last-billing.json.
 *
 *   npx tsx bench/billing.ts [--max-seconds=S]   (default 300: every loop also stops at this deadline)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { addCounts, Environment, type ExecutionResult, propertyCalls, spreadsheetCalls } from '../emulator';
import { startSandbox } from '../sandbox/server';
import type { Progress } from '../src/api';
import { RESULTS_SHEET } from '../src/core/propertyNames';

const ROOT = join(__dirname, '..');
const OWNER = 'owner@example.com';
const EDITOR = 'editor@example.com';
const KEY_PROPERTY = 'PEF_API_KEY';
const OWNER_ORG = { name: 'billing-owner', key: 'billing-owner-key-5c2e9a1f7b' };
const EDITOR_ORG = { name: 'billing-editor', key: 'billing-editor-key-3d8b6e0a4c' };
const DISTINCT = 20_000;
const RANGE_ROWS = 200;
/** Bounds of every loop (besides the deadline). */
const MAX_SLICES = 2_000;
const MAX_RECALCS = 10;
/** Times the bench opened the sidebar because formula cells asked for it (their results waited to be saved). */
let sidebarOpenings = 0;

type Deadline = () => boolean;

function profileUrl(i: number, variant = false): string {
  const slug = `bill-${i}-person`;
  return variant ? `http://Network.com/in/${slug}/?utm_source=list` : `https://www.network.com/in/${slug}`;
}

/** Rows of profiles `from`..`to`-1; every tenth row also repeats the previous profile in another spelling. */
function rowsOf(from: number, to: number): string[][] {
  const rows: string[][] = [];
  for (let i = from; i < to; i++) {
    rows.push([profileUrl(i)]);
    if (i % 10 === 9) rows.push([profileUrl(i - 1, true)]);
  }
  return rows;
}

function parseMaxSeconds(argv: string[]): number {
  for (const arg of argv) {
    const match = /^--max-seconds=(\d+)$/.exec(arg);
    if (match) return Math.min(Number(match[1]), 900);
    throw new Error(`Unknown argument ${arg}`);
  }
  return 300;
}

/** A bulk run over `a1` of `sheetName` by `user`, driven as the sidebar does until it leaves `running`. */
async function bulkRun(
  env: Environment,
  ssId: string,
  sheetName: string,
  a1: string,
  user: string,
  expired: Deadline,
  counts: Record<string, number>,
): Promise<Progress> {
  env.select(ssId, a1, sheetName);
  const call = async (fn: string, args: unknown[] = []): Promise<unknown> => {
    const result: ExecutionResult = await env.execute(fn, args, { user, spreadsheetId: ssId });
    addCounts(counts, result.counts);
    if (!result.ok) throw new Error(`${fn} failed: ${result.error?.message}`);
    return result.value;
  };
  const run = async (fn: string): Promise<Progress> => (await call(fn)) as Progress;
  // As a person does: the plan and its price first (above the sidebar's threshold the price is confirmed).
  const plan = (await call('getRunPlan', [{}])) as { credits: number };
  const started = (await call('startRun', [{ confirmedCredits: plan.credits }])) as { progress: Progress };
  let progress = started.progress;
  for (let slice = 0; slice < MAX_SLICES && progress.state === 'running' && !expired(); slice++)
    progress = await run('continueEnrichment');
  return progress;
}

/** Recalculates until every formula cell evaluated without "not looked up" placeholders (bounded). */
async function recalcUntilShown(
  env: Environment,
  ssId: string,
  a1: string,
  sheetName: string,
  expired: Deadline,
  counts: Record<string, number>,
): Promise<{ rounds: number; evaluations: number }> {
  let evaluations = 0;
  for (let round = 1; round <= MAX_RECALCS && !expired(); round++) {
    const report = await env.recalculate(ssId);
    evaluations += report.evaluated;
    for (const result of report.results) addCounts(counts, result.counts);
    const pending = env
      .values(ssId, a1, sheetName)
      .flat()
      .filter(
        (value) =>
          typeof value !== 'string' || value === '' || value.startsWith('ERROR') || value.startsWith('#'),
      );
    if (pending.length === 0) return { rounds: round, evaluations };
    if (round === MAX_RECALCS)
      console.log(`    still not shown: ${pending.length}, e.g. ${JSON.stringify(pending[0])}`);
    // The cells say "wait to be saved" when formulas paid for many results: the user opens the sidebar, as told.
    if (pending.some((value) => /wait to be saved/.test(String(value)))) {
      const opened = await env.execute('getSidebarState', [], { user: OWNER, spreadsheetId: ssId });
      addCounts(counts, opened.counts);
      sidebarOpenings++;
    }
  }
  return { rounds: MAX_RECALCS, evaluations };
}

function resultsSheetChars(env: Environment, ssId: string): { cells: number; chars: number } {
  const sheet = env.spreadsheet(ssId).sheetByName(RESULTS_SHEET);
  let chars = 0;
  let cells = 0;
  for (const { cell } of sheet?.allCells() ?? []) {
    const text = String(cell.value ?? '');
    if (text) {
      cells++;
      chars += text.length;
    }
  }
  return { cells, chars };
}

async function main(): Promise<void> {
  const maxSeconds = parseMaxSeconds(process.argv.slice(2));
  const started = performance.now();
  const expired: Deadline = () => performance.now() - started > maxSeconds * 1000;
  const watchdog = setTimeout(
    () => {
      console.error(`bench:billing: over ${maxSeconds + 60} s, stopping.`);
      process.exit(2);
    },
    (maxSeconds + 60) * 1000,
  );
  watchdog.unref();
  const sandbox = await startSandbox({
    port: 0,
    organizations: [
      { name: OWNER_ORG.name, keys: [OWNER_ORG.key], credits: 100_000 },
      { name: EDITOR_ORG.name, keys: [EDITOR_ORG.key], credits: 100_000 },
    ],
  });
  sandbox.service.configure({ latencyMs: [0, 3] });
  const env = new Environment({
    maxConcurrent: 4,
    scriptProperties: {
      API_BASE_URL: sandbox.baseUrl,
      NETWORK_HOSTS: 'network.com',
      ENRICH_BATCH_SIZE: '100',
      ENRICH_STEP_BUDGET_MS: '60000',
    },
  });
  try {
    console.log(
      `Billing bench: ${DISTINCT.toLocaleString('en')} distinct profiles, emulator + sandbox on ${sandbox.origin}`,
    );
    env.userProperties(OWNER).set({ [KEY_PROPERTY]: OWNER_ORG.key });
    env.userProperties(EDITOR).set({ [KEY_PROPERTY]: EDITOR_ORG.key });
    const leads = rowsOf(0, 12_000);
    const ss = env.createSpreadsheet({ owner: OWNER });
    ss.sheets[0].insertRows(1000, leads.length + 10, ss.sheets);
    env.enter(ss.id, `A1:A${leads.length + 1}`, [['Profile URL'], ...leads]);
    const formulaRows = rowsOf(10_000, 16_000).filter((row) => !row[0].startsWith('http://'));
    const editorRows = rowsOf(14_000, 20_000);
    ss.addSheet('Formulas', formulaRows.length + 10, 4);
    ss.addSheet('Editor', editorRows.length + 10, 6);
    env.enter(ss.id, `A1:A${formulaRows.length}`, formulaRows, 'Formulas');
    env.enter(ss.id, `A1:A${editorRows.length + 1}`, [['Profile URL'], ...editorRows], 'Editor');
    // The owner lets formulas spend more than the default 500 credits a day in this spreadsheet (Settings tab).
    const capped = await env.execute('saveFormulaCap', [{ enabled: true, dailyCap: 100_000 }], {
      user: OWNER,
      spreadsheetId: ss.id,
    });
    if (!capped.ok) throw new Error(`saveFormulaCap failed: ${capped.error?.message}`);

    const bulkCounts: Record<string, number> = {};
    const phase = (name: string) =>
      console.log(`  ${name}… (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    phase(`1. owner's bulk run, ${leads.length} rows`);
    const ownerRun = await bulkRun(
      env,
      ss.id,
      'Sheet1',
      `A1:A${leads.length + 1}`,
      OWNER,
      expired,
      bulkCounts,
    );

    phase(
      `2. =FINDEMAIL over ${formulaRows.length} rows in ${formulaRows.length / RANGE_ROWS} range formulas`,
    );
    const formulas: string[][] = [];
    for (let row = 1; row <= formulaRows.length; row++)
      formulas.push([(row - 1) % RANGE_ROWS === 0 ? `=FINDEMAIL(A${row}:A${row + RANGE_ROWS - 1})` : '']);
    env.enter(ss.id, `B1:B${formulaRows.length}`, formulas, 'Formulas');
    const formulaCounts: Record<string, number> = {};
    const formulaRounds = await recalcUntilShown(
      env,
      ss.id,
      `B1:B${formulaRows.length}`,
      'Formulas',
      expired,
      formulaCounts,
    );

    phase(`3. a second editor's bulk run, ${editorRows.length} rows`);
    const editorRun = await bulkRun(
      env,
      ss.id,
      'Editor',
      `A1:A${editorRows.length + 1}`,
      EDITOR,
      expired,
      bulkCounts,
    );

    phase('4. re-evaluations: the range formulas, and 1,000 single-cell formulas over paid profiles (twice)');
    const singles: string[][] = [];
    for (let row = 2; row <= 1001; row++) singles.push([`=FINDEMAIL(A${row})`]);
    const reCounts: Record<string, number> = {};
    await recalcUntilShown(env, ss.id, `B1:B${formulaRows.length}`, 'Formulas', expired, reCounts);
    env.enter(ss.id, 'H2:H1001', singles, 'Sheet1');
    const cachedCounts: Record<string, number> = {};
    let cachedEvaluations = 0;
    // In waves of 30: Apps Script runs no more custom functions at once for one user (the emulator refuses more).
    for (let round = 0; round < 2 && !expired(); round++) {
      for (let from = 0; from < singles.length && !expired(); from += 30) {
        const report = await env.recalculate(ss.id, {
          cells: singles.slice(from, from + 30).map((_, i) => ({ sheet: 'Sheet1', a1: `H${from + i + 2}` })),
        });
        cachedEvaluations += report.evaluated;
        for (const result of report.results) addCounts(cachedCounts, result.counts);
      }
    }

    const ledger = sandbox.service.ledger();
    const charged = sandbox.service.totalCharged();
    const distinctCharged = Object.keys(sandbox.service.chargesByUrl()).length;
    const duplicates = Object.values(sandbox.service.chargesByUrl()).filter((n) => n > 1).length;
    const sheetSize = resultsSheetChars(env, ss.id);
    const bulkRows = leads.length + editorRows.length;
    const allCounts: Record<string, number> = {};
    for (const part of [bulkCounts, formulaCounts, reCounts, cachedCounts]) addCounts(allCounts, part);
    const figures = {
      distinctProfiles: DISTINCT,
      distinctCharged,
      credits: charged,
      creditsPerDistinctProfile: Number((charged / DISTINCT).toFixed(3)),
      profilesChargedTwiceOrMore: duplicates,
      requests: ledger.length,
      ownerRun: { state: ownerRun.state, found: ownerRun.found, creditsUsed: ownerRun.creditsUsed },
      editorRun: { state: editorRun.state, found: editorRun.found, creditsUsed: editorRun.creditsUsed },
      formulaRecalcRounds: formulaRounds.rounds,
      sidebarOpeningsAskedByFormulas: sidebarOpenings,
      store: {
        resultsSheetCells: sheetSize.cells,
        resultsSheetChars: sheetSize.chars,
        documentPropertiesBytes: env.documentProperties(ss.id).bytes(),
      },
      propertyCalls: propertyCalls(allCounts),
      propertyCallsPer1000BulkRows: Math.round((propertyCalls(bulkCounts) / bulkRows) * 1000),
      spreadsheetCallsPer1000BulkRows: Math.round((spreadsheetCalls(bulkCounts) / bulkRows) * 1000),
      propertyCallsPer1000CachedEvaluations: Math.round(
        (propertyCalls(cachedCounts) / cachedEvaluations) * 1000,
      ),
      spreadsheetCallsPer1000CachedEvaluations: Math.round(
        (spreadsheetCalls(cachedCounts) / cachedEvaluations) * 1000,
      ),
      quotaUsedToday: env.quotaUsage(),
      seconds: Math.round((performance.now() - started) / 1000),
      deadlineHit: expired(),
    };
    console.log('');
    console.log(
      `credits per distinct profile: ${(charged / DISTINCT).toFixed(3)} (${charged} credits, ${DISTINCT} profiles, ${duplicates} charged twice)`,
    );
    console.log(
      `store: ${sheetSize.cells} cells / ${(sheetSize.chars / 1024).toFixed(0)} KB in the results sheet, ${(figures.store.documentPropertiesBytes / 1024).toFixed(1)} KB of document properties`,
    );
    console.log(
      `property calls: ${figures.propertyCalls} in all; ${figures.propertyCallsPer1000BulkRows} per 1,000 bulk rows; ${figures.propertyCallsPer1000CachedEvaluations} per 1,000 cached evaluations (results in the hidden sheet)`,
    );
    console.log(
      `spreadsheet calls: ${figures.spreadsheetCallsPer1000BulkRows} per 1,000 bulk rows; ${figures.spreadsheetCallsPer1000CachedEvaluations} per 1,000 cached evaluations`,
    );
    console.log(
      `runs: owner ${ownerRun.state}, editor ${editorRun.state}; formulas shown after ${formulaRounds.rounds} recalculation(s) and ${sidebarOpenings} sidebar opening(s) the cells asked for; ${figures.seconds} s`,
    );
    writeFileSync(join(ROOT, 'bench', 'last-billing.json'), `${JSON.stringify(figures, null, 2)}\n`);
    if (figures.deadlineHit) process.exitCode = 1;
  } finally {
    await env.close();
    await sandbox.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
