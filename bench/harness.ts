/**
 * What every scenario of `npm run bench` shares: the run's configuration (the command line), the sheets of profile
 * URLs, the run's deadline, the sandbox's ledger read per organization, the tables, the targets' verdicts, and the
 * bench scripts of their own (scenarios 7 and 8).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionResult } from '../emulator';
import { seededRandom } from '../emulator/host/random';
import { normalizeProfileUrl } from '../sandbox/profiles';
import type { SandboxServer } from '../sandbox/server';
import type { LedgerEntry, LongTailLatency, RateLimit } from '../sandbox/service';

export const ROOT = join(__dirname, '..');
export const OWNER = 'owner@example.com';
export const KEY_PROPERTY = 'PEF_API_KEY';
export const ADDON = { org: 'bench-addon', key: 'bench-addon-key-4f1c9a7e2b' };
export const NAIVE = { org: 'bench-naive', key: 'bench-naive-key-8d3e6b0c5a' };
/** The add-on's NETWORK_HOSTS script property: the sandbox's network (sandbox/profiles.ts). */
export const SANDBOX_NETWORK_HOSTS = 'network.com';
export const CUSTOM_FUNCTION_LIMIT_S = 30;

export interface Config {
  mode: 'full' | 'quick';
  /** `--check`: a missed target makes the exit code non-zero. */
  check?: boolean;
  /** `bulk`: scenario 1 only; `tail`: scenarios 3-4 only; `scale`: scenario 6 only; `formula`: scenario 9 only. */
  only?: 'bulk' | 'tail' | 'scale' | 'formula' | 'dragged';
  rows: number;
  duplicateRate: number;
  naiveRows: number;
  latencyMs: number;
  /** maxMillis passed to naiveEnrich: each baseline execution stops starting rows after this long. */
  naiveSliceMs: number;
  rangeRows: number;
  rangeLatencyMs: number;
  batchSize?: number;
  /** `--slices=N`: the add-on's BULK_SLICES script property (slices of one run at once; default 3). */
  slices?: number;
  /** 3-5: seconds of latency with a long tail; the rate limit of 4; the =FINDEMAIL range of 5. */
  tailRows: number;
  tailLatency: LongTailLatency;
  naiveTailRows: number;
  rateLimit: RateLimit;
  /** 4: the first rows of scenario 3's sheet, run against the rate limit (its 429s come with the first batches). */
  limitedRows: number;
  tailRangeRows: number;
  naiveTailCells: number;
  /** 6: a bulk run over a big sheet, in short slices. */
  scaleRows: number;
  scaleSliceMs: number;
  naiveScaleRows: number;
  coldloadSeconds: number;
  /** 9: the profiles of the range formulas a-d (100 at 1 s, 200 at 2-4 s, 500 at 1 s, 100 with one 26 s answer). */
  formulaProfiles: { a: number; b: number; c: number; d: number };
  /** 9f: a bulk run over dropped connections. */
  /** Rows of the bulk runs over dropped connections: at 1 % and at 10 % (fewer: nearly every batch is one request). */
  droppedRows: { low: number; high: number };
  droppedLatencyMs: number;
  totalLimitMs: number;
  seed: number;
  out: string;
}

