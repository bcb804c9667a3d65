/** Scenario 6 of `npm run bench`: a bulk run over 20,000 rows slice by slice; `--only=scale` runs it alone. */
import type { SandboxServer } from '../sandbox/server';
import {
  type Config,
  type Deadline,
  fmt,
  gitCommit,
  makeUrls,
  reportTargets,
  table,
  verdict,
  writeFigures,
} from './harness';
import { benchAddonBulk, benchNaiveBulk, type SliceSample } from './runs';

/** Per-slice figures over the first and the last quarter of the rows. */
function sliceTrend(slices: SliceSample[], rows: number) {
  // Slices that wrote no row waited (another execution held the run); the last may be short.
  const work = slices.slice(0, -1).filter((slice) => slice.rows > 0);
  const part = (from: number, to: number) => {
    // By where the slice started in the sheet.
    const chosen = work.filter((slice) => {
      const at = (slice.cursorRow - slice.rows) / rows;
      return at >= from && at < to;
    });
    const ms = chosen.reduce((sum, slice) => sum + slice.ms, 0);
    const done = chosen.reduce((sum, slice) => sum + slice.rows, 0);
    return {
      slices: chosen.length,
      msPerSlice: ms / Math.max(1, chosen.length),
      msPer100Rows: (100 * ms) / Math.max(1, done),
      rssMb: Math.max(0, ...chosen.map((slice) => slice.rssMb)),
      heapMb: Math.max(0, ...chosen.map((slice) => slice.heapMb)),
    };
  };
  const early = part(0, 0.25);
  const late = part(0.75, 1);
  // Without slices in both quarters there is nothing to compare (NaN: the target then reads MISSED).
  const both = early.slices > 0 && late.slices > 0;
  return {
    early,
    late,
    timeRatio: both ? late.msPer100Rows / early.msPer100Rows : Number.NaN,
    rssRatio: both ? late.rssMb / early.rssMb : Number.NaN,
  };
}

export async function benchScale(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  deadline: Deadline,
) {
  const urls = makeUrls(config.scaleRows, 0.05, config.seed + 2, 's');
  const addon = await benchAddonBulk(config, sandbox, urls, deadline, {
    latency: 0,
    scriptProperties: { ENRICH_STEP_BUDGET_MS: String(config.scaleSliceMs) },
  });
  const trend = sliceTrend(addon.slices, urls.length);
  // The naive loop at the top and at the bottom of the same sheet.
  const sample = { latency: 0, rows: config.naiveScaleRows };
  const top = await benchNaiveBulk(config, sandbox, naiveDir, urls, deadline, sample);
  const bottom = await benchNaiveBulk(config, sandbox, naiveDir, urls, deadline, {
    ...sample,
    fromRow: urls.length + 2 - config.naiveScaleRows,
  });
  return {
    rows: urls.length,
    addon: {
      wallMs: addon.wallMs,
      executions: addon.executions,
      finalState: addon.finalState,
      rowsWithStatus: addon.rowsWithStatus,
      credits: addon.credits,
      distinctUrls: addon.distinctUrls,
      rowsPerMinute: addon.rowsPerMinute,
      trend,
    },
    naive: {
      topRowsPerMinute: top.rowsPerMinute,
      bottomRowsPerMinute: bottom.rowsPerMinute,
      rowsMeasured: top.rowsMeasured + bottom.rowsMeasured,
    },
  };
}

type ScaleFigures = Awaited<ReturnType<typeof benchScale>>;
// Flat: the last quarter's time per row and memory within 1.5 times the first quarter's.
export const scaleTimeFlat = (scale: ScaleFigures) => scale.addon.trend.timeRatio <= 1.5;
export const scaleMemoryFlat = (scale: ScaleFigures) => scale.addon.trend.rssRatio <= 1.5;

/** The table of scenario 6 and its verdicts. */
export function reportScale(config: Config, scale: ScaleFigures): void {
  const { early, late } = scale.addon.trend;
  console.log(
    `\n6. Bulk enrichment over ${scale.rows} rows (no latency), slices of ${config.scaleSliceMs} ms: ` +
      `${scale.addon.executions} executions, ${fmt(scale.addon.wallMs / 1000, 1)} s, ${scale.addon.finalState}\n`,
  );
  console.log(
    table([
      ['', 'first quarter of the rows', 'last quarter', 'last / first'],
      ['slices', String(early.slices), String(late.slices), ''],
      [
        'ms per slice',
        fmt(early.msPerSlice, 0),
        fmt(late.msPerSlice, 0),
        `${fmt(late.msPerSlice / early.msPerSlice, 2)}x`,
      ],
      [
        'ms per 100 rows',
        fmt(early.msPer100Rows, 0),
        fmt(late.msPer100Rows, 0),
        `${fmt(scale.addon.trend.timeRatio, 2)}x`,
      ],
      [
        'bench process RSS (MB)',
        fmt(early.rssMb, 0),
        fmt(late.rssMb, 0),
        `${fmt(scale.addon.trend.rssRatio, 2)}x`,
      ],
      [
        'bench process heap (MB)',
        fmt(early.heapMb, 0),
        fmt(late.heapMb, 0),
        `${fmt(late.heapMb / early.heapMb, 2)}x`,
      ],
      [
        'naive rows per minute (top / bottom)',
        fmt(scale.naive.topRowsPerMinute, 0),
        fmt(scale.naive.bottomRowsPerMinute, 0),
        `${fmt(scale.naive.bottomRowsPerMinute / scale.naive.topRowsPerMinute, 2)}x`,
      ],
    ]),
  );
  console.log(
    `\n   flat: time per row ${verdict('scale time flat', scaleTimeFlat(scale))}, memory ${verdict('scale memory flat', scaleMemoryFlat(scale))} ` +
      '(last quarter within 1.5x of the first)',
  );
}

/** `--only=scale`: scenario 6 alone, its figures written to the output file. */
export async function mainScale(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  deadline: Deadline,
) {
  const started = performance.now();
  const scale = await benchScale(config, sandbox, naiveDir, deadline);
  reportScale(config, scale);
  const output = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    node: process.version,
    config: { ...config, out: undefined },
    scale,
    totalMs: performance.now() - started,
  };
  writeFigures(config.out, output);
  reportTargets(config);
  if (scale.addon.finalState !== 'done' || scale.addon.rowsWithStatus !== scale.rows) process.exitCode = 1;
}
