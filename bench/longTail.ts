/**
 * Scenarios 3-4 of `npm run bench`: a bulk run over 1,000 rows at seconds of latency with a long tail (3) and the
 * same against the rate-limited sandbox (4), against the naive baseline; `--only=tail` runs them alone.
 */
import type { SandboxServer } from '../sandbox/server';
import type { RateLimit } from '../sandbox/service';
import {
  type Config,
  type Deadline,
  fmt,
  gitCommit,
  makeUrls,
  reportTargets,
  summary,
  type Timed,
  table,
  timedInto,
  verdict,
  writeFigures,
} from './harness';
import { benchAddonBulk, benchNaiveBulk } from './runs';

/** A 1,000-row run at seconds of latency with a long tail, the add-on against a bounded naive sample. */
async function benchTail(
  config: Config,
  sandbox: SandboxServer,
  urls: string[],
  deadline: Deadline,
  rateLimit?: RateLimit,
) {
  const addon = await benchAddonBulk(config, sandbox, urls, deadline, {
    latency: config.tailLatency,
    rateLimit,
  });
  return { addon, rateLimited: addon.rateLimited / Math.max(1, addon.requests + addon.rateLimited) };
}

/** Scenarios 3 and 4 and their naive baseline, with the ratios. */
export async function runTail(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  deadline: Deadline,
  timed: Timed,
) {
  const tailUrls = makeUrls(config.tailRows, config.duplicateRate, config.seed + 3, 't');
  const tailText = `median ${config.tailLatency.medianMs} ms, p99 ${config.tailLatency.p99Ms} ms`;
  console.log(`3. Bulk enrichment: ${config.tailRows} rows at ${tailText}…`);
  deadline.check('the long-tail bench');
  const tail = await timed('tailAddon', () => benchTail(config, sandbox, tailUrls, deadline));
  const naiveTail = await timed('tailNaive', () =>
    benchNaiveBulk(config, sandbox, naiveDir, tailUrls, deadline, {
      latency: config.tailLatency,
      rows: config.naiveTailRows,
    }),
  );
  console.log(
    `4. The first ${config.limitedRows} rows against the rate-limited sandbox (429 above ${config.rateLimit.maxInFlight} in flight)…`,
  );
  deadline.check('the rate-limited bench');
  const limited = await timed('limitedAddon', () =>
    benchTail(config, sandbox, tailUrls.slice(0, config.limitedRows), deadline, config.rateLimit),
  );
  const tailRatio = tail.addon.rowsPerMinute / naiveTail.rowsPerMinute;
  const limitedRatio = limited.addon.rowsPerMinute / naiveTail.rowsPerMinute;
  return { tail, naiveTail, limited, tailText, tailRatio, limitedRatio };
}

/** The table of scenarios 3-4, their verdicts, and the fetchAll calls of each run as the sandbox saw them. */
type TailFigures = Awaited<ReturnType<typeof runTail>>;