export function parseArgs(argv: string[]): Config {
  const quick = argv.includes('--quick');
  const config: Config = quick
    ? {
        mode: 'quick',
        rows: 60,
        duplicateRate: 0.15,
        naiveRows: 20,
        latencyMs: 100,
        naiveSliceMs: 2000,
        rangeRows: 20,
        rangeLatencyMs: 200,
        tailRows: 150,
        tailLatency: { medianMs: 300, p99Ms: 600 },
        naiveTailRows: 8,
        rateLimit: { maxInFlight: 12, retryAfterSeconds: 1 },
        limitedRows: 150,
        tailRangeRows: 60,
        naiveTailCells: 16,
        scaleRows: 2000,
        scaleSliceMs: 150,
        naiveScaleRows: 10,
        coldloadSeconds: 5,
        formulaProfiles: { a: 20, b: 20, c: 40, d: 20 },
        droppedRows: { low: 40, high: 40 },
        droppedLatencyMs: 100,
        totalLimitMs: 240_000,
        seed: 7,
        out: join(ROOT, 'bench', 'last-run-quick.json'),
      }
    : {
        mode: 'full',
        rows: 300,
        duplicateRate: 0.15,
        naiveRows: 40,
        latencyMs: 500,
        naiveSliceMs: 20_000,
        rangeRows: 100,
        rangeLatencyMs: 1000,
        tailRows: 1000,
        // A long tail: the 99th percentile twice the median, the slowest answers up to 8 times it (24 s).
        tailLatency: { medianMs: 3000, p99Ms: 6000 },
        naiveTailRows: 10,
        rateLimit: { maxInFlight: 25, retryAfterSeconds: 2 },
        // The whole sheet: what a first batch meets above the service's limit is a fixed cost, so the share of
        // requests answered 429 is measured over a run of a real length (about 4 minutes of the bench).
        limitedRows: 1000,
        tailRangeRows: 500,
        naiveTailCells: 48,
        scaleRows: 20_000,
        scaleSliceMs: 500,
        naiveScaleRows: 100,
        coldloadSeconds: 20,
        formulaProfiles: { a: 100, b: 200, c: 500, d: 100 },
        // At 1 %, one batch is lost before the fault is seen (most batches of 100 are), then the loss cap holds:
        // the run is long enough to be a real one. At 10 % batches are of one request, so fewer rows suffice.
        droppedRows: { low: 3000, high: 1000 },
        droppedLatencyMs: 20,
        // A bound, not the aim: a machine shared with other work still gets a whole run.
        totalLimitMs: 1_500_000,
        seed: 7,
        out: join(ROOT, 'bench', 'last-run.json'),
      };
  for (const arg of argv) {
    const match = /^--([a-z-]+)=(.+)$/.exec(arg);
    if (!match) {
      if (arg === '--check') config.check = true;
      else if (arg !== '--quick') throw new Error(`Unknown argument ${arg}`);
      continue;
    }
    const [, name, text] = match;
    if (name === 'out') {
      config.out = text;
      continue;
    }
    if (name === 'only') {
      if (text !== 'bulk' && text !== 'tail' && text !== 'scale' && text !== 'formula' && text !== 'dragged')
        throw new Error(
          '--only takes `bulk` (scenario 1), `tail` (scenarios 3-4), `scale` (scenario 6), `formula` (scenario 9) or `dragged` (10)',
        );
      config.only = text;
      if (!argv.some((other) => other.startsWith('--out=')))
        config.out = config.out.replace(/\.json$/, `-${text}.json`);
      continue;
    }
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer`);
    if (name === 'rows') config.rows = Math.min(value, 5000);
    else if (name === 'naive-rows') config.naiveRows = value;
    else if (name === 'latency') config.latencyMs = value;
    else if (name === 'range-rows') config.rangeRows = Math.min(value, 500);
    else if (name === 'range-latency') config.rangeLatencyMs = value;
    else if (name === 'batch') config.batchSize = value;
    else if (name === 'slices') config.slices = value;
    else throw new Error(`Unknown option --${name}`);
  }
  config.naiveRows = Math.min(config.naiveRows, config.rows);
  return config;
}

// ------------------------------------------------------------------ data

export const FIRST = [
  'jane',
  'john',
  'maria',
  'ahmed',
  'li',
  'olga',
  'pierre',
  'sara',
  'kenji',
  'ana',
  'tom',
  'eva',
];
export const LAST = [
  'doe',
  'smith',
  'garcia',
  'khan',
  'wei',
  'ivanova',
  'martin',
  'rossi',
  'tanaka',
  'silva',
];

/**
 * Profile URLs the sandbox answers deterministically (sandbox/profiles.ts): about 88% found, 7% not found
 * (`noemail`), 5% unprocessable (`nodomain`, 422). Duplicates repeat an earlier profile, some written differently
 * (trailing slash, no www, upper-case host) so that only normalisation recognises them.
 */
export function makeUrls(count: number, duplicateRate: number, seed: number, tag: string): string[] {
  // The emulator's seeded generator (mulberry32): every run uses the same sheet.
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const distinctCount = Math.max(1, Math.round(count * (1 - duplicateRate)));
  const distinct: string[] = [];
  for (let i = 0; i < distinctCount; i++) {
    const roll = next();
    const marker = roll < 0.07 ? '-noemail' : roll < 0.12 ? '-nodomain' : '';
    distinct.push(`https://www.network.com/in/${pick(FIRST)}-${pick(LAST)}${marker}-${tag}${i + 1}`);
  }
  const urls = [...distinct];
  while (urls.length < count) {
    const base = pick(distinct);
    const form = Math.floor(next() * 4);
    urls.push(
      form === 0
        ? base
        : form === 1
          ? `${base}/`
          : form === 2
            ? base.replace('https://www.', 'http://')
            : base.replace('www.network.com', 'WWW.Network.com'),
    );
  }
  // Fisher-Yates, seeded: duplicates end up anywhere in the column.
  for (let i = urls.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [urls[i], urls[j]] = [urls[j], urls[i]];
  }
  return urls;
}

