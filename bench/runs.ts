/**
 * The runs several scenarios of `npm run bench` measure: the add-on's bulk run as the sidebar drives it, the naive
 * baseline's loop (bench/naive/Code.js) and its one-cell formulas, and one evaluation of a formula cell.
 */
import {
  addCounts,
  Environment,
  type EnvironmentOptions,
  type ExecutionResult,
  type RecalcReport,
  SIMULTANEOUS_EXECUTIONS_PER_USER as SIMULTANEOUS_PER_USER,
  spreadsheetCalls,
} from '../emulator';
import { normalizeProfileUrl } from '../sandbox/profiles';
import type { SandboxServer } from '../sandbox/server';
import type { LatencySetting, RateLimit } from '../sandbox/service';
import type { Progress } from '../src/api';
import { DEFAULT_MAX_CONCURRENCY, MAX_IDLE_WAIT_MS, PROGRESS_LOOK_MS } from '../src/core/limits';
import {
  ADDON,
  type Config,
  type Deadline,
  dataCalls,
  distinctCount,
  failure,
  KEY_PROPERTY,
  ledgerOf,
  NAIVE,
  OWNER,
  SANDBOX_NETWORK_HOSTS,
} from './harness';

/** Caps on the number of executions of each loop (each loop is also bounded by the run's deadline). */
const MAX_ADDON_CALLS = 400;
const MAX_NAIVE_EXECUTIONS = 200;

// ------------------------------------------------------------------ spreadsheets

/** The owner's `key` in the owner's user properties, and a spreadsheet of theirs with `urls` in column A. */
export function sheetOfUrls(env: Environment, key: string, urls: string[]) {
  env.userProperties(OWNER).set({ [KEY_PROPERTY]: key });
  return env.createSpreadsheet({
    owner: OWNER,
    rows: Math.max(1000, urls.length + 1),
    data: [['Profile URL'], ...urls.map((url) => [url])],
  });
}

/**
 * A new spreadsheet in an environment of its own (no document property, no cache, no pace kept), `urls` in column
 * A, the owner's key in the owner's user properties; `options` for the emulator besides the script properties
 * (`fetchAllAtOnce`: requests of one fetchAll at the service at once).
 */
export function newSpreadsheet(
  sandbox: SandboxServer,
  urls: string[],
  options: Omit<EnvironmentOptions, 'scriptProperties'> = {},
) {
  const env = new Environment({
    ...options,
    scriptProperties: { API_BASE_URL: sandbox.baseUrl, NETWORK_HOSTS: SANDBOX_NETWORK_HOSTS },
  });
  const ss = sheetOfUrls(env, ADDON.key, urls);
  return { env, ssId: ss.id, last: urls.length + 1 };
}

// ------------------------------------------------------------------ bulk runs: the add-on and the naive loop

/** One bulk scenario: the sandbox's latency and rate limit, and the script properties of the add-on's run. */
export interface Scenario {
  latency: LatencySetting;
  rateLimit?: RateLimit;
  /** The share of requests whose connection the sandbox drops (its `reset` fault). */
  resetRate?: number;
  scriptProperties?: Record<string, string>;
}

/** One execution of a bulk run: how long it took, the rows it added, and the bench process's memory after it. */
export interface SliceSample {
  ms: number;
  rows: number;
  cursorRow: number;
  rssMb: number;
  heapMb: number;
}

