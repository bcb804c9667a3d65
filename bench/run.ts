/**
 * `npm run bench`: the add-on against the naive tutorial baseline (bench/naive/Code.js), in one run, in the Apps
 * Script emulator, against the sandbox service on 127.0.0.1 with injected latency.
 *
 *   npx tsx bench/run.ts           full run: 1. 300 rows at 500 ms; 2. =FINDEMAIL over 100 rows
 *                                  at 1 s; 3. 1,000 rows at a 3 s median with a long tail (p99 6 s); 4. the same
 *                                  against the rate-limited sandbox; 5. =FINDEMAIL over 500 new rows at that
 *                                  latency, evaluated twice; 6. 20,000 rows slice by slice; 7. npm run bench:coldload;
 *                                  8. npm run bench:credits (the Credits tab over 1,000 and 100,000 charges, Export);
 *                                  9. =FINDEMAIL at the platform's limit (bench/README.md, "9.")
 *   npx tsx bench/run.ts --quick   smoke run (fewer rows, lower latency; scenario 9 keeps its latencies)
 *   npx tsx bench/run.ts --only=bulk   scenario 1 only (with its naive baseline; --rows=1000 for 1,000 rows)
 *   npx tsx bench/run.ts --only=tail   scenarios 3-4 only (with their naive baseline), about 4 minutes
 *   npx tsx bench/run.ts --only=scale  scenario 6 only (20,000 rows slice by slice)
 *   npx tsx bench/run.ts --only=formula   scenario 9 only (=FINDEMAIL at the platform's limit), about 3 minutes
 *   npx tsx bench/run.ts --only=dragged   scenario 10 only (a dragged column: bench/draggedColumn.ts)
 *   npx tsx bench/run.ts --check   exits non-zero when a target is missed (without it, only a failed check does)
 *   options: --rows=N --naive-rows=N --latency=MS --range-rows=N --range-latency=MS --batch=N --out=FILE
 *            --slices=N (the add-on's BULK_SLICES: slices of one bulk run at once, 3 by default)
 *
 * Prints a table, "met" or "missed" once per target (targets are set for the full run: a quick run reads "n/a"),
 * and writes the figures to bench/last-run.json (--quick: bench/last-run-quick.json).
 *
 * Each scenario lives in a file of its own (1 bulkEnrichment.ts, 2 findEmailRange.ts, 3-4 longTail.ts,
 * 5 findEmailTail.ts, 6 scale.ts, 9 formulaLimit.ts, 10 draggedColumn.ts), what they share in harness.ts and runs.ts.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_DIR } from '../emulator';
import { startSandbox } from '../sandbox/server';
import { bulkChecks, bulkComparable, bulkTargets, mainBulk, reportBulk, runBulk } from './bulkEnrichment';
import { mainDragged } from './draggedColumn';
import { rangeChecks, rangeTargets, reportRange, runRange } from './findEmailRange';
import { rangeTailChecks, reportRangeTail, runRangeTail } from './findEmailTail';
import { mainFormula, reportFormula, runFormulaScenarios } from './formulaLimit';
import {
  ADDON,
  Deadline,
  distinctCount,
  fmt,
  foundProfiles,
  gitCommit,
  makeUrls,
  NAIVE,
  parseArgs,
  ROOT,
  reportTargets,
  runBenchScript,
  runColdload,
  setTargetsApply,
  writeFigures,
} from './harness';
import { mainTail, reportTail, runTail, tailSummary } from './longTail';
import { recordPrinted, writeLastRun } from './readme';
import { benchScale, mainScale, reportScale, scaleMemoryFlat, scaleTimeFlat } from './scale';

async function main(): Promise<void> {
  const config = parseArgs(process.argv.slice(2));
  // Only the standard full run (no option but --check) rewrites bench/README.md's last-run section.
  const standardRun = config.mode === 'full' && process.argv.slice(2).every((arg) => arg === '--check');
  const printed: string[] = [];
  recordPrinted(printed);
  setTargetsApply(config.mode === 'full');
  const deadline = new Deadline(config.totalLimitMs);
  // A last resort: whatever hangs, the bench ends.
  const watchdog = setTimeout(() => {
    console.error(`bench: still running after ${config.totalLimitMs + 10_000} ms, giving up.`);
    process.exit(2);
  }, config.totalLimitMs + 10_000);
  watchdog.unref();

  const bulkUrls = makeUrls(config.rows, config.duplicateRate, config.seed, 'r');
  // Profiles with an address: a cell is answered when it shows one (scenario 9a reads this run).
  const rangeUrls = foundProfiles(config.rangeRows, 'f');
  const naiveDir = mkdtempSync(join(tmpdir(), 'pef-bench-naive-'));
  copyFileSync(join(ROOT, 'bench', 'naive', 'Code.js'), join(naiveDir, 'Code.js'));
  const credits =
    10 * (config.rows + config.rangeRows + config.tailRows + config.tailRangeRows + config.scaleRows) + 1000;
  const sandbox = await startSandbox({
    port: 0,
    organizations: [
      { name: ADDON.org, keys: [ADDON.key], credits },
      { name: NAIVE.org, keys: [NAIVE.key], credits },
    ],
  });
  const bundle = readFileSync(join(DIST_DIR, 'Code.js'));
  const started = Date.now();
  try {
    console.log(
      `Profile Email Finder bench (${config.mode}) — emulator + sandbox on ${sandbox.origin}, node ${process.version}`,
    );
    if (config.only === 'bulk') {
      console.log(
        `1. Bulk enrichment: ${config.rows} rows (${distinctCount(bulkUrls)} distinct URLs), ${config.latencyMs} ms latency…`,
      );
      await mainBulk(config, sandbox, naiveDir, bulkUrls, deadline);
      return;
    }
    if (config.only === 'tail') {
      await mainTail(config, sandbox, naiveDir, deadline);
      return;
    }
    if (config.only === 'formula') {
      await mainFormula(config, deadline);
      return;
    }
    if (config.only === 'dragged') {
      await mainDragged(config);
      return;
    }
    if (config.only === 'scale') {
      console.log(`6. Bulk enrichment over ${config.scaleRows} rows in ${config.scaleSliceMs} ms slices…`);
      await mainScale(config, sandbox, naiveDir, deadline);
      return;
    }
    console.log(
      `1. Bulk enrichment: ${config.rows} rows (${distinctCount(bulkUrls)} distinct URLs), ${config.latencyMs} ms latency…`,
    );
    const phases: Record<string, number> = {};
    const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const begun = performance.now();
      try {
        return await work();
      } finally {
        phases[name] = performance.now() - begun;
        // On stderr (not in bench/README.md): where the time went, even in a run that ends early.
        console.error(
          `   ${name}: ${fmt(phases[name] / 1000, 1)} s (${fmt((Date.now() - started) / 1000, 0)} s in)`,
        );
      }
    };
    const bulk = await runBulk(config, sandbox, naiveDir, bulkUrls, deadline, timed);
    const { addon, naive, marginal } = bulk;
    const range = await runRange(config, sandbox, naiveDir, rangeUrls, deadline, timed);
    const { findEmail, naiveCells } = range;

    const tailFigures = await runTail(config, sandbox, naiveDir, deadline, timed);
    const { tail, limited, tailText, tailRatio, limitedRatio } = tailFigures;
    const rangeTailFigures = await runRangeTail(config, sandbox, naiveDir, deadline, timed, tailText);
    const { rangeTail, naiveCellsTail } = rangeTailFigures;

    console.log(`6. Bulk enrichment over ${config.scaleRows} rows in ${config.scaleSliceMs} ms slices…`);
    deadline.check('the scale bench');
    const scale = await timed('scale', () => benchScale(config, sandbox, naiveDir, deadline));
    const formula = await runFormulaScenarios(config, deadline, timed, findEmail.asRangeFormula);
    console.log('7. npm run bench:coldload…');
    const coldload = await timed('coldload', async () => runColdload(config.coldloadSeconds));
    console.log('8. npm run bench:credits…');
    const credits = await timed('credits', async () => runBenchScript('credits.ts', [], 300));
    const totalMs = Date.now() - started;

    const ratio = addon.rowsPerMinute / naive.rowsPerMinute;
    const checks = {
      ...bulkChecks(bulk),
      ...rangeChecks(range),

      tailFinished: tail.addon.finalState === 'done' && tail.addon.rowsWithStatus === tail.addon.rows,
      tailChargedOncePerUrl: tail.addon.maxChargesPerUrl <= 1,
      limitedFinished:
        limited.addon.finalState === 'done' && limited.addon.rowsWithStatus === limited.addon.rows,
      limitedNoErrorRow: limited.addon.errorRows === 0,
      ...rangeTailChecks(rangeTailFigures),
      scaleFinished: scale.addon.finalState === 'done' && scale.addon.rowsWithStatus === scale.rows,
      coldloadRan: coldload.ok,
      creditsRan: credits.ok,
    };
    const tailTargets = {
      tailRatioAtLeast50x: tailRatio >= 50,
      limited429AtMost5Percent: limited.rateLimited <= 0.05,
      limitedRatioAtLeast20x: limitedRatio >= 20,
      scaleTimeFlat: scaleTimeFlat(scale),
      scaleMemoryFlat: scaleMemoryFlat(scale),
    };
    const targets = { ...bulkTargets(bulk), ...rangeTargets(range) };
    const comparable = bulkComparable(config);

    reportBulk(config, bulk);
    reportRange(config, range);
    reportTail(config, tailFigures);
    reportRangeTail(config, rangeTailFigures, tailText);

    reportScale(config, scale);
    console.log(`\n7. npm run bench:coldload\n\n${coldload.output.replace(/^/gm, '   ')}`);
    console.log(`\n8. npm run bench:credits\n\n${credits.output.replace(/^/gm, '   ')}`);
    reportFormula(formula);

    const failedChecks = Object.entries(checks)
      .filter(([, ok]) => !ok)
      .map(([name]) => name);
    console.log(
      `\nChecks: ${failedChecks.length ? `FAILED ${failedChecks.join(', ')}` : 'all passed'}. Total bench time ${fmt(totalMs / 1000, 1)} s ` +
        `(${Object.entries(phases)
          .map(([name, ms]) => `${name} ${fmt(ms / 1000, 1)}`)
          .join(', ')}).`,
    );

    const { counts: addonCounts, ...addonFigures } = addon;
    const { counts: naiveCounts, ...naiveFigures } = naive;
    const output = {
      date: new Date().toISOString(),
      commit: gitCommit(),
      bundleSha256: createHash('sha256').update(bundle).digest('hex').slice(0, 16),
      node: process.version,
      config: { ...config, out: undefined },
      bulk: {
        addon: { ...addonFigures, serviceCallsByMethod: addonCounts },
        naive: { ...naiveFigures, serviceCallsByMethod: naiveCounts },
        ratio,
        marginalCallsPerBatch: marginal,
      },
      findEmail,
      naiveCells,
      longTail: tailSummary(tailFigures),
      rangeTail,
      naiveCellsTail,
      scale,
      formula,
      coldload: coldload.output,
      credits: credits.output,
      tailTargets,
      checks,
      targets: comparable ? targets : { ...targets, ratioAtLeast15x: null },
      phasesMs: phases,
      totalMs,
    };
    writeFigures(config.out, output);
    reportTargets(config);
    if (standardRun) {
      writeLastRun(join(ROOT, 'bench', 'README.md'), printed, {
        date: output.date,
        commit: output.commit ?? 'unknown',
        seconds: totalMs / 1000,
      });
      console.log('bench/README.md: its last-run section rewritten from this run.');
    }
    if (failedChecks.length) process.exitCode = 1;
  } finally {
    await sandbox.close();
    rmSync(naiveDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