export function reportTail(config: Config, figures: TailFigures): void {
  const { tail, naiveTail, limited, tailText, tailRatio, limitedRatio } = figures;
  const limit = config.rateLimit.maxInFlight;
  console.log(
    `\n3-4. Bulk enrichment — ${config.tailRows} rows (${tail.addon.distinctUrls} distinct URLs), latency ${tailText}; ` +
      `baseline: first ${naiveTail.rowsMeasured} rows, extrapolated as rows/minute\n`,
  );
  console.log(
    table([
      [
        '',
        'add-on',
        `add-on, first ${config.limitedRows} rows, 429 above ${limit} in flight`,
        'naive baseline',
      ],
      [
        'wall time (s)',
        fmt(tail.addon.wallMs / 1000, 1),
        fmt(limited.addon.wallMs / 1000, 1),
        `${fmt(naiveTail.extrapolatedMsForAllRows / 1000, 0)} (extrap.)`,
      ],
      [
        'rows per minute',
        fmt(tail.addon.rowsPerMinute, 0),
        fmt(limited.addon.rowsPerMinute, 0),
        fmt(naiveTail.rowsPerMinute, 1),
      ],
      ['ratio', `${fmt(tailRatio, 1)}x`, `${fmt(limitedRatio, 1)}x`, '1x'],
      [
        'fetchAll calls / peak in flight',
        `${tail.addon.fetchAllCalls} / ${tail.addon.peakInFlight}`,
        `${limited.addon.fetchAllCalls} / ${limited.addon.peakInFlight}`,
        `${naiveTail.requests} fetch / 1`,
      ],
      [
        'requests answered 429',
        `${tail.addon.rateLimited}`,
        `${limited.addon.rateLimited} of ${limited.addon.requests + limited.addon.rateLimited} (${fmt(100 * limited.rateLimited, 1)} %)`,
        '0',
      ],
      [
        'LockService calls / 1,000 rows',
        fmt(tail.addon.lockCallsPer1000Rows, 0),
        fmt(limited.addon.lockCallsPer1000Rows, 0),
        '0',
      ],
      ['slices at once (peak)', String(tail.addon.peakSlices), String(limited.addon.peakSlices), '1'],
      ['rows ERROR', String(tail.addon.errorRows), String(limited.addon.errorRows), '0'],
      [
        'credits / distinct URL',
        fmt(tail.addon.credits / tail.addon.distinctUrls, 2),
        fmt(limited.addon.credits / limited.addon.distinctUrls, 2),
        `${fmt(naiveTail.wholeSheetCreditsPerDistinctUrl, 2)} (1 per row)`,
      ],
    ]),
  );
  console.log(
    `\n   ratio ${fmt(tailRatio, 1)}x — target ≥ 50x: ${verdict('long-tail ratio', tailRatio >= 50)}; ` +
      `rate-limited: ${limited.addon.finalState}, ${fmt(100 * limited.rateLimited, 1)} % answered 429 — target ≤ 5 %: ` +
      `${verdict('429 share', limited.rateLimited <= 0.05)}; rows ERROR ${limited.addon.errorRows}` +
      `\n   rate-limited ratio ${fmt(limitedRatio, 1)}x — target ≥ 20x: ${verdict('rate-limited ratio', limitedRatio >= 20)}` +
      ` (one slice waits for the slowest of each batch of ${limit})`,
  );
  for (const [name, run] of [
    ['3', tail],
    ['4', limited],
  ] as const) {
    const batches = run.addon.timeline
      .map(
        (group) =>
          `${group.kind === 'key check' ? 'key check ' : ''}${group.size}${group.status429 ? ` (${group.status429}×429)` : ''} @${group.startS}s/${group.slowestS}s`,
      )
      .join(', ');
    console.log(`   ${name}. fetchAll calls (size @start/slowest answer): ${batches}`);
  }
}

/** The figures of scenarios 3-4 as the output file keeps them (without per-method counts and per-slice samples). */
export function tailSummary(figures: TailFigures) {
  const { tail, naiveTail, limited, tailRatio, limitedRatio } = figures;
  return {
    addon: summary(tail.addon),
    rateLimited: { ...summary(limited.addon), share429: limited.rateLimited },
    naive: summary(naiveTail),
    ratio: tailRatio,
    rateLimitedRatio: limitedRatio,
  };
}

/** `--only=tail`: scenarios 3-4 alone, their figures written to the output file. */
export async function mainTail(config: Config, sandbox: SandboxServer, naiveDir: string, deadline: Deadline) {
  const phases: Record<string, number> = {};
  const timed = timedInto(phases);
  const figures = await runTail(config, sandbox, naiveDir, deadline, timed);
  reportTail(config, figures);
  const { tail, limited } = figures;
  const output = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    config: { ...config, out: undefined },
    longTail: tailSummary(figures),
    phasesMs: phases,
  };
  writeFigures(config.out, output);
  reportTargets(config);
  const finished = (run: typeof tail) =>
    run.addon.finalState === 'done' && run.addon.rowsWithStatus === run.addon.rows;
  if (!finished(tail) || !finished(limited) || limited.addon.errorRows > 0) process.exitCode = 1;
}