export async function benchAddonBulk(
  config: Config,
  sandbox: SandboxServer,
  urls: string[],
  deadline: Deadline,
  scenario: Scenario = { latency: config.latencyMs },
) {
  const env = new Environment({
    scriptProperties: {
      API_BASE_URL: sandbox.baseUrl,
      NETWORK_HOSTS: SANDBOX_NETWORK_HOSTS,
      ...(config.batchSize ? { ENRICH_BATCH_SIZE: String(config.batchSize) } : {}),
      ...(config.slices ? { BULK_SLICES: String(config.slices) } : {}),
      ...scenario.scriptProperties,
    },
  });
  try {
    const ss = sheetOfUrls(env, ADDON.key, urls);
    const last = urls.length + 1;
    env.select(ss.id, `A2:A${last}`);
    sandbox.service.configure({
      latencyMs: scenario.latency,
      rateLimit: scenario.rateLimit,
      resetRate: scenario.resetRate,
    });
    sandbox.service.resetLedger();
    const counts: Record<string, number> = {};
    const slices: SliceSample[] = [];
    const sample = (ms: number, before: Progress | undefined, after: Progress) => {
      const memory = process.memoryUsage();
      slices.push({
        ms,
        rows: after.processed - (before?.processed ?? 0),
        cursorRow: after.processed,
        rssMb: memory.rss / 2 ** 20,
        heapMb: memory.heapUsed / 2 ** 20,
      });
    };
    const started = performance.now();
    // As a person does who accepts the plan and its price (the sidebar's Start).
    const plan = await env.execute('getRunPlan', [{}], { spreadsheetId: ss.id });
    if (!plan.ok) throw failure(plan);
    const confirmedCredits = (plan.value as { credits: number }).credits;
    // The sidebar looks at the progress while Start's own slice works (src/sidebar/plan.ts: lookWhile).
    const starting = env.execute('startRun', [{ confirmedCredits }], { spreadsheetId: ss.id });
    const startLooks = looksWhile(env, ss.id, starting);
    const result = await starting;
    addCounts(counts, result.counts);
    if (!result.ok) {
      await startLooks;
      throw failure(result);
    }
    let progress = (result.value as { progress: Progress }).progress;
    sample(performance.now() - started, undefined, progress);
    let calls = 1;
    let finishedAt: number | undefined = progress.state === 'running' ? undefined : performance.now();
    let peakSlices = 1;
    // As the sidebar does (src/sidebar/drive.ts drive): calls continueEnrichment in as many lanes at once as the
    // server's latest figure of slices says (Start's answer, a slice's, a progress look's), nothing more; a lane past
    // the figure ends, and so does one whose figure the other calls under way cover (the first waits instead); a run
    // ended in one answer is shown once every lane's last answer is in.
    const open = new Set<number>();
    const all: Promise<void>[] = [];
    // continueEnrichment calls under way (the sidebar's slicesUnderWay).
    const underWay = new Set<Promise<unknown>>();
    const figureOf = (seen: Progress) => Math.max(1, seen.slices ?? 1);
    let figure = figureOf(progress);
    // The run ended (paused, stopped, done) in one lane's answer: the furthest such answer.
    let ended: Progress | undefined;
    const going = () => progress.state === 'running' && !ended && calls < MAX_ADDON_CALLS;
    const widen = () => {
      for (let index = 0; index < figure; index++) {
        if (open.has(index) || (index > 0 && underWay.size >= figure)) continue;
        open.add(index);
        peakSlices = Math.max(peakSlices, open.size);
        const opened = lane(index);
        // Awaited in order below; meanwhile a lane's failure is not an unhandled rejection.
        opened.catch(() => undefined);
        all.push(opened);
      }
    };
    async function lane(index: number): Promise<void> {
      const first = index === 0;
      let idleRounds = 0;
      let answered = progress.processed;
      try {
        while (going()) {
          deadline.check('the add-on bulk run');
          const sliceStart = performance.now();
          calls++;
          const work: Promise<ExecutionResult> = env
            .execute('continueEnrichment', [], {
              spreadsheetId: ss.id,
              timeLimitMs: Math.max(1000, Math.min(env.limits.executionMs, deadline.left)),
            })
            .finally(() => underWay.delete(work));
          underWay.add(work);
          widen();
          const sliced = await work;
          addCounts(counts, sliced.counts);
          if (!sliced.ok) throw failure(sliced);
          const next = sliced.value as Progress;
          const before = progress;
          if (next.state !== 'running') {
            if (!ended || figuresOf(next) >= figuresOf(ended)) ended = next;
            sample(performance.now() - sliceStart, before, next);
            return;
          }
          // Answers of lanes arrive in any order: a running run's count only goes up.
          if (next.processed >= progress.processed) progress = next;
          sample(performance.now() - sliceStart, before, progress);
          figure = figureOf(next);
          // The other calls under way cover the figure: one lane fewer, or the first waits.
          const covered = underWay.size >= figure;
          if (index >= figure || (covered && !first)) return;
          // Or no progress: the next call waits for another's answer, or a while.
          idleRounds = next.processed === answered ? idleRounds + 1 : 0;
          answered = next.processed;
          if (covered || idleRounds > 0)
            await raceSleep(Math.min(MAX_IDLE_WAIT_MS, 1000 * Math.max(1, idleRounds)), [...underWay]);
        }
      } finally {
        open.delete(index);
      }
    }
    // As the sidebar does from Start's answer: as many lanes as the server's figure says.
    if (progress.state === 'running') widen();
    const lanesSettled = (async () => {
      for (let settled = 0; settled < all.length; settled++) await all[settled];
    })();
    // As the sidebar's looks at the progress while its calls work (lookWhile): the server's figure with them.
    const looks = looksWhile(env, ss.id, lanesSettled, going, (seen) => {
      figure = figureOf(seen);
      widen();
    });
    try {
      await lanesSettled;
    } catch (error) {
      await Promise.all([startLooks, looks]);
      throw error;
    }
    if (ended) progress = ended;
    // The run's end as the sidebar shows it: once every lane's last answer is in.
    finishedAt ??= performance.now();
    await Promise.all([startLooks, looks]);
    // Until the sidebar shows the run's end, not until the bench's idle lanes and looks wake up after it.
    const wallMs = (finishedAt ?? performance.now()) - started;
    const ledger = ledgerOf(sandbox, ADDON.org);

    // Every row has a status, and every duplicate the same result as its first occurrence.
    const values = env.values(ss.id, `A2:E${last}`);
    const withStatus = values.filter((row) => String(row[2]) !== '').length;
    const byUrl = new Map<string, string>();
    let inconsistent = 0;
    for (const row of values) {
      const key = normalizeProfileUrl(String(row[0]));
      const outputs = JSON.stringify(row.slice(1));
      const seen = byUrl.get(key);
      if (seen === undefined) byUrl.set(key, outputs);
      else if (seen !== outputs) inconsistent++;
    }
    const fetchAllCalls = counts['UrlFetchApp.fetchAll'] ?? 0;
    // Adaptive: a window holds the lookups of one fetchAll (src/bulk/window.ts).
    const batchSize = config.batchSize ?? DEFAULT_MAX_CONCURRENCY;
    const rowWindows = config.batchSize ? Math.ceil(urls.length / batchSize) : Math.max(1, fetchAllCalls);
    const allCalls = spreadsheetCalls(counts);
    return {
      slices,
      errorRows: values.filter((row) => String(row[2]) === 'ERROR').length,
      // Refused before the key check, a 429 of the rate limit carries no organization: counted from the whole
      // ledger (one bench run at a time).
      rateLimited: sandbox.service.ledger().filter((entry) => entry.status === 429).length,
      peakInFlight: sandbox.service.maxConcurrent,
      rows: urls.length,
      distinctUrls: distinctCount(urls),
      wallMs,
      rowsPerMinute: urls.length / (wallMs / 60_000),
      executions: calls,
      peakSlices,
      finalState: progress.state,
      progress,
      rowsWithStatus: withStatus,
      inconsistentDuplicates: inconsistent,
      batchSize,
      rowWindows,
      fetchAllCalls,
      spreadsheetCalls: allCalls,
      dataCalls: dataCalls(counts),
      spreadsheetCallsPer1000Rows: (allCalls / urls.length) * 1000,
      lockCallsPer1000Rows: (lockCalls(counts) / urls.length) * 1000,
      cacheCallsPer1000Rows: (cacheCalls(counts) / urls.length) * 1000,
      spreadsheetCallsPerBatch: allCalls / rowWindows,
      dataCallsPerBatch: dataCalls(counts) / rowWindows,
      requests: ledger.requests,
      keyChecks: ledger.keyChecks,
      timeline: ledger.timeline,
      credits: ledger.credits,
      maxChargesPerUrl: ledger.maxChargesPerUrl,
      statuses: ledger.statuses,
      counts,
    };
  } finally {
    await env.close();
  }
}