export function distinctCount(urls: string[]): number {
  return new Set(urls.map((url) => normalizeProfileUrl(url))).size;
}

/**
 * New profiles the sandbox finds an address for (no marker: sandbox/profiles.ts), so that a cell is answered
 * exactly when it shows an address.
 */
export function foundProfiles(count: number, tag: string): string[] {
  return Array.from(
    { length: count },
    (_, i) => `https://www.network.com/in/${FIRST[i % FIRST.length]}-${LAST[i % LAST.length]}-${tag}${i + 1}`,
  );
}

// ------------------------------------------------------------------ helpers

export class Deadline {
  private readonly end: number;
  constructor(limitMs: number) {
    this.end = Date.now() + limitMs;
  }
  get left(): number {
    return this.end - Date.now();
  }
  check(what: string): void {
    if (this.left <= 0) throw new Error(`The bench ran out of its time limit during ${what}.`);
  }
}

/** Reads and writes of cell data or structure: the calls that cost a round trip in Apps Script. */
export function dataCalls(counts: Record<string, number>): number {
  let total = 0;
  for (const [name, n] of Object.entries(counts)) {
    if (!/^(Range|RangeList|Sheet|Spreadsheet)\./.test(name)) continue;
    const method = name.slice(name.indexOf('.') + 1);
    if (
      /^get(Values?|DisplayValues?|Formulas?|Notes?|NumberFormats?)$/.test(method) ||
      /^(set|clear|insert|delete|append|sort)/.test(method)
    )
      total += n;
  }
  return total;
}

/**
 * The add-on's requests: lookups (`requests`) apart from the free key check sent before the first paid batch
 * (`keyChecks`), and the fetchAll calls as the sandbox saw them (`timeline`).
 */
export function ledgerOf(sandbox: SandboxServer, org: string) {
  const all = sandbox.service.ledger().filter((entry) => entry.organization === org);
  const entries = all.filter((entry) => !entry.keyCheck);
  const charges = new Map<string, number>();
  for (const entry of entries) {
    if (entry.charged === 1 && entry.networkUrl !== undefined) {
      const key = normalizeProfileUrl(entry.networkUrl);
      charges.set(key, (charges.get(key) ?? 0) + 1);
    }
  }
  return {
    requests: entries.length,
    keyChecks: all.length - entries.length,
    timeline: timelineOf(sandbox.service.ledger()),
    credits: entries.reduce((sum, entry) => sum + entry.charged, 0),
    maxChargesPerUrl: Math.max(0, ...charges.values()),
    statuses: entries.reduce<Record<string, number>>((acc, entry) => {
      acc[String(entry.status)] = (acc[String(entry.status)] ?? 0) + 1;
      return acc;
    }, {}),
  };
}

/**
 * The requests grouped by the fetchAll they came in, as the sandbox saw them: one group holds the requests that
 * arrived within 100 ms of its first, all key checks or all lookups (a key check answered at once is followed by
 * the first paid batch within milliseconds). Start and longest answer in seconds from the first request.
 */
