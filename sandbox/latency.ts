/**
 * The sandbox's delay before each answer: none, a fixed one, a uniform draw in [min, max], or a long-tailed
 * (log-normal) distribution given by its median and one tail percentile, as real e-mail verification shows
 * (most lookups near the median, a few many times slower).
 *
 * Every draw is a pure function of (seed, index): the k-th request after the service starts or is configured gets
 * the same delay in every run with the same seed, whatever the timing.
 */

/** A log-normal delay: `medianMs`, and either `p95Ms` or `p99Ms` (above the median); capped at `maxMs`. */
export interface LongTailLatency {
  medianMs: number;
  p95Ms?: number;
  p99Ms?: number;
  /** The longest delay drawn (default: LONG_TAIL_DEFAULT_CAP times the tail percentile given). */
  maxMs?: number;
}

export type LatencySetting = number | [number, number] | LongTailLatency;

export const LONG_TAIL_DEFAULT_CAP = 4;
/** Standard normal quantiles of 0.95 and 0.99. */
const Z95 = 1.6448536269514722;
const Z99 = 2.3263478740408408;

/** A uniform draw in [0, 1) from (seed, stream, n): deterministic and independent of call order. */
export function draw(seed: number, stream: number, n: number): number {
  let x = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(stream, 0x85ebca6b) ^ Math.imul(n, 0xc2b2ae35)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return x / 0x1_0000_0000;
}

/**
 * The standard normal quantile (inverse CDF) for p in (0, 1): Acklam's rational approximation, relative error
 * below 1.2e-9 (https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/notes/invnorm/).
 */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    );
  }
  if (p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return (
      -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    );
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/** The log-normal's σ and its cap. */
function longTailShape(setting: LongTailLatency): { sigma: number; maxMs: number } {
  const tail = setting.p99Ms ?? setting.p95Ms ?? setting.medianMs;
  const z = setting.p99Ms !== undefined ? Z99 : Z95;
  const sigma = setting.medianMs > 0 && tail > setting.medianMs ? Math.log(tail / setting.medianMs) / z : 0;
  return { sigma, maxMs: setting.maxMs ?? LONG_TAIL_DEFAULT_CAP * tail };
}

/** The delay at quantile p (0 < p < 1) of a long-tailed setting, before rounding. */
export function longTailQuantile(setting: LongTailLatency, p: number): number {
  const { sigma, maxMs } = longTailShape(setting);
  return Math.min(maxMs, setting.medianMs * Math.exp(sigma * normalQuantile(p)));
}

export function isLongTail(setting: LatencySetting | undefined): setting is LongTailLatency {
  return typeof setting === 'object' && setting !== null && !Array.isArray(setting);
}

/** The delay of the n-th draw (0-based), in whole milliseconds. */
export function latencyAt(setting: LatencySetting | undefined, seed: number, n: number): number {
  if (setting === undefined) return 0;
  if (typeof setting === 'number') return setting;
  if (Array.isArray(setting)) return Math.round(setting[0] + draw(seed, 1, n) * (setting[1] - setting[0]));
  // Half a step off 0 so that p is never 0 (whose quantile is -infinity).
  const p = draw(seed, 3, n) + 2 ** -33;
  return Math.round(longTailQuantile(setting, p));
}

function checkDelay(name: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new RangeError(
      `faults.${name} must be a non-negative number of milliseconds, got ${String(value)}`,
    );
  }
}

/** Checks a latency setting and returns a copy; throws a RangeError naming the field. */
export function validateLatency(latency: LatencySetting | undefined): LatencySetting | undefined {
  if (Array.isArray(latency)) {
    checkDelay('latencyMs[0]', latency[0]);
    checkDelay('latencyMs[1]', latency[1]);
    if (latency[1] < latency[0]) throw new RangeError('faults.latencyMs: max is below min');
    return [latency[0], latency[1]];
  }
  if (!isLongTail(latency)) {
    checkDelay('latencyMs', latency);
    return latency;
  }
  const { medianMs, p95Ms, p99Ms, maxMs } = latency;
  checkDelay('latencyMs.medianMs', medianMs);
  checkDelay('latencyMs.p95Ms', p95Ms);
  checkDelay('latencyMs.p99Ms', p99Ms);
  checkDelay('latencyMs.maxMs', maxMs);
  if (medianMs === undefined) throw new RangeError('faults.latencyMs.medianMs is required for a long tail');
  if ((p95Ms === undefined) === (p99Ms === undefined)) {
    throw new RangeError('faults.latencyMs: give one tail percentile, p95Ms or p99Ms');
  }
  const tail = (p99Ms ?? p95Ms) as number;
  if (!(tail > medianMs)) {
    throw new RangeError(
      `faults.latencyMs: the tail percentile (${tail} ms) must be above the median (${medianMs} ms)`,
    );
  }
  if (maxMs !== undefined && maxMs < tail) {
    throw new RangeError(`faults.latencyMs.maxMs (${maxMs} ms) is below the tail percentile (${tail} ms)`);
  }
  const copy: LongTailLatency = { medianMs };
  if (p95Ms !== undefined) copy.p95Ms = p95Ms;
  if (p99Ms !== undefined) copy.p99Ms = p99Ms;
  if (maxMs !== undefined) copy.maxMs = maxMs;
  return copy;
}