export async function benchNaiveBulk(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  urls: string[],
  deadline: Deadline,
  sample: { latency: LatencySetting; rows: number; fromRow?: number } = {
    latency: config.latencyMs,
    rows: config.naiveRows,
  },
) {
  const env = new Environment({ distDir: naiveDir, scriptProperties: { API_BASE_URL: sandbox.baseUrl } });
  try {
    const ss = sheetOfUrls(env, NAIVE.key, urls);
    const first = sample.fromRow ?? 2;
    const last = Math.min(urls.length + 1, first + sample.rows - 1);
    sandbox.service.configure({ latencyMs: sample.latency });
    sandbox.service.resetLedger();
    const counts: Record<string, number> = {};
    let next = first;
    let executions = 0;
    let idle = 0;
    const started = performance.now();
    // The tutorial loop restarts at the top of the selection: the person selects the rows left and runs it again.
    while (next <= last && executions < MAX_NAIVE_EXECUTIONS) {
      deadline.check('the naive bulk run');
      env.select(ss.id, `A${next}:A${last}`);
      const result = await env.execute('naiveEnrich', [config.naiveSliceMs], {
        spreadsheetId: ss.id,
        timeLimitMs: Math.max(1000, Math.min(env.limits.executionMs, deadline.left)),
      });
      executions++;
      addCounts(counts, result.counts);
      if (!result.ok) throw failure(result);
      const done = Number(result.value);
      // On a loaded machine the set-up calls alone can outlast a short time box; give up after a few such runs.
      idle = done > 0 ? 0 : idle + 1;
      if (idle >= 3)
        throw new Error(`naiveEnrich made no progress (returned ${JSON.stringify(result.value)})`);
      next += done;
    }
    const wallMs = performance.now() - started;
    const rows = next - first;
    const ledger = ledgerOf(sandbox, NAIVE.org);
    const measured = urls.slice(first - 2, first - 2 + rows);
    const allCalls = spreadsheetCalls(counts);
    const rowsPerMinute = rows / (wallMs / 60_000);
    return {
      rowsMeasured: rows,
      distinctUrlsMeasured: distinctCount(measured),
      wallMs,
      rowsPerMinute,
      extrapolatedMsForAllRows: (urls.length / rowsPerMinute) * 60_000,
      // The loop sends one request (one credit: 200 and 422 both charge) per non-empty row, checked on the
      // measured rows; on the whole sheet that is rows / distinct URLs per distinct URL.
      oneRequestPerRow: ledger.requests === rows && ledger.credits === rows,
      wholeSheetCreditsPerDistinctUrl: urls.length / distinctCount(urls),
      executions,
      spreadsheetCalls: allCalls,
      dataCalls: dataCalls(counts),
      spreadsheetCallsPer1000Rows: (allCalls / rows) * 1000,
      requests: ledger.requests,
      keyChecks: ledger.keyChecks,
      timeline: ledger.timeline,
      credits: ledger.credits,
      maxChargesPerUrl: ledger.maxChargesPerUrl,
      counts,
    };
  } finally {
    await env.close();
  }
}

