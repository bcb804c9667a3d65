/** Command-line options of the sandbox (sandbox/cli.ts), apart so tests can parse without starting it. */
import { parseArgs } from 'node:util';
import { LONG_TAIL_DEFAULT_CAP, type LongTailLatency, validateLatency } from './latency';
import { DEFAULT_RETRY_AFTER_SECONDS, type RateLimit } from './rateLimit';
import type { FaultConfig, LedgerEntry, OrganizationConfig } from './service';

export const DEFAULT_PORT = 8787;
export const DEFAULT_KEY = 'demo-key-0000000000000000';
export const DEFAULT_CREDITS = 1000;

export interface CliConfig {
  port: number;
  organizations: OrganizationConfig[];
  faults: FaultConfig;
  seed?: number;
}

export const USAGE = `Usage: npm run sandbox -- [options]
  --port N              port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 = any free port)
  --key KEY             API key of the "demo" organization (default ${DEFAULT_KEY})
  --credits N           credits of the "demo" organization (default ${DEFAULT_CREDITS})
  --org NAME:KEY:N      an organization (repeatable); without --key/--credits, replaces "demo"
  --latency MS|MIN-MAX  delay before every lookup's answer (what is answered before a lookup, a key
                          check's 400, a 401, 402, 404 or 429, comes at once): fixed, or a uniform draw
  --latency-median MS   a long-tailed (log-normal) delay instead, with this median and
  --latency-p95 MS        this 95th percentile, or
  --latency-p99 MS        this 99th percentile (give one of the two)
  --latency-max MS      the longest long-tailed delay (default ${LONG_TAIL_DEFAULT_CAP} x the percentile given)
  --max-in-flight N     answer 429 above N requests under way at once (default: no limit)
  --max-per-second N    answer 429 above N requests admitted in any second (default: no limit)
  --retry-after S       Retry-After of an in-flight 429, in seconds (default ${DEFAULT_RETRY_AFTER_SECONDS})
  --error500-rate R     fraction (0..1) of lookups answering 500
  --reset-rate R        fraction of connections reset: lookups, and (a stream of their own) the
                          requests answered before a lookup, key checks among them
  --error429-rate R     fraction of lookups answering 429
  --html-error-rate R   fraction of lookups answering a 502 HTML page
  --slow-ms MS          extra delay for every lookup
  --seed N              seed of the fault and latency draws (default 1)`;

function number(name: string, text: string, check: (n: number) => boolean): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !check(value)) {
    throw new Error(`Invalid --${name}: ${text}`);
  }
  return value;
}

const nonNegative = (n: number) => n >= 0;
const rate = (n: number) => n >= 0 && n <= 1;

