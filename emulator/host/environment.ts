/**
 * The Apps Script emulator's host: runs dist/Code.js the way Apps Script does, each execution in a fresh `vm`
 * context on a worker thread (host/pool.ts, worker/thread.ts), with the services answered here (services/) over a
 * synchronous RPC. See emulator/README.md for the rules it holds to and their sources.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLOSE_GRACE_MS,
  CUSTOM_FUNCTION_LIMIT_MS,
  DEFAULT_LIVE_WRITES,
  DEFAULT_LOCK_RATE_LIMIT,
  DEFAULT_MAX_CONCURRENT,
  EXECUTION_LIMIT_MS,
  FETCH_TIMEOUT_MS,
  RELEASE_WITH_PENDING_WRITES,
  SIMULTANEOUS_EXECUTIONS_PER_USER,
  TIME_LIMIT_MESSAGE,
  TOO_MANY_LOCK_OPERATIONS,
  TOO_MANY_SIMULTANEOUS_MESSAGE,
} from '../constants';
import { ExecutionError, fail, ProtectionWarningError } from '../errors';
import type { RunMessage } from '../protocol';
import { answer } from '../services';
import type { Exec, ServiceHost } from '../services/context';
import { flushPending } from '../services/pending';
import type {
  EnvironmentOptions,
  ExecutionResult,
  FetchRecord,
  Limits,
  LogLine,
  Manifest,
  QuotaUsage,
  RecalcReport,
  RunOptions,
  ServiceCall,
  TriggerRecord,
  UiRecord,
} from '../types';
import { addCounts } from './counts';
import { CustomFunctionEvaluator } from './custom-functions';
import { readManifest } from './manifest';
import { WorkerPool } from './pool';
import {
  DAILY_QUOTAS,
  DailyQuotas,
  PROPERTIES_SHORT_TIME_MESSAGE,
  type QuotaKind,
  URLFETCH_SHORT_TIME_MESSAGE,
} from './quotas';
import { seededRandom } from './random';
import { scriptFiles } from './scripts';
import { SharedState } from './state';
import { appendRow, type Fired, InstallableTriggers, TRIGGER_RUNTIME_DAILY_MS } from './triggers';

export const DIST_DIR = join(__dirname, '..', '..', 'dist');

export class Environment extends SharedState implements ServiceHost {
  readonly distDir: string;
  readonly limits: Limits;
  readonly fetchTimeoutMs: number;
  /** The warnings people were shown before editing a sheet protected with a warning (see `edit`). */
  readonly protectionWarnings: Array<{ spreadsheetId: string; sheetName: string; user: string }> = [];
  readonly ui: UiRecord = { menus: [], sidebars: [], dialogs: [], toasts: [], alerts: [], answers: [] };
  readonly triggers: TriggerRecord[] = [];
  readonly logs: LogLine[] = [];
  readonly fetches: FetchRecord[] = [];
  /**
   * Every `Properties.setProperties(values, true)`: the store written anew, each key not in `values` deleted, what
   * another execution wrote meanwhile with it.
   */
  readonly storeRewrites: Array<{ execId: number; fn: string; store: 'script' | 'document' | 'user' }> = [];
  /** Every Utilities.sleep call, recorded as the execution starts sleeping. */
  readonly sleeps: Array<{ execId: number; ms: number }> = [];
  readonly executions: ExecutionResult[] = [];
  /** HTML outputs created by executions (shown or not). */
  readonly htmlOutputs: Array<{ execId: number; title: string; content: string }> = [];
  /** Every service call of every execution, by method name. */
  readonly counts: Record<string, number> = {};
  /** The manifest (dist/appsscript.json or the `manifest` option): allowlist and scopes. */
  readonly manifest: Manifest;
  readonly deployment: 'installed' | 'test';
  readonly customFunctionDocumentWrites: 'allowed' | 'refused';
  /** The `liveWrites` option's coin: whether this write is applied at once (undefined: never). */
  readonly writeGoesLive?: () => boolean;
  private readonly simultaneousPerUser: number;
  /** Documents where the add-on is enabled (addonEnabled). */
  private readonly enabledIn = new Set<string>();
  /** Executions running now, by user (from the start of the call until it ends, waiting for a thread included). */
  private readonly running = new Map<string, number>();
  /** Evaluations of formulas an execution entered, under way. */
  private readonly reevaluations = new Set<Promise<unknown>>();
  private readonly legacyTriggerDocumentContext: boolean;
  private readonly quotas: DailyQuotas;
  private readonly pool: WorkerPool;
  /** Installable triggers firing (host/triggers.ts): open, change, form-submit; the daily runtime quota. */
  readonly installableTriggers: InstallableTriggers;
  private readonly customFunctions = new CustomFunctionEvaluator(this);
  private readonly serials = { output: 1, trigger: 1, exec: 1 };
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private readonly lockRateLimit?: Exclude<EnvironmentOptions['lockRateLimit'], false>;
  /** PropertiesService's short-time limit (option propertiesRateLimit), and each user's calls in its window. */
  propertiesRateLimit?: EnvironmentOptions['propertiesRateLimit'];
  urlFetchRateLimit?: EnvironmentOptions['urlFetchRateLimit'];
  readonly fetchAllAtOnce: number;
  private readonly propertyCalls = new Map<string, number[]>();
  private readonly strictFlush: boolean;
  /** The environment's clock at each Lock call within the rate quota's window. */
  private lockCalls: number[] = [];
  /** Locks released while their execution had sheet writes not flushed (services/pending.ts). */
  lockReleasesWithPendingWrites = 0;
  /** Lock calls refused by the rate quota (option lockRateLimit, or refuseLockCalls). */
  lockCallsRefused = 0;
  /** The listeners of onServiceCall. */
  private readonly callListeners = new Set<(call: ServiceCall) => void | Promise<void>>();
  /** Set by refuseLockCalls: every Lock call throws the rate quota's error until it is lifted. */
  private lockQuotaSpent = false;
  /** Executions whose every Lock call throws the rate quota's error (refuseLockCalls with `execId`), until lifted. */
  private readonly lockRefusedExecs = new Set<number>();

  constructor(options: EnvironmentOptions = {}) {
    super(options.timeZone ?? 'Etc/UTC', evictor(options.cacheEviction));
    this.distDir = options.distDir ?? DIST_DIR;
    if (!existsSync(join(this.distDir, 'Code.js'))) {
      throw new Error(`No ${join(this.distDir, 'Code.js')}: run \`npm run build\` first.`);
    }
    this.limits = {
      executionMs: options.limits?.executionMs ?? EXECUTION_LIMIT_MS,
      customFunctionMs: options.limits?.customFunctionMs ?? CUSTOM_FUNCTION_LIMIT_MS,
    };
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? FETCH_TIMEOUT_MS;
    this.manifest = options.manifest ?? readManifest(this.distDir);
    this.deployment = options.deployment ?? 'installed';
    this.legacyTriggerDocumentContext = options.legacyTriggerDocumentContext === true;
    this.customFunctionDocumentWrites = options.customFunctionDocumentWrites ?? 'allowed';
    this.writeGoesLive = evictor(options.liveWrites ?? DEFAULT_LIVE_WRITES);
    this.simultaneousPerUser = options.simultaneousExecutionsPerUser ?? SIMULTANEOUS_EXECUTIONS_PER_USER;
    this.lockRateLimit =
      options.lockRateLimit === false ? undefined : (options.lockRateLimit ?? DEFAULT_LOCK_RATE_LIMIT);
    this.propertiesRateLimit = options.propertiesRateLimit;
    this.urlFetchRateLimit = options.urlFetchRateLimit;
    this.fetchAllAtOnce = options.fetchAllAtOnce ?? Number.POSITIVE_INFINITY;
    this.strictFlush = options.strictFlush === true;
    const account = DAILY_QUOTAS[options.account ?? 'consumer'];
    this.quotas = new DailyQuotas({
      properties: options.propertiesDailyQuota ?? account.properties,
      urlfetch: options.urlFetchDailyQuota ?? account.urlfetch,
    });
    if (options.scriptProperties) this.scriptProperties.set(options.scriptProperties);
    this.installableTriggers = new InstallableTriggers(
      this,
      options.triggerRuntimeDailyMs ?? TRIGGER_RUNTIME_DAILY_MS[options.account ?? 'consumer'],
    );
    this.pool = new WorkerPool(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT, {
      call: async (exec, request) => {
        addCounts(exec.counts, request.counts);
        addCounts(this.counts, request.counts);
        exec.counts[request.op] = (exec.counts[request.op] ?? 0) + 1;
        this.counts[request.op] = (this.counts[request.op] ?? 0) + 1;
        await this.heard(exec, request.op, request.args, 'before');
        try {
          return await answer(this, exec, request.op, request.args);
        } finally {
          await this.heard(exec, request.op, request.args, 'after');
        }
      },
      log: (line) => this.logs.push(line),
      sleep: (execId, ms) => this.sleeps.push({ execId, ms }),
      now: () => this.now(),
    });
  }

  // ------------------------------------------------------------------ counts, quotas

  /**
   * The test's control of interleavings: `listener` hears every service call of every execution, before it is
   * answered and after (its answer not yet back in the script). While the promise it returns is pending, that
   * execution waits there, as it would on a slow call, its time limit running; the other executions go on. Apps
   * Script gives no order between executions, so this only picks one of the orders that can happen. Returns the
   * listener's removal.
   */
  onServiceCall(listener: (call: ServiceCall) => void | Promise<void>): () => void {
    this.callListeners.add(listener);
    return () => {
      this.callListeners.delete(listener);
    };
  }

  private async heard(exec: Exec, op: string, args: unknown[], phase: ServiceCall['phase']): Promise<void> {
    if (this.callListeners.size === 0) return;
    const call: ServiceCall = { execId: exec.id, fn: exec.fn, user: exec.user, op, args, phase };
    for (const listener of [...this.callListeners]) await listener(call);
  }

  /** A new day for every user's daily quotas (advancing the clock by 24 hours does it too). */
  resetDailyQuota(): void {
    this.quotas.reset();
  }

  /** UrlFetchApp calls counted today, all users. */
  get urlFetchCallsToday(): number {
    return this.quotas.used('urlfetch');
  }

  /** The daily quotas in force (by account, or as the options set them). */
  get quotaLimits(): QuotaUsage {
    return this.quotas.limits();
  }

  /** Daily quota use of `user` (all users when omitted): PropertiesService reads/writes, UrlFetchApp calls. */
  quotaUsage(user?: string): QuotaUsage {
    return { properties: this.quotas.used('properties', user), urlfetch: this.quotas.used('urlfetch', user) };
  }

  resetCounts(): void {
    for (const key of Object.keys(this.counts)) delete this.counts[key];
  }

  // ------------------------------------------------------------------ executions

  /** Runs a global function of the bundle; resolves with its return value, rejects with an ExecutionError. */
  async run(fn: string, args: unknown[] = [], options: RunOptions = {}): Promise<unknown> {
    const result = await this.execute(fn, args, options);
    if (!result.ok) throw new ExecutionError(result.error?.message ?? 'The execution failed.', result);
    return result.value;
  }

  /**
   * Runs a function as a page's `google.script.run` call does: a server function whose name ends with `_` is
   * private and cannot be called from a page (apps-script/guides/html/communication, "Private functions").
   */
  async runFromPage(fn: string, args: unknown[] = [], options: RunOptions = {}): Promise<unknown> {
    if (fn.endsWith('_')) throw new Error(`Script function not found: ${fn}`);
    return this.run(fn, args, options);
  }

  /** Runs a global function of the bundle and reports how it ended. */
  execute(fn: string, args: unknown[] = [], options: RunOptions = {}): Promise<ExecutionResult> {
    const promise = this.start(fn, args, options);
    this.inFlight.add(promise);
    promise.finally(() => this.inFlight.delete(promise)).catch(() => undefined);
    return promise;
  }

  private async start(fn: string, args: unknown[], options: RunOptions): Promise<ExecutionResult> {
    if (this.closed) throw new Error('The environment is closed.');
    const kind = options.authMode === 'CUSTOM_FUNCTION' ? 'custom' : 'execution';
    const exec: Exec = {
      id: this.serials.exec++,
      fn,
      user: options.user ?? (options.spreadsheetId ? this.spreadsheet(options.spreadsheetId).owner : OWNER),
      spreadsheetId: options.spreadsheetId,
      authMode: options.authMode ?? 'FULL',
      kind,
      ui: kind !== 'custom' && options.ui !== false,
      counts: {},
      done: false,
    };
    if (exec.spreadsheetId) this.spreadsheet(exec.spreadsheetId);
    if (exec.spreadsheetId && exec.authMode === 'FULL') this.enabledIn.add(exec.spreadsheetId);
    const running = this.running.get(exec.user) ?? 0;
    if (running >= this.simultaneousPerUser) {
      // Every kind counts ("too many scripts executing at once, although not necessarily the same script",
      // apps-script/guides/services/quotas): the script's code never runs; a cell shows #ERROR! with this message.
      const refused: ExecutionResult = {
        id: exec.id,
        fn,
        user: exec.user,
        ok: false,
        timedOut: false,
        durationMs: 0,
        counts: exec.counts,
        error: { name: 'Exception', message: TOO_MANY_SIMULTANEOUS_MESSAGE },
      };
      this.executions.push(refused);
      return refused;
    }
    this.running.set(exec.user, running + 1);
    try {
      return await this.runExecution(exec, fn, args, options);
    } finally {
      this.running.set(exec.user, (this.running.get(exec.user) ?? 1) - 1);
      this.evaluateEnteredFormulas(exec);
    }
  }

  /** The custom functions of the formulas `exec` entered are evaluated again once it ends (its writes flushed). */
  private evaluateEnteredFormulas(exec: Exec): void {
    const entered = exec.formulasEntered;
    if (!entered?.length || this.closed) return;
    const bySpreadsheet = new Map<string, Array<{ sheet: string; a1: string }>>();
    for (const { ss, sheet, a1 } of entered) {
      const cells = bySpreadsheet.get(ss) ?? [];
      cells.push({ sheet, a1 });
      bySpreadsheet.set(ss, cells);
    }
    for (const [id, cells] of bySpreadsheet) {
      const work = this.customFunctions.recalculate(id, { cells }).catch(() => undefined);
      this.reevaluations.add(work);
      this.inFlight.add(work);
      work.finally(() => {
        this.reevaluations.delete(work);
        this.inFlight.delete(work);
      });
    }
  }

  /**
   * Resolves once the formulas that executions entered (e.g. the add-on's Refresh item) are evaluated, as Sheets
   * does on its own after the script's writes.
   */
  async formulasSettled(): Promise<void> {
    for (let round = 0; round < 100 && this.reevaluations.size > 0; round++)
      await Promise.allSettled([...this.reevaluations]);
  }

  private async runExecution(
    exec: Exec,
    fn: string,
    args: unknown[],
    options: RunOptions,
  ): Promise<ExecutionResult> {
    const kind = exec.kind;
    const limit =
      options.timeLimitMs ?? (kind === 'custom' ? this.limits.customFunctionMs : this.limits.executionMs);
    const message: RunMessage = {
      type: 'run',
      execId: exec.id,
      scriptPaths: scriptFiles(this.distDir),
      fn,
      args,
      event: options.event,
      exec: { timeZone: this.timeZone, spreadsheetId: exec.spreadsheetId, authMode: exec.authMode },
      now: this.now(),
    };
    const { outcome: done, startedAt } = await this.pool.run(exec, message, limit);
    // An execution's end applies its pending writes, then frees its locks.
    flushPending(this, exec, true);
    this.locks.releaseAll(String(exec.id));
    const result: ExecutionResult = {
      id: exec.id,
      fn,
      user: exec.user,
      ok: false,
      timedOut: done === 'timeout',
      durationMs: Date.now() - startedAt,
      counts: exec.counts,
    };
    if (typeof done === 'string') {
      result.error = { name: 'Exception', message: ENDED[done] };
    } else {
      addCounts(exec.counts, done.counts);
      addCounts(this.counts, done.counts);
      for (const output of done.outputs) this.htmlOutputs.push({ execId: exec.id, ...output });
      result.ok = done.ok;
      if (done.calledAt !== undefined) result.calledAt = done.calledAt;
      if (done.ok) result.value = done.value;
      else result.error = done.error;
    }
    this.executions.push(result);
    return result;
  }

  /**
   * Lets executions under way finish for at most CLOSE_GRACE_MS, then stops the worker threads: an execution
   * still running ends with ok: false, one still waiting for a worker rejects.
   */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    this.closed = true;
    await this.pool.close();
    await Promise.allSettled([...this.inFlight]);
  }

  // ------------------------------------------------------------------ triggers, custom functions

  /** Installable triggers saved from an earlier environment (its `triggers`): new ones get other ids. */
  restoreTriggers(records: TriggerRecord[]): void {
    for (const record of records) {
      if (this.triggers.some((t) => t.id === record.id))
        throw new Error(`Trigger ${record.id} exists already`);
      this.triggers.push(structuredClone(record));
      const serial = Number(/^trigger-(\d+)$/.exec(record.id)?.[1] ?? 0);
      if (serial >= this.serials.trigger) this.serials.trigger = serial + 1;
    }
  }

  /**
   * Runs a trigger's handler as its user with a time-driven event, without an active spreadsheet: a time-driven
   * trigger has no document context (getActiveSpreadsheet() is null; reported by users, see README.md). Only
   * `legacyTriggerDocumentContext` runs it in the document that created it; `context: 'none'` always runs it
   * without one.
   */
  fireTrigger(id: string, options: { context?: 'document' | 'none' } = {}): Promise<ExecutionResult> {
    const trigger = this.triggers.find((t) => t.id === id);
    if (!trigger) throw new Error(`No trigger ${id}`);
    const date = new Date(this.now());
    const inDocument = this.legacyTriggerDocumentContext && options.context !== 'none';
    return this.execute(trigger.handler, [], {
      user: trigger.user,
      spreadsheetId: inDocument ? trigger.spreadsheetId : undefined,
      ui: false,
      event: {
        triggerUid: trigger.id,
        year: date.getUTCFullYear(),
        hour: date.getUTCHours(),
        timezone: 'UTC',
      },
    });
  }

  /**
   * A person edits cells: the values are entered as typed, then the bundle's `onEdit` simple trigger runs as that
   * person (AuthMode.LIMITED where the add-on is enabled, else NONE; at most 30 s) with the edit event (`range`, and `value`/`oldValue` for a single cell), as Sheets
   * fires it after each edit (apps-script/guides/triggers#onedite). Resolves with the trigger's execution. On a sheet
   * protected with a warning (Protection.setWarningOnly) the person is warned first (`protectionWarnings`); without
   * `confirmWarning` they cancel: nothing changes and it rejects with ProtectionWarningError.
   */
  async edit(
    spreadsheetId: string,
    a1: string,
    values: unknown[][],
    options: {
      user?: string;
      sheetName?: string;
      authMode?: 'LIMITED' | 'NONE';
      /** On a sheet protected with a warning: the person answers the warning with OK (else: Cancel). */
      confirmWarning?: boolean;
    } = {},
  ): Promise<ExecutionResult> {
    const ss = this.spreadsheet(spreadsheetId);
    const sheet = options.sheetName ? ss.sheetByName(options.sheetName) : undefined;
    const { sheet: target, box } = ss.resolve(a1, sheet ?? ss.activeSheet());
    if (target.protection?.warningOnly) {
      this.protectionWarnings.push({ spreadsheetId, sheetName: target.name, user: options.user ?? ss.owner });
      if (!options.confirmWarning) throw new ProtectionWarningError(target.name);
    }
    const single = box.numRows === 1 && box.numCols === 1;
    const oldValue = single ? this.values(spreadsheetId, a1, target.name)[0][0] : undefined;
    this.enter(spreadsheetId, a1, values, target.name);
    return this.fireEdit(spreadsheetId, a1, { ...options, sheetName: target.name, oldValue });
  }

  /**
   * The simple `onEdit` for cells a person has just typed or pasted into `a1` (entered already): the event has the
   * range, and `value`/`oldValue` for a single cell (apps-script/guides/triggers/events).
   */
  fireEdit(
    spreadsheetId: string,
    a1: string,
    options: { user?: string; sheetName?: string; authMode?: 'LIMITED' | 'NONE'; oldValue?: unknown } = {},
  ): Promise<ExecutionResult> {
    const ss = this.spreadsheet(spreadsheetId);
    const sheet = options.sheetName ? ss.sheetByName(options.sheetName) : undefined;
    const { sheet: target, box } = ss.resolve(a1, sheet ?? ss.activeSheet());
    const event: Record<string, unknown> = {
      rangeD: { ss: ss.id, sheet: target.id, ...box },
      user: options.user ?? ss.owner,
    };
    if (box.numRows === 1 && box.numCols === 1) {
      event.value = this.values(spreadsheetId, a1, target.name)[0][0];
      if (options.oldValue !== undefined && options.oldValue !== '') event.oldValue = options.oldValue;
    }
    return this.installableTriggers.simple(
      'onEdit',
      spreadsheetId,
      options.user ?? ss.owner,
      event,
      options.authMode,
    );
  }

  /** Whether anyone used the add-on in the document: a menu item, a sidebar call or a trigger ran there. */
  addonEnabled(spreadsheetId: string): boolean {
    return this.enabledIn.has(spreadsheetId);
  }

  /** The add-on used in the document already (by a collaborator, before the test): simple triggers run in LIMITED. */
  enableAddon(spreadsheetId: string): void {
    this.enabledIn.add(spreadsheetId);
  }

  /**
   * A person opens the spreadsheet: the simple `onOpen` as them (LIMITED where the add-on is enabled, else NONE), then every installable open
   * trigger of the document, each as its creator (none when `readOnly`: a viewer or commenter).
   */
  open(spreadsheetId: string, options: { user?: string; readOnly?: boolean } = {}): Promise<Fired> {
    const user = options.user ?? this.spreadsheet(spreadsheetId).owner;
    return this.installableTriggers.open(spreadsheetId, user, options.readOnly === true);
  }

  /**
   * A person edits or pastes cells (`edit`: the simple onEdit), then the document's installable edit and change
   * triggers run, each as its creator (changeType EDIT), one after the other.
   */
  async change(
    spreadsheetId: string,
    a1: string,
    values: unknown[][],
    options: { user?: string; sheetName?: string } = {},
  ): Promise<Fired> {
    const user = options.user ?? this.spreadsheet(spreadsheetId).owner;
    const simple = await this.edit(spreadsheetId, a1, values, { user, sheetName: options.sheetName });
    const edits = await this.installableTriggers.fire(spreadsheetId, 'ON_EDIT', { user });
    const changes = await this.installableTriggers.fire(spreadsheetId, 'ON_CHANGE', {
      user,
      changeType: 'EDIT',
    });
    return {
      simple,
      installable: [...edits.installable, ...changes.installable],
      refused: [...edits.refused, ...changes.refused],
    };
  }

  /** A Google Form's response lands in its response sheet (a new row), then the form-submit triggers run. */
  submitForm(
    spreadsheetId: string,
    answers: unknown[],
    options: { sheetName?: string } = {},
  ): Promise<Fired & { row: number }> {
    return this.installableTriggers.submitForm(spreadsheetId, answers, options.sheetName);
  }

  /**
   * Rows appended through the Sheets API (an automation tool, `spreadsheets.values.append`): written after the
   * sheet's last row with data, and no trigger runs ("Script executions and API requests do not cause triggers to
   * run", apps-script/guides/triggers/installable). Returns the rows written.
   */
  appendRowsThroughApi(
    spreadsheetId: string,
    rows: unknown[][],
    options: { sheetName?: string } = {},
  ): number[] {
    const ss = this.spreadsheet(spreadsheetId);
    const sheet = (options.sheetName ? ss.sheetByName(options.sheetName) : undefined) ?? ss.activeSheet();
    return rows.map((row) => appendRow(this, spreadsheetId, sheet, row));
  }

  /**
   * Evaluates the custom-function formulas of a spreadsheet (all of them, as on opening it, or those given), all at
   * once as Sheets does, each in its own execution with the custom-function limit, and writes their results.
   */
  recalculate(
    spreadsheetId: string,
    options: { cells?: Array<{ sheet?: string; a1: string }>; user?: string } = {},
  ): Promise<RecalcReport> {
    return this.customFunctions.recalculate(spreadsheetId, options);
  }

  // ------------------------------------------------------------------ for the services (ServiceHost)

  nextSerial(kind: 'output' | 'trigger'): number {
    return this.serials[kind]++;
  }

  /**
   * LockService's rate quota spent by the script's other executions (the test's control, however slow the
   * machine): from now every Lock call (but hasLock) throws the quota's error, with `lockRateLimit`'s message if
   * given, until the returned lift is called. With `execId`, only that execution's calls are refused: the others'
   * calls spend the quota's window each time it calls (the quota is the script's, whoever calls; which calls it
   * refuses depends on when each comes).
   */
  refuseLockCalls(options: { execId?: number } = {}): () => void {
    const { execId } = options;
    if (execId !== undefined) {
      this.lockRefusedExecs.add(execId);
      return () => {
        this.lockRefusedExecs.delete(execId);
      };
    }
    this.lockQuotaSpent = true;
    return () => {
      this.lockQuotaSpent = false;
    };
  }

  /**
   * Time passes during the executions under way: the clock moves `ms` forward (as advanceClock) and their time
   * limits come `ms` nearer, as if they had run that long (the test's control, however slow the machine).
   */
  passTime(ms: number): void {
    this.advanceClock(ms);
    this.pool.spend(ms);
  }

  /**
   * Ends the executions under way now as the platform's time limit does (the test's control of the moment, however
   * slow the machine): custom functions only with `kind` 'custom'. Returns how many were ended.
   */
  endByTimeLimit(kind?: 'custom' | 'execution'): number {
    return this.pool.timeOut((exec) => kind === undefined || exec.kind === kind);
  }

  /** Executions of `user` running now (custom functions included), from their call until they end. */
  runningExecutions(user: string): number {
    return this.running.get(user) ?? 0;
  }

  chargeLockCall(exec: Exec): void {
    if (this.lockQuotaSpent || this.lockRefusedExecs.has(exec.id)) {
      this.lockCallsRefused++;
      fail(this.lockRateLimit?.message ?? TOO_MANY_LOCK_OPERATIONS);
    }
    const limit = this.lockRateLimit;
    if (!limit) return;
    const now = this.now();
    this.lockCalls = this.lockCalls.filter((at) => at > now - limit.windowMs);
    this.lockCalls.push(now);
    if (this.lockCalls.length > limit.calls) {
      this.lockCallsRefused++;
      fail(limit.message ?? TOO_MANY_LOCK_OPERATIONS);
    }
  }

  noteStoreRewrite(exec: Exec, store: 'script' | 'document' | 'user'): void {
    this.storeRewrites.push({ execId: exec.id, fn: exec.fn, store });
  }

  noteReleaseWithPendingWrites(_exec: Exec): void {
    this.lockReleasesWithPendingWrites++;
    if (this.strictFlush) fail(RELEASE_WITH_PENDING_WRITES);
  }

  chargeQuota(user: string, kind: QuotaKind, calls: number): void {
    const limit =
      kind === 'properties'
        ? this.propertiesRateLimit
        : kind === 'urlfetch'
          ? this.urlFetchRateLimit
          : undefined;
    if (limit) {
      const now = this.now();
      const key = `${kind} ${user}`;
      const recent = (this.propertyCalls.get(key) ?? []).filter((at) => at > now - limit.windowMs);
      if (recent.length + calls > limit.calls)
        fail(kind === 'properties' ? PROPERTIES_SHORT_TIME_MESSAGE : URLFETCH_SHORT_TIME_MESSAGE);
      this.propertyCalls.set(key, [...recent, ...Array(calls).fill(now)]);
    }
    this.quotas.charge(user, kind, calls, this.now());
  }
}

/** A seeded coin (the best-effort cache's drops, live writes): a test's choices repeat. */
function evictor(mode: { probability: number; seed?: number } | undefined): (() => boolean) | undefined {
  if (!mode || !(mode.probability > 0)) return undefined;
  const random = seededRandom(mode.seed ?? 1);
  return () => random() < mode.probability;
}

const OWNER = 'owner@example.com';

/** The error of an execution the host ended. */
const ENDED = {
  timeout: TIME_LIMIT_MESSAGE,
  closed: 'The environment was closed during the execution.',
  crash: 'The execution ended unexpectedly.',
} as const;