/** How far an answer went (src/sidebar/drive.ts figuresOf): rows and credits only go up while the run goes on. */
function figuresOf(progress: Progress): number {
  return progress.processed + progress.creditsUsed + progress.creditsMaybeLost;
}

/**
 * As the sidebar's lookWhile (src/sidebar/drive.ts): while `work` is on its way and `current()`, a look at the
 * progress every PROGRESS_LOOK_MS; `looked` hears each look of the same run while it and the run are running.
 * Resolves once `work` has settled (at once then, not at the next look's time).
 */
async function looksWhile(
  env: Environment,
  ssId: string,
  work: Promise<unknown>,
  current: () => boolean = () => true,
  looked: (seen: Progress) => void = () => {},
): Promise<void> {
  let pending = true;
  const settled = work.then(
    () => {
      pending = false;
    },
    () => {
      pending = false;
    },
  );
  const going = () => pending && current();
  let runId: string | undefined;
  for (let look = 0; going() && look < 100_000; look++) {
    await raceSleep(PROGRESS_LOOK_MS, [settled]);
    if (!going()) return;
    const view = await env.execute('getEnrichmentProgress', [], { spreadsheetId: ssId });
    const seen = view.value as Progress | undefined;
    if (!going() || !view.ok || !seen || seen.readOnly || seen.state !== 'running') continue;
    runId ??= seen.runId;
    if (seen.runId === runId) looked(seen);
  }
}

/** Waits `ms`, or less when one of `wakers` settles first (its timer then cleared). */
async function raceSleep(ms: number, wakers: Promise<unknown>[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([wait, ...wakers]).catch(() => undefined);
  } finally {
    clearTimeout(timer);
  }
}

// ------------------------------------------------------------------ formula evaluations

/**
 * One evaluation of the spreadsheet's formulas; `cells` (single-cell formulas) go in waves of 30, as many as Apps
 * Script runs at once for one user (the emulator refuses more, as Apps Script does).
 */