export function timelineOf(ledger: LedgerEntry[]) {
  const sorted = [...ledger].sort((a, b) => a.startedAt - b.startedAt);
  const origin = sorted[0]?.startedAt ?? 0;
  const groups: Array<{
    kind: 'key check' | 'lookups';
    size: number;
    startS: number;
    slowestS: number;
    status429: number;
  }> = [];
  let first = Number.NEGATIVE_INFINITY;
  for (const entry of sorted) {
    const kind = entry.keyCheck ? 'key check' : 'lookups';
    const last = groups[groups.length - 1];
    if (!last || last.kind !== kind || entry.startedAt - first > 100) {
      first = entry.startedAt;
      groups.push({ kind, size: 0, startS: (first - origin) / 1000, slowestS: 0, status429: 0 });
    }
    const group = groups[groups.length - 1];
    group.size++;
    group.slowestS = Math.max(group.slowestS, (entry.endedAt - entry.startedAt) / 1000);
    if (entry.status === 429) group.status429++;
  }
  return groups.map((group) => ({
    ...group,
    startS: round(group.startS, 2),
    slowestS: round(group.slowestS, 2),
  }));
}

export function failure(result: ExecutionResult): Error {
  return new Error(`${result.fn} failed: ${result.error?.name}: ${result.error?.message}`);
}

export const round = (value: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

export function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

export type Timed = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/** A Timed that records each phase's milliseconds in `phases`. */
export function timedInto(phases: Record<string, number>): Timed {
  return async (name, work) => {
    const begun = performance.now();
    try {
      return await work();
    } finally {
      phases[name] = performance.now() - begun;
    }
  };
}

// ------------------------------------------------------------------ 7-8. bench scripts of their own

export function runColdload(seconds: number): { output: string; ok: boolean } {
  return runBenchScript('coldload.ts', [`--max-seconds=${seconds}`], seconds + 60);
}

/** A bench script of its own (bench/NAME), run with this project's tsx; its output, and whether it ended well. */
export function runBenchScript(
  name: string,
  args: string[],
  timeoutSeconds: number,
): { output: string; ok: boolean } {
  try {
    const output = execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bench', name), ...args],
      { cwd: ROOT, encoding: 'utf8', timeout: timeoutSeconds * 1000 },
    );
    return { output: output.trim(), ok: true };
  } catch (error) {
    return { output: error instanceof Error ? error.message : String(error), ok: false };
  }
}

// ------------------------------------------------------------------ output

/** A run's figures without the per-method counts and per-slice samples (kept short in the JSON). */
export function summary<T extends { counts: Record<string, number>; slices?: unknown }>(figures: T) {
  const { counts: _counts, slices: _slices, ...rest } = figures;
  return rest;
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows
    .map((row, index) => {
      const line = row.map((cell, col) =>
        col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]),
      );
      const text = `  ${line.join('   ')}`;
      return index === 0 ? `${text}\n  ${widths.map((w) => '-'.repeat(w)).join('   ')}` : text;
    })
    .join('\n');
}

export const fmt = (value: number, digits = 1): string => round(value, digits).toLocaleString('en-US');
/** The targets' verdicts of this run: each target is judged once, where its figure is printed. */
export const verdicts: Array<{ name: string; met: boolean }> = [];
let targetsApply = true;

/** Whether the targets apply to this run (the full run's configuration): set once, before any verdict. */
export function setTargetsApply(applies: boolean): void {
  targetsApply = applies;
}

/** "met" or "missed" for a target, recorded for the closing line; "n/a" where the run is not the target's configuration. */
export function verdict(name: string, ok: boolean, applies = targetsApply): string {
  if (!applies) return 'n/a (the targets are set for the full run)';
  verdicts.push({ name, met: ok });
  return ok ? 'met' : 'missed';
}

/** Writes a run's figures to `out` as JSON, numbers to 2 decimals, and says where. */
export function writeFigures(out: string, figures: unknown): void {
  writeFileSync(out, `${JSON.stringify(figures, (_, v) => (typeof v === 'number' ? round(v, 2) : v), 2)}\n`);
  console.log(`Figures written to ${out}`);
}

/** The closing line on the targets; with --check, a missed target makes the exit code non-zero. */
export function reportTargets(config: Config): void {
  const missed = verdicts.filter((entry) => !entry.met).length;
  console.log(
    verdicts.length === 0
      ? 'Targets: not judged (a quick run).'
      : `Targets: ${verdicts.length - missed} met, ${missed} missed.`,
  );
  if (config.check && missed > 0) process.exitCode = 1;
}
