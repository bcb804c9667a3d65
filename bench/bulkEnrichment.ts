/**
 * Scenario 1 of `npm run bench`: a bulk run over 300 rows at 500 ms, the add-on against the naive baseline, and the
 * reads and writes each further batch costs (two runs with a fixed batch).
 */
import type { SandboxServer } from '../sandbox/server';
import {
  type Config,
  type Deadline,
  fmt,
  gitCommit,
  reportTargets,
  summary,
  type Timed,
  table,
  timedInto,
  verdict,
  writeFigures,
} from './harness';
import { benchAddonBulk, benchNaiveBulk } from './runs';

const TARGET_RATIO = 15;

/**
 * Reads/writes each further batch of a bulk run may cost: the window's values and formulas (a formula cell is the
 * user's data), one write of its outputs, one append to the results sheet's log (every paid result kept
 * for the life of the spreadsheet), one append to the credits log (every credit spent recorded).
 * The budget was 2 before those three existed.
 */
const TARGET_CALLS_PER_BATCH = 5;
/** The fixed batch of the two runs that measure what each further batch costs. */
const MARGINAL_BATCH = 20;

/** Scenario 1: the add-on's run over the whole sheet, the two runs with a fixed batch, the naive baseline. */
export async function runBulk(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  bulkUrls: string[],
  deadline: Deadline,
  timed: Timed,
) {
  const addon = await timed('addonBulk', () => benchAddonBulk(config, sandbox, bulkUrls, deadline));
  // Two short runs with a fixed batch (ENRICH_BATCH_SIZE), whose windows differ by two: the difference gives the
  // calls each further batch costs, without the fixed costs of the job (first read, formats, header, last pass),
  // of a slice and of the adaptive ramp (whose windows vary). Their last row repeats the first, so that they also
  // have duplicates, as the big sheet does.
  const fixed = { ...config, batchSize: MARGINAL_BATCH };
  const marginalRun = (rows: number) =>
    benchAddonBulk(fixed, sandbox, [...bulkUrls.slice(0, rows - 1), bulkUrls[0]], deadline);
  const marginalRows = Math.min(config.rows, 12 * MARGINAL_BATCH);
  const large =
    config.rows >= 4 * MARGINAL_BATCH
      ? await timed('addonLarge', () => marginalRun(marginalRows))
      : undefined;
  const small = large && (await timed('addonSmall', () => marginalRun(marginalRows - 2 * MARGINAL_BATCH)));
  const marginal = large &&
    small && {
      batches: large.rowWindows - small.rowWindows,
      dataCallsPerBatch: (large.dataCalls - small.dataCalls) / (large.rowWindows - small.rowWindows),
      spreadsheetCallsPerBatch:
        (large.spreadsheetCalls - small.spreadsheetCalls) / (large.rowWindows - small.rowWindows),
      largeRun: { rows: large.rows, dataCalls: large.dataCalls, spreadsheetCalls: large.spreadsheetCalls },
      smallRun: { rows: small.rows, dataCalls: small.dataCalls, spreadsheetCalls: small.spreadsheetCalls },
      /** Spreadsheet calls by method: the larger run minus the smaller one. */
      difference: Object.fromEntries(
        Object.entries(large.counts)
          .filter(([name]) => /^(Range|RangeList|Sheet|Spreadsheet|SpreadsheetApp)\./.test(name))
          .map(([name, n]) => [name, n - (small.counts[name] ?? 0)])
          .filter(([, n]) => n !== 0),
      ),
    };
  const naive = await timed('naiveBulk', () => benchNaiveBulk(config, sandbox, naiveDir, bulkUrls, deadline));
  return { addon, marginal, naive };
}

type BulkFigures = Awaited<ReturnType<typeof runBulk>>;

/** Whether the add-on's run is the targets' configuration: 500 ms, the default batch size. */
export function bulkComparable(config: Config): boolean {
  return config.latencyMs === 500 && config.batchSize === undefined;
}

export function bulkChecks({ addon }: BulkFigures) {
  return {
    addonFinished: addon.finalState === 'done' && addon.rowsWithStatus === addon.rows,
    duplicatesConsistent: addon.inconsistentDuplicates === 0,
    addonChargedOncePerUrl: addon.maxChargesPerUrl <= 1 && addon.credits <= addon.distinctUrls,
  };
}

export function bulkTargets({ addon, naive, marginal }: BulkFigures) {
  const ratio = addon.rowsPerMinute / naive.rowsPerMinute;
  return {
    ratioAtLeast15x: ratio >= TARGET_RATIO,
    callsPerBatchWithinTarget:
      (marginal?.dataCallsPerBatch ?? addon.dataCallsPerBatch) <= TARGET_CALLS_PER_BATCH,
  };
}