export async function recalcRound(
  env: Environment,
  ssId: string,
  sandbox: SandboxServer,
  org: string,
  cells?: string[],
) {
  sandbox.service.resetLedger();
  const started = performance.now();
  const report: RecalcReport = { evaluated: 0, results: [] };
  const waves = cells ? Math.ceil(cells.length / SIMULTANEOUS_PER_USER) : 1;
  for (let wave = 0; wave < waves; wave++) {
    const part = cells?.slice(wave * SIMULTANEOUS_PER_USER, (wave + 1) * SIMULTANEOUS_PER_USER);
    const done = await env.recalculate(ssId, part ? { cells: part.map((a1) => ({ a1 })) } : {});
    report.evaluated += done.evaluated;
    report.results.push(...done.results);
  }
  const wallMs = performance.now() - started;
  const ledger = ledgerOf(sandbox, org);
  return {
    wallMs,
    executions: report.results,
    maxChargesPerUrl: ledger.maxChargesPerUrl,
    evaluated: report.evaluated,
    failedExecutions: report.results.filter((r) => !r.ok).length,
    timedOut: report.results.filter((r) => r.timedOut).length,
    peakInFlight: sandbox.service.maxConcurrent,
    requests: ledger.requests,
    credits: ledger.credits,
  };
}

/** One naive one-cell formula per URL, evaluated twice at `latencyMs`. */
export async function benchNaiveCells(
  sandbox: SandboxServer,
  naiveDir: string,
  urls: string[],
  latencyMs: LatencySetting,
) {
  const env = new Environment({ distDir: naiveDir, scriptProperties: { API_BASE_URL: sandbox.baseUrl } });
  try {
    const ss = sheetOfUrls(env, NAIVE.key, urls);
    const last = urls.length + 1;
    env.enter(
      ss.id,
      `B2:B${last}`,
      urls.map((_, index) => [`=NAIVE(A${index + 2})`]),
    );
    sandbox.service.configure({ latencyMs });
    const cells = urls.map((_, index) => `B${index + 2}`);
    const first = await recalcRound(env, ss.id, sandbox, NAIVE.org, cells);
    const second = await recalcRound(env, ss.id, sandbox, NAIVE.org, cells);
    return { cells: urls.length, first, second };
  } finally {
    await env.close();
  }
}

/** Calls on a lock (tryLock, waitLock, releaseLock, hasLock): each one counts against LockService's quota. */
export function lockCalls(counts: Record<string, number>): number {
  return Object.entries(counts)
    .filter(([name]) => name.startsWith('Lock.'))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Calls on CacheService (the slices' shared pace among them): not a quota of their own, counted to be seen. */
export function cacheCalls(counts: Record<string, number>): number {
  return Object.entries(counts)
    .filter(([name]) => name.startsWith('Cache.'))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** One evaluation of one formula cell, as the emulator measured its execution. */
export interface Evaluation {
  /** The execution's time from its start on a thread (what the 30 s limit counts), in ms. */
  ms: number;
  /** Ended by the emulator at the limit ("Exceeded maximum execution time"). */
  killed: boolean;
  error?: string;
  /** Cells of the formula's column showing an address. */
  answered: number;
  fetchAllCalls: number;
  /** The sizes of the fetchAll calls that carried lookups (a key check apart). */
  lookupBatches: number[];
  lockCalls: number;
}

/**
 * Evaluates the formula in `cell` (entered again first when `refresh`: as a person does with Refresh =FINDEMAIL
 * cells, a formula entered again is evaluated again) and counts the addresses in `column`.
 */
export async function evaluateFormula(
  env: Environment,
  ssId: string,
  cell: string,
  column: string,
  refresh = false,
): Promise<Evaluation> {
  if (refresh) env.enter(ssId, cell, env.formulas(ssId, cell));
  const report = await env.recalculate(ssId, { cells: [{ a1: cell }] });
  return evaluationOf(env, report.results[0], ssId, column);
}

/** What the execution of one formula cell did, and the addresses its column shows. */
export function evaluationOf(
  env: Environment,
  result: ExecutionResult | undefined,
  ssId: string,
  column: string,
): Evaluation {
  if (!result) throw new Error(`No custom function evaluated for ${column}`);
  const batches = new Map<number, number>();
  for (const record of env.fetches) {
    if (record.execId !== result.id || !record.payload?.includes('network_url')) continue;
    batches.set(record.call, (batches.get(record.call) ?? 0) + 1);
  }
  const values = env.displayValues(ssId, column).map((row) => String(row[0]));
  return {
    ms: result.durationMs,
    killed: result.timedOut,
    error: result.ok ? undefined : result.error?.message,
    answered: values.filter((value) => value.includes('@')).length,
    fetchAllCalls: result.counts['UrlFetchApp.fetchAll'] ?? 0,
    lookupBatches: [...batches.values()],
    lockCalls: lockCalls(result.counts),
  };
}