export function parseCli(argv: string[]): CliConfig | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      key: { type: 'string' },
      credits: { type: 'string' },
      org: { type: 'string', multiple: true },
      latency: { type: 'string' },
      'latency-median': { type: 'string' },
      'latency-p95': { type: 'string' },
      'latency-p99': { type: 'string' },
      'latency-max': { type: 'string' },
      'max-in-flight': { type: 'string' },
      'max-per-second': { type: 'string' },
      'retry-after': { type: 'string' },
      'error500-rate': { type: 'string' },
      'reset-rate': { type: 'string' },
      'error429-rate': { type: 'string' },
      'html-error-rate': { type: 'string' },
      'slow-ms': { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const port =
    values.port === undefined
      ? DEFAULT_PORT
      : number('port', values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535);

  const organizations: OrganizationConfig[] = [];
  const orgSpecs = values.org ?? [];
  if (orgSpecs.length === 0 || values.key !== undefined || values.credits !== undefined) {
    organizations.push({
      name: 'demo',
      keys: [values.key ?? DEFAULT_KEY],
      credits:
        values.credits === undefined ? DEFAULT_CREDITS : number('credits', values.credits, Number.isInteger),
    });
  }
  for (const spec of orgSpecs) {
    const match = /^([^:]+):([^:]+):(-?\d+)$/.exec(spec);
    if (!match) throw new Error(`Invalid --org ${spec}: expected name:key:credits`);
    organizations.push({ name: match[1], keys: [match[2]], credits: Number(match[3]) });
  }

  const faults: FaultConfig = {};
  if (values.latency !== undefined) {
    const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(values.latency);
    if (range) {
      const [min, max] = [Number(range[1]), Number(range[2])];
      if (max < min) throw new Error(`Invalid --latency ${values.latency}: max below min`);
      faults.latencyMs = [min, max];
    } else {
      faults.latencyMs = number('latency', values.latency, nonNegative);
    }
  }
  const longTail = ['latency-median', 'latency-p95', 'latency-p99', 'latency-max'] as const;
  if (longTail.some((name) => values[name] !== undefined)) {
    if (values.latency !== undefined) throw new Error('Give --latency or --latency-median, not both');
    if (values['latency-median'] === undefined)
      throw new Error('A long-tailed latency needs --latency-median');
    const ms = (name: (typeof longTail)[number]) => {
      const text = values[name];
      return text === undefined ? undefined : number(name, text, nonNegative);
    };
    const setting: LongTailLatency = { medianMs: ms('latency-median') as number };
    const [p95Ms, p99Ms, maxMs] = [ms('latency-p95'), ms('latency-p99'), ms('latency-max')];
    if (p95Ms !== undefined) setting.p95Ms = p95Ms;
    if (p99Ms !== undefined) setting.p99Ms = p99Ms;
    if (maxMs !== undefined) setting.maxMs = maxMs;
    try {
      faults.latencyMs = validateLatency(setting);
    } catch (error) {
      throw new Error(
        `Invalid long-tailed latency: ${(error as Error).message.replace(/^faults\.latencyMs:? ?/, '')}`,
      );
    }
  }
  const rateLimit: RateLimit = {};
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (values['max-in-flight'] !== undefined)
    rateLimit.maxInFlight = number('max-in-flight', values['max-in-flight'], whole);
  if (values['max-per-second'] !== undefined)
    rateLimit.maxPerSecond = number('max-per-second', values['max-per-second'], whole);
  if (values['retry-after'] !== undefined) {
    rateLimit.retryAfterSeconds = number(
      'retry-after',
      values['retry-after'],
      (n) => Number.isInteger(n) && n >= 0,
    );
  }
  if (Object.keys(rateLimit).length > 0) faults.rateLimit = rateLimit;
  if (values['error500-rate'] !== undefined)
    faults.error500Rate = number('error500-rate', values['error500-rate'], rate);
  if (values['reset-rate'] !== undefined) faults.resetRate = number('reset-rate', values['reset-rate'], rate);
  if (values['error429-rate'] !== undefined)
    faults.error429Rate = number('error429-rate', values['error429-rate'], rate);
  if (values['html-error-rate'] !== undefined) {
    faults.htmlErrorRate = number('html-error-rate', values['html-error-rate'], rate);
  }
  if (values['slow-ms'] !== undefined) faults.slowMs = number('slow-ms', values['slow-ms'], nonNegative);
  const seed = values.seed === undefined ? undefined : number('seed', values.seed, Number.isInteger);
  return { port, organizations, faults, seed };
}

/** One log line per request; never the key. */
export function formatLogLine(entry: LedgerEntry): string {
  const parts = [
    new Date(entry.endedAt).toISOString(),
    `#${entry.seq}`,
    entry.method,
    entry.path,
    String(entry.status),
    `org=${entry.organization ?? '-'}`,
    `charged=${entry.charged}`,
    `${entry.endedAt - entry.startedAt}ms`,
  ];
  if (entry.fault) parts.push(`fault=${entry.fault}(${entry.faultSource})`);
  if (entry.keyCheck) parts.push('key-check');
  if (entry.clientGone) parts.push('client-gone');
  if (entry.networkUrl !== undefined) parts.push(JSON.stringify(entry.networkUrl));
  return parts.join(' ');
}