/** The table of scenario 1, its verdicts, and the add-on's calls by method. */
export function reportBulk(config: Config, figures: BulkFigures): void {
  const { addon, naive, marginal } = figures;
  const ratio = addon.rowsPerMinute / naive.rowsPerMinute;
  const targets = bulkTargets(figures);
  const comparable = bulkComparable(config);

  console.log(
    `\n1. Bulk enrichment — ${config.rows} rows, ${addon.distinctUrls} distinct URLs, sandbox latency ${config.latencyMs} ms` +
      `\n   add-on: the whole sheet, batch size ${addon.batchSize}${config.batchSize ? '' : ' (default)'}; ` +
      `baseline: first ${naive.rowsMeasured} rows, extrapolated as rows/minute\n`,
  );
  console.log(
    table([
      ['', 'add-on', 'naive baseline'],
      ['rows processed', String(addon.rows), `${naive.rowsMeasured} (of ${config.rows})`],
      ['wall time (s)', fmt(addon.wallMs / 1000, 2), fmt(naive.wallMs / 1000, 2)],
      ['rows per minute', fmt(addon.rowsPerMinute, 0), fmt(naive.rowsPerMinute, 0)],
      [
        `time for ${config.rows} rows (s)`,
        fmt(addon.wallMs / 1000, 1),
        `${fmt(naive.extrapolatedMsForAllRows / 1000, 1)} (extrap.)`,
      ],
      ['executions', String(addon.executions), String(naive.executions)],
      ['spreadsheet calls (all)', String(addon.spreadsheetCalls), String(naive.spreadsheetCalls)],
      ['  of which reads/writes', String(addon.dataCalls), String(naive.dataCalls)],
      [
        'spreadsheet calls / 1,000 rows',
        fmt(addon.spreadsheetCallsPer1000Rows, 0),
        fmt(naive.spreadsheetCallsPer1000Rows, 0),
      ],
      ['LockService calls / 1,000 rows', fmt(addon.lockCallsPer1000Rows, 0), '0'],
      ['slices at once (peak)', String(addon.peakSlices), '1'],
      [
        'requests / distinct URL (measured)',
        fmt(addon.requests / addon.distinctUrls, 2),
        fmt(naive.requests / naive.distinctUrlsMeasured, 2),
      ],
      [
        'credits / distinct URL (measured)',
        fmt(addon.credits / addon.distinctUrls, 2),
        fmt(naive.credits / naive.distinctUrlsMeasured, 2),
      ],
      [
        `credits / distinct URL, all ${config.rows} rows`,
        fmt(addon.credits / addon.distinctUrls, 2),
        naive.oneRequestPerRow ? `${fmt(naive.wholeSheetCreditsPerDistinctUrl, 2)} (1 per row)` : 'n/a',
      ],
      ['max credits for one URL', String(addon.maxChargesPerUrl), String(naive.maxChargesPerUrl)],
    ]),
  );
  console.log(
    `\n   ratio (rows/minute): ${fmt(ratio, 1)}x — target ≥ ${TARGET_RATIO}x at 500 ms with the default batch size: ` +
      `${comparable ? verdict('bulk ratio', targets.ratioAtLeast15x) : 'n/a (not the target configuration)'}`,
  );
  console.log(
    `   add-on spreadsheet calls per batch (${addon.rowWindows} batches of ≤ ${addon.batchSize} rows, ` +
      `${addon.fetchAllCalls} fetchAll calls), job set-up included: ${fmt(addon.dataCallsPerBatch, 2)} reads/writes ` +
      `(${fmt(addon.spreadsheetCallsPerBatch, 2)} calls of any kind, getRange included)`,
  );
  if (marginal) {
    console.log(
      `   each further batch (batch ${MARGINAL_BATCH}: ${marginal.largeRun.rows}-row run minus a ${marginal.smallRun.rows}-row run, ${marginal.batches} batch(es)): ` +
        `${fmt(marginal.dataCallsPerBatch, 2)} reads/writes (${fmt(marginal.spreadsheetCallsPerBatch, 2)} calls of any kind) — ` +
        `target ≤ ${TARGET_CALLS_PER_BATCH}: ${verdict('reads/writes per batch', targets.callsPerBatchWithinTarget)}`,
    );
    console.log(
      `     difference by method: ${Object.entries(marginal.difference)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')}`,
    );
  }
  console.log(
    `   add-on outcome: ${addon.finalState}; found ${addon.progress.found}, no address ${addon.progress.noAddress}, ` +
      `unprocessable ${addon.progress.unprocessable}, errors ${addon.progress.error}, already done ${addon.progress.alreadyDone}; rows with a status ${addon.rowsWithStatus}/${addon.rows}; ` +
      `duplicates with a different result ${addon.inconsistentDuplicates}`,
  );
  console.log(
    `   add-on spreadsheet calls by method: ${Object.entries(addon.counts)
      .filter(([name]) => /^(Range|RangeList|Sheet|Spreadsheet|SpreadsheetApp)\./.test(name))
      .map(([name, n]) => `${name} ${n}`)
      .join(', ')}`,
  );
}

/**
 * `--only=bulk`: scenario 1 alone (the add-on's run and the naive baseline; `--rows=1000` for the issue's 1,000 rows
 * at 500 ms), without the two runs with a fixed batch; its figures written to the output file.
 */
export async function mainBulk(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  bulkUrls: string[],
  deadline: Deadline,
) {
  const phases: Record<string, number> = {};
  const timed = timedInto(phases);
  const addon = await timed('addonBulk', () => benchAddonBulk(config, sandbox, bulkUrls, deadline));
  const naive = await timed('naiveBulk', () => benchNaiveBulk(config, sandbox, naiveDir, bulkUrls, deadline));
  const figures = { addon, naive, marginal: undefined };
  reportBulk(config, figures);
  const ratio = addon.rowsPerMinute / naive.rowsPerMinute;
  const batches = addon.timeline
    .map(
      (group) =>
        `${group.kind === 'key check' ? 'key check ' : ''}${group.size}${group.status429 ? ` (${group.status429}×429)` : ''} @${group.startS}s/${group.slowestS}s`,
    )
    .join(', ');
  console.log(`   fetchAll calls (size @start/slowest answer): ${batches}`);
  writeFigures(config.out, {
    date: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    config: { ...config, out: undefined },
    bulk: { addon: summary(addon), naive: summary(naive), ratio },
    phasesMs: phases,
  });
  reportTargets(config);
  if (!bulkChecks(figures).addonFinished) process.exitCode = 1;
}
