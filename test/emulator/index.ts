/**
 * The Apps Script emulator's host: runs dist/Code.js the way Apps Script does, each execution in a fresh `vm`
 * context on a worker thread (test/emulator/worker.cjs), with the services answered here over a synchronous RPC.
 *
 *   const env = new Environment({ scriptProperties: { API_BASE_URL: sandbox.baseUrl } });
 *   const ss = env.createSpreadsheet({ owner: 'owner@example.com', data: [['Profile URL'], ['https://…']] });
 *   env.userProperties('owner@example.com').set({ PEF_API_KEY: KEY });
 *   env.select(ss.id, 'A1:A2');
 *   await env.run('enrichSelection', [], { spreadsheetId: ss.id });
 *   await env.recalculate(ss.id);                  // evaluates =FINDEMAIL(...) cells as custom functions
 *   await env.close();
 *
 * What it holds to (sources in comments where the behaviour is defined):
 * - executions stop after 6 minutes, custom functions after 30 seconds (scalable with `limits`);
 * - a string written with setValue(s) that starts with `=` becomes a formula unless the cell is plain text (`@`);
 * - custom functions: Spreadsheet is read-only, no Ui, getUserProperties() is the spreadsheet owner's;
 * - UrlFetchApp over real HTTP; fetchAll throws as a whole when any request fails at the transport level;
 * - properties (9 KB a value, 500 KB a store), caches (expiry, 6 h at most), locks shared by executions.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { columnName, parseA1, rangeName } from './a1';
import {
  type Cell,
  type CellValue,
  displayValue,
  MAX_CELL_CHARS,
  PLAIN_TEXT,
  parseEntered,
  type RangeBox,
  type SheetModel,
  SheetsError,
  SpreadsheetModel,
} from './spreadsheet';
import { AppsScriptException, CacheStore, LockManager, PropertyStore } from './stores';
import { type FetchRequest, type FetchResponse, httpFailure, performFetch, validUrl } from './urlfetch';

export type { Cell, CellValue };
export { AppsScriptException, CacheStore, PropertyStore, SpreadsheetModel };

const ROOT = join(__dirname, '..', '..');
export const DIST_DIR = join(ROOT, 'dist');
const WORKER_FILE = join(__dirname, 'worker.cjs');

// https://developers.google.com/apps-script/guides/services/quotas: "Script runtime 6 min / execution",
// "Custom function runtime 30 sec / execution".
export const EXECUTION_LIMIT_MS = 6 * 60 * 1000;
export const CUSTOM_FUNCTION_LIMIT_MS = 30 * 1000;
// Same page: "URL Fetch calls 20,000 / day" (consumer accounts).
export const URLFETCH_DAILY_QUOTA = 20000;
// UrlFetchApp gives up on a request after about 60 s (observed "Timeout: <url>" errors at that mark).
export const FETCH_TIMEOUT_MS = 60000;
// Apps Script's message when an execution runs out of time.
export const TIME_LIMIT_MESSAGE = 'Exceeded maximum execution time';
/** How long a new worker thread may take to start an execution before the time limit applies anyway. */
const WORKER_START_GRACE_MS = 10_000;
/** How long close() lets executions under way finish before it stops their worker threads. */
const CLOSE_GRACE_MS = 2000;

export type AuthMode = 'NONE' | 'LIMITED' | 'FULL' | 'CUSTOM_FUNCTION';

export interface Limits {
  executionMs: number;
  customFunctionMs: number;
}

export interface EnvironmentOptions {
  /** The folder `clasp push` sends: Code.js, the HTML files (default dist/). */
  distDir?: string;
  scriptProperties?: Record<string, string>;
  timeZone?: string;
  limits?: Partial<Limits>;
  /** Executions that can run at once (worker threads). Sheets evaluates many custom functions in parallel. */
  maxConcurrent?: number;
  fetchTimeoutMs?: number;
  urlFetchDailyQuota?: number;
}

export interface RunOptions {
  /** The user running it (default: the spreadsheet's owner, or `owner@example.com`). */
  user?: string;
  /** The document the execution is bound to (the add-on's open spreadsheet). */
  spreadsheetId?: string;
  authMode?: AuthMode;
  /** Overrides the limit of the execution's kind. */
  timeLimitMs?: number;
  /** For trigger functions: the event object (authMode is added). */
  event?: Record<string, unknown>;
  /** False for executions without a user interface (time-driven triggers): SpreadsheetApp.getUi() throws. */
  ui?: boolean;
}

export interface ExecutionResult {
  id: number;
  fn: string;
  user: string;
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string; stack?: string };
  timedOut: boolean;
  durationMs: number;
  /** Service calls made by this execution, by method name. */
  counts: Record<string, number>;
}

export class ExecutionError extends Error {
  constructor(
    message: string,
    readonly result: ExecutionResult,
  ) {
    super(message);
    this.name = result.error?.name ?? 'Exception';
  }
}

export interface RecordedOutput {
  serial: number;
  kind: 'sidebar' | 'modal' | 'modeless';
  html: string;
  title: string;
  width?: number;
  height?: number;
  user: string;
  spreadsheetId?: string;
}

export interface UiRecord {
  menus: Array<{ title?: string; addon: boolean; items: unknown[]; spreadsheetId?: string; user: string }>;
  sidebars: RecordedOutput[];
  dialogs: RecordedOutput[];
  toasts: Array<{ message: string; title: string; spreadsheetId: string }>;
  alerts: Array<{ title?: string; prompt: string; buttons?: string }>;
  /** Answers for Ui.alert/prompt, first in first out (default: OK / empty text). */
  answers: Array<{ button: string; text?: string }>;
}

export interface TriggerRecord {
  id: string;
  handler: string;
  eventType: string;
  source: string;
  user: string;
  spreadsheetId?: string;
  spec: Record<string, unknown>;
}

export interface LogLine {
  execId: number;
  level: string;
  message: string;
}

export interface FetchRecord {
  execId: number;
  url: string;
  method: string;
  headers: Record<string, string>;
  payload?: string;
  status?: number;
  error?: string;
  startedAt: number;
  endedAt: number;
}

export interface RecalcReport {
  evaluated: number;
  results: ExecutionResult[];
}

interface Exec {
  id: number;
  fn: string;
  user: string;
  spreadsheetId?: string;
  authMode: AuthMode;
  kind: 'execution' | 'custom';
  ui: boolean;
  counts: Record<string, number>;
  done: boolean;
}

interface WorkerSlot {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  exec?: Exec;
  finish?: (message: WorkerDone) => void;
  started?: () => void;
  /** Ends the execution under way because the environment closes. */
  abort?: () => void;
}

interface WorkerDone {
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string; stack?: string };
  counts: Record<string, number>;
  outputs: Array<{ title: string; content: string }>;
}

interface RangeD {
  ss: string;
  sheet: number;
  row: number;
  col: number;
  numRows: number;
  numCols: number;
}

interface SheetD {
  ss: string;
  sheet: number;
}

const SPREADSHEET_WRITES = new Set([
  'setValues',
  'setValue',
  'setFormulas',
  'setFormula',
  'setNumberFormat',
  'setNumberFormats',
  'setNotes',
  'setNote',
  'clearContent',
  'clear',
  'clearFormat',
  'clearContents',
  'appendRow',
  'sort',
  'setName',
  'setFrozenRows',
  'insertSheet',
  'insertColumnsAfter',
  'insertColumnsBefore',
  'insertColumns',
  'insertColumnAfter',
  'insertColumnBefore',
  'insertRowsAfter',
  'insertRowsBefore',
  'insertRows',
  'insertRowAfter',
  'insertRowBefore',
  'deleteRows',
  'deleteRow',
  'deleteColumns',
  'deleteColumn',
]);

/** Is this service-call name a call to the Spreadsheet service (for the benchmark's counts)? */
export function isSpreadsheetCall(name: string): boolean {
  return (
    /^(Range|RangeList|Sheet|Spreadsheet|SpreadsheetApp)\./.test(name) && name !== 'SpreadsheetApp.getUi'
  );
}

export function spreadsheetCalls(counts: Record<string, number>): number {
  let total = 0;
  for (const [name, n] of Object.entries(counts)) if (isSpreadsheetCall(name)) total += n;
  return total;
}

export function addCounts(into: Record<string, number>, from: Record<string, number> | undefined): void {
  for (const [name, n] of Object.entries(from ?? {})) into[name] = (into[name] ?? 0) + n;
}

function fail(message: string): never {
  throw new AppsScriptException(message);
}

/** A formula that calls a function with plain arguments: `=NAME(A2)`, `=NAME(A2:A9, "email,status")`. */
export interface ParsedCall {
  name: string;
  args: Array<{ ref: string } | { literal: CellValue }>;
}

export function parseFormulaCall(formula: string): ParsedCall | undefined {
  const match = /^=\s*([A-Za-z_][\w.]*)\s*\(([\s\S]*)\)\s*$/.exec(formula);
  if (!match) return undefined;
  const args: ParsedCall['args'] = [];
  const text = match[2].trim();
  if (text === '') return { name: match[1].toUpperCase(), args };
  const token =
    /\s*(?:"((?:[^"]|"")*)"|(-?\d+(?:\.\d+)?)|(TRUE|FALSE)|((?:'(?:[^']|'')+'!|[A-Za-z_][\w.]*!)?\$?[A-Za-z]{1,3}\$?\d*(?::\$?[A-Za-z]{1,3}\$?\d*)?))\s*(,|$)/giy;
  let index = 0;
  while (index < text.length) {
    token.lastIndex = index;
    const part = token.exec(text);
    if (!part) return undefined;
    if (part[1] !== undefined) args.push({ literal: part[1].replace(/""/g, '"') });
    else if (part[2] !== undefined) args.push({ literal: Number(part[2]) });
    else if (part[3] !== undefined) args.push({ literal: part[3].toUpperCase() === 'TRUE' });
    else args.push({ ref: part[4].replace(/\$/g, '') });
    index = token.lastIndex;
    if (part[5] === '') break;
  }
  return { name: match[1].toUpperCase(), args };
}

/** The `@customfunction` functions of a bundle, from its top-level JSDoc. */
export function customFunctionNames(code: string): string[] {
  const names: string[] = [];
  const pattern = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*function\s+([A-Za-z_$][\w$]*)\s*\(/g;
  for (let m = pattern.exec(code); m; m = pattern.exec(code))
    if (/@customfunction\b/.test(m[1])) names.push(m[2]);
  return names;
}

export class Environment {
  readonly distDir: string;
  readonly limits: Limits;
  readonly timeZone: string;
  readonly scriptProperties = new PropertyStore();
  readonly scriptCache = new CacheStore();
  readonly locks = new LockManager();
  readonly ui: UiRecord = { menus: [], sidebars: [], dialogs: [], toasts: [], alerts: [], answers: [] };
  readonly triggers: TriggerRecord[] = [];
  readonly logs: LogLine[] = [];
  readonly fetches: FetchRecord[] = [];
  readonly executions: ExecutionResult[] = [];
  /** HTML outputs created by executions (shown or not). */
  readonly htmlOutputs: Array<{ execId: number; title: string; content: string }> = [];
  /** Every service call of every execution, by method name. */
  readonly counts: Record<string, number> = {};
  private readonly spreadsheets = new Map<string, SpreadsheetModel>();
  private readonly documentStores = new Map<string, PropertyStore>();
  private readonly userStores = new Map<string, PropertyStore>();
  private readonly documentCaches = new Map<string, CacheStore>();
  private readonly userCaches = new Map<string, CacheStore>();
  private readonly maxConcurrent: number;
  private readonly fetchTimeoutMs: number;
  private readonly urlFetchQuota: number;
  private urlFetchUsed = 0;
  private clockOffset = 0;
  private nextExecId = 1;
  private nextSpreadsheet = 1;
  private nextTrigger = 1;
  private nextOutput = 1;
  private readonly idle: WorkerSlot[] = [];
  private readonly busy = new Set<WorkerSlot>();
  /** Executions waiting for a worker; called without a slot when the environment closes. */
  private readonly queue: Array<(slot?: WorkerSlot) => void> = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private customNames?: Set<string>;

  constructor(options: EnvironmentOptions = {}) {
    this.distDir = options.distDir ?? DIST_DIR;
    if (!existsSync(join(this.distDir, 'Code.js'))) {
      throw new Error(`No ${join(this.distDir, 'Code.js')}: run \`npm run build\` first.`);
    }
    this.limits = {
      executionMs: options.limits?.executionMs ?? EXECUTION_LIMIT_MS,
      customFunctionMs: options.limits?.customFunctionMs ?? CUSTOM_FUNCTION_LIMIT_MS,
    };
    this.timeZone = options.timeZone ?? 'Etc/UTC';
    this.maxConcurrent = options.maxConcurrent ?? 16;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? FETCH_TIMEOUT_MS;
    this.urlFetchQuota = options.urlFetchDailyQuota ?? URLFETCH_DAILY_QUOTA;
    if (options.scriptProperties) this.scriptProperties.set(options.scriptProperties);
  }

  // ------------------------------------------------------------------ clock, stores

  now(): number {
    return Date.now() + this.clockOffset;
  }

  /** Moves the environment's clock (Date in the bundle, cache expiry) forward. */
  advanceClock(ms: number): void {
    this.clockOffset += ms;
  }

  /** A new day for the UrlFetch quota. */
  resetDailyQuota(): void {
    this.urlFetchUsed = 0;
  }

  get urlFetchCallsToday(): number {
    return this.urlFetchUsed;
  }

  documentProperties(spreadsheetId: string): PropertyStore {
    return getOrCreate(this.documentStores, spreadsheetId, () => new PropertyStore());
  }

  userProperties(user: string): PropertyStore {
    return getOrCreate(this.userStores, user, () => new PropertyStore());
  }

  documentCache(spreadsheetId: string): CacheStore {
    return getOrCreate(this.documentCaches, spreadsheetId, () => new CacheStore());
  }

  userCache(user: string): CacheStore {
    return getOrCreate(this.userCaches, user, () => new CacheStore());
  }

  resetCounts(): void {
    for (const key of Object.keys(this.counts)) delete this.counts[key];
  }

  // ------------------------------------------------------------------ spreadsheets, as a person edits them

  createSpreadsheet(
    options: {
      id?: string;
      name?: string;
      owner?: string;
      sheetName?: string;
      rows?: number;
      cols?: number;
      data?: unknown[][];
    } = {},
  ): SpreadsheetModel {
    const id = options.id ?? `spreadsheet-${this.nextSpreadsheet++}`;
    const model = new SpreadsheetModel(
      id,
      options.name ?? 'Leads',
      options.owner ?? 'owner@example.com',
      this.timeZone,
    );
    const sheet = model.addSheet(options.sheetName ?? 'Sheet1', options.rows, options.cols);
    this.spreadsheets.set(id, model);
    if (options.data?.length) {
      const width = Math.max(...options.data.map((row) => row.length));
      const rows = options.data.map((row) => [...row, ...new Array(width - row.length).fill('')]);
      this.enter(id, rangeName(1, 1, rows.length, width), rows, sheet.name);
    }
    return model;
  }

  spreadsheet(id: string): SpreadsheetModel {
    const model = this.spreadsheets.get(id);
    if (!model) throw new Error(`No spreadsheet ${id}`);
    return model;
  }

  private locate(
    spreadsheetId: string,
    a1: string,
    sheetName?: string,
  ): { sheet: SheetModel; box: RangeBox } {
    const ss = this.spreadsheet(spreadsheetId);
    const sheet = sheetName ? ss.sheetByName(sheetName) : undefined;
    return ss.resolve(a1, sheet ?? ss.activeSheet());
  }

  /** Types values into cells as a person would (strings parsed as entered; `=` starts a formula). */
  enter(spreadsheetId: string, a1: string, values: unknown[][], sheetName?: string): void {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    writeValues(sheet, box, values, 'setValues');
  }

  /** Sets the selection (the active range) of a spreadsheet, as a click or a drag does. */
  select(spreadsheetId: string, a1: string, sheetName?: string): void {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    const ss = this.spreadsheet(spreadsheetId);
    ss.activeSheetId = sheet.id;
    ss.activeRange = { sheetId: sheet.id, ...box };
  }

  values(spreadsheetId: string, a1: string, sheetName?: string): CellValue[][] {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return mapBox(box, (r, c) => sheet.get(r, c)?.value ?? '');
  }

  displayValues(spreadsheetId: string, a1: string, sheetName?: string): string[][] {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return mapBox(box, (r, c) => displayValue(sheet.get(r, c), this.timeZone));
  }

  formulas(spreadsheetId: string, a1: string, sheetName?: string): string[][] {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return mapBox(box, (r, c) => sheet.get(r, c)?.formula ?? '');
  }

  cell(spreadsheetId: string, a1: string, sheetName?: string): Cell | undefined {
    const { sheet, box } = this.locate(spreadsheetId, a1, sheetName);
    return sheet.get(box.row, box.col);
  }

  // ------------------------------------------------------------------ executions

  /** Runs a global function of the bundle; resolves with its return value, rejects with an ExecutionError. */
  async run(fn: string, args: unknown[] = [], options: RunOptions = {}): Promise<unknown> {
    const result = await this.execute(fn, args, options);
    if (!result.ok) throw new ExecutionError(result.error?.message ?? 'The execution failed.', result);
    return result.value;
  }

  /** Runs a global function of the bundle and reports how it ended. */
  execute(fn: string, args: unknown[] = [], options: RunOptions = {}): Promise<ExecutionResult> {
    const kind = options.authMode === 'CUSTOM_FUNCTION' ? 'custom' : 'execution';
    const promise = this.start(fn, args, options, kind);
    this.inFlight.add(promise);
    promise.finally(() => this.inFlight.delete(promise)).catch(() => undefined);
    return promise;
  }

  private defaultUser(spreadsheetId?: string): string {
    return spreadsheetId ? this.spreadsheet(spreadsheetId).owner : 'owner@example.com';
  }

  private async start(
    fn: string,
    args: unknown[],
    options: RunOptions,
    kind: 'execution' | 'custom',
  ): Promise<ExecutionResult> {
    if (this.closed) throw new Error('The environment is closed.');
    const exec: Exec = {
      id: this.nextExecId++,
      fn,
      user: options.user ?? this.defaultUser(options.spreadsheetId),
      spreadsheetId: options.spreadsheetId,
      authMode: options.authMode ?? 'FULL',
      kind,
      ui: kind !== 'custom' && options.ui !== false,
      counts: {},
      done: false,
    };
    if (exec.spreadsheetId) this.spreadsheet(exec.spreadsheetId);
    const limit =
      options.timeLimitMs ?? (kind === 'custom' ? this.limits.customFunctionMs : this.limits.executionMs);
    const slot = await this.acquire();
    const started = Date.now();
    slot.exec = exec;
    const done = await new Promise<WorkerDone | 'timeout' | 'crash' | 'closed'>((resolve) => {
      // The limit runs from when the worker starts the execution: starting a worker thread is the emulator's
      // cost, not the script's (a fresh thread can take longer than a scaled-down limit on a busy machine).
      let timer = setTimeout(() => resolve('timeout'), limit + WORKER_START_GRACE_MS);
      slot.started = () => {
        clearTimeout(timer);
        timer = setTimeout(() => resolve('timeout'), limit);
      };
      const onCrash = () => {
        clearTimeout(timer);
        resolve('crash');
      };
      slot.abort = () => {
        clearTimeout(timer);
        resolve('closed');
      };
      if (this.closed) slot.abort();
      slot.finish = (message) => {
        clearTimeout(timer);
        // A reused worker would otherwise collect one listener per execution.
        slot.worker.off('error', onCrash);
        resolve(message);
      };
      slot.worker.once('error', onCrash);
      slot.worker.postMessage({
        type: 'run',
        execId: exec.id,
        bundlePath: join(this.distDir, 'Code.js'),
        fn,
        args,
        event: options.event,
        exec: { timeZone: this.timeZone, spreadsheetId: exec.spreadsheetId, authMode: exec.authMode },
        now: this.now(),
      });
    });
    exec.done = true;
    this.locks.releaseAll(String(exec.id));
    const result: ExecutionResult = {
      id: exec.id,
      fn,
      user: exec.user,
      ok: false,
      timedOut: done === 'timeout',
      durationMs: Date.now() - started,
      counts: exec.counts,
    };
    if (done === 'timeout' || done === 'crash' || done === 'closed') {
      // The thread may be blocked in a service call or a loop: it is killed, as Apps Script ends the execution.
      this.discard(slot);
      result.error = {
        name: 'Exception',
        message:
          done === 'timeout'
            ? TIME_LIMIT_MESSAGE
            : done === 'closed'
              ? 'The environment was closed during the execution.'
              : 'The execution ended unexpectedly.',
      };
    } else {
      addCounts(exec.counts, done.counts);
      addCounts(this.counts, done.counts);
      for (const output of done.outputs) this.htmlOutputs.push({ execId: exec.id, ...output });
      result.ok = done.ok;
      if (done.ok) result.value = done.value;
      else result.error = done.error;
      this.releaseSlot(slot);
    }
    this.executions.push(result);
    return result;
  }

  private newSlot(): WorkerSlot {
    const channel = new MessageChannel();
    const flagBuffer = new SharedArrayBuffer(4);
    const worker = new Worker(WORKER_FILE, {
      workerData: { rpcPort: channel.port2, flagBuffer },
      transferList: [channel.port2],
    });
    const slot: WorkerSlot = { worker, port: channel.port1, flag: new Int32Array(flagBuffer) };
    worker.on('message', (message: { type: string; execId: number } & Record<string, unknown>) => {
      if (message.type === 'log') {
        this.logs.push({
          execId: message.execId,
          level: String(message.level),
          message: String(message.message),
        });
      } else if (message.type === 'started' && slot.exec?.id === message.execId) {
        slot.started?.();
      } else if (message.type === 'done' && slot.exec?.id === message.execId) {
        slot.finish?.(message as unknown as WorkerDone);
      }
    });
    worker.on('error', () => undefined);
    channel.port1.on(
      'message',
      (message: { execId: number; op: string; args: unknown[] } & Record<string, unknown>) => {
        const exec = slot.exec;
        if (!exec || exec.id !== message.execId || exec.done) return;
        addCounts(exec.counts, message.counts as Record<string, number>);
        addCounts(this.counts, message.counts as Record<string, number>);
        exec.counts[message.op] = (exec.counts[message.op] ?? 0) + 1;
        this.counts[message.op] = (this.counts[message.op] ?? 0) + 1;
        this.answer(exec, message.op, message.args).then(
          (value) => this.reply(slot, exec, { ok: true, value }),
          (error: unknown) =>
            this.reply(slot, exec, {
              ok: false,
              name:
                error instanceof AppsScriptException || error instanceof SheetsError ? 'Exception' : 'Error',
              message: error instanceof Error ? error.message : String(error),
            }),
        );
      },
    );
    return slot;
  }

  private reply(slot: WorkerSlot, exec: Exec, message: Record<string, unknown>): void {
    if (exec.done || slot.exec !== exec) return;
    slot.port.postMessage({ ...message, now: this.now() });
    Atomics.store(slot.flag, 0, 1);
    Atomics.notify(slot.flag, 0);
  }

  private acquire(): Promise<WorkerSlot> {
    const slot = this.idle.pop();
    if (slot) {
      this.busy.add(slot);
      return Promise.resolve(slot);
    }
    if (this.busy.size < this.maxConcurrent) {
      const fresh = this.newSlot();
      this.busy.add(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve, reject) =>
      this.queue.push((slot) => (slot ? resolve(slot) : reject(new Error('The environment is closed.')))),
    );
  }

  private releaseSlot(slot: WorkerSlot): void {
    slot.exec = undefined;
    slot.finish = undefined;
    slot.started = undefined;
    slot.abort = undefined;
    const waiter = this.queue.shift();
    if (waiter) waiter(slot);
    else {
      this.busy.delete(slot);
      this.idle.push(slot);
    }
  }

  private discard(slot: WorkerSlot): void {
    slot.exec = undefined;
    slot.finish = undefined;
    slot.started = undefined;
    slot.abort = undefined;
    this.busy.delete(slot);
    slot.port.close();
    void slot.worker.terminate();
    const waiter = this.queue.shift();
    if (waiter) {
      const fresh = this.newSlot();
      this.busy.add(fresh);
      waiter(fresh);
    }
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
    for (const waiter of this.queue.splice(0)) waiter();
    for (const slot of this.busy) slot.abort?.();
    for (const slot of [...this.idle, ...this.busy]) {
      slot.port.close();
      await slot.worker.terminate();
    }
    this.idle.length = 0;
    this.busy.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  // ------------------------------------------------------------------ triggers

  /**
   * Runs a trigger's handler as its user with a time-driven event. Whether an editor add-on's time-driven trigger
   * runs in the document that created it is not documented ("one trigger of each type, per user, per document",
   * https://developers.google.com/workspace/add-ons/concepts/editor-triggers#restrictions, suggests so; scripts'
   * own time triggers get no active spreadsheet). `context: 'none'` fires it without one, so both can be tested.
   */
  fireTrigger(id: string, options: { context?: 'document' | 'none' } = {}): Promise<ExecutionResult> {
    const trigger = this.triggers.find((t) => t.id === id);
    if (!trigger) throw new Error(`No trigger ${id}`);
    const date = new Date(this.now());
    return this.execute(trigger.handler, [], {
      user: trigger.user,
      spreadsheetId: options.context === 'none' ? undefined : trigger.spreadsheetId,
      ui: false,
      event: {
        triggerUid: trigger.id,
        year: date.getUTCFullYear(),
        hour: date.getUTCHours(),
        timezone: 'UTC',
      },
    });
  }

  // ------------------------------------------------------------------ custom functions

  private customFunctions(): Set<string> {
    if (!this.customNames) {
      const code = readFileSync(join(this.distDir, 'Code.js'), 'utf8');
      this.customNames = new Set(customFunctionNames(code).map((name) => name.toUpperCase()));
    }
    return this.customNames;
  }

  /**
   * Evaluates the custom-function formulas of a spreadsheet (all of them, as on opening it, or those given), all at
   * once as Sheets does, each in its own execution with the custom-function limit, and writes their results.
   */
  async recalculate(
    spreadsheetId: string,
    options: { cells?: Array<{ sheet?: string; a1: string }>; user?: string } = {},
  ): Promise<RecalcReport> {
    const ss = this.spreadsheet(spreadsheetId);
    const wanted = options.cells?.map((cell) => {
      const { sheet, box } = this.locate(spreadsheetId, cell.a1, cell.sheet);
      return `${sheet.id}:${box.row}:${box.col}`;
    });
    const jobs: Array<Promise<ExecutionResult | undefined>> = [];
    for (const sheet of ss.sheets) {
      for (const { row, col, cell } of sheet.formulaCells()) {
        if (wanted && !wanted.includes(`${sheet.id}:${row}:${col}`)) continue;
        const call = parseFormulaCall(cell.formula ?? '');
        if (!call || !this.customFunctions().has(call.name)) continue;
        jobs.push(this.evaluateCell(ss, sheet, row, col, call, options.user));
      }
    }
    const results = (await Promise.all(jobs)).filter((r): r is ExecutionResult => r !== undefined);
    return { evaluated: results.length, results };
  }

  private async evaluateCell(
    ss: SpreadsheetModel,
    sheet: SheetModel,
    row: number,
    col: number,
    call: ParsedCall,
    viewer?: string,
  ): Promise<ExecutionResult | undefined> {
    const formula = sheet.get(row, col)?.formula;
    let args: unknown[];
    try {
      args = call.args.map((arg) =>
        'literal' in arg ? arg.literal : this.referenceValue(ss, sheet, arg.ref),
      );
    } catch {
      setCellError(sheet, row, col, '#REF!', 'Formula parse error.');
      return undefined;
    }
    const fnName = [...this.customFunctions()].includes(call.name) ? this.exactName(call.name) : call.name;
    const result = await this.execute(fnName, args, {
      user: viewer ?? ss.owner,
      spreadsheetId: ss.id,
      authMode: 'CUSTOM_FUNCTION',
    });
    // The formula may have been removed or moved meanwhile (a person kept editing): then the result is dropped.
    if (sheet.get(row, col)?.formula !== formula) return result;
    if (!result.ok) {
      setCellError(sheet, row, col, '#ERROR!', result.error?.message ?? 'Error');
    } else {
      writeResult(sheet, row, col, result.value);
    }
    return result;
  }

  private exactName(upper: string): string {
    const code = readFileSync(join(this.distDir, 'Code.js'), 'utf8');
    return customFunctionNames(code).find((name) => name.toUpperCase() === upper) ?? upper;
  }

  /** A custom function's argument: a cell's value, or a range's values as a 2-D array. */
  private referenceValue(ss: SpreadsheetModel, sheet: SheetModel, ref: string): unknown {
    const { sheet: target, box } = ss.resolve(ref, sheet);
    const values = mapBox(box, (r, c) => target.get(r, c)?.value ?? '');
    return box.numRows === 1 && box.numCols === 1 && !ref.includes(':') ? values[0][0] : values;
  }

  // ------------------------------------------------------------------ the services

  private async answer(exec: Exec, op: string, args: unknown[]): Promise<unknown> {
    const [service, method] = splitOp(op);
    switch (service) {
      case 'SpreadsheetApp':
        return this.spreadsheetApp(exec, method, args);
      case 'Spreadsheet':
        return this.spreadsheetOp(exec, method, args);
      case 'Sheet':
        return this.sheetOp(exec, method, args);
      case 'Range':
        return this.rangeOp(exec, method, args);
      case 'RangeList':
        return this.rangeListOp(exec, method, args);
      case 'Ui':
        return this.uiOp(exec, method, args);
      case 'HtmlService':
        return this.htmlFile(String(args[0]));
      case 'PropertiesService':
        return this.propertiesService(exec, method);
      case 'Properties':
        return this.propertiesOp(exec, method, args);
      case 'CacheService':
        return this.cacheService(exec, method);
      case 'Cache':
        return this.cacheOp(method, args);
      case 'LockService':
        return this.lockService(exec, method);
      case 'Lock':
        return this.lockOp(exec, method, args);
      case 'UrlFetchApp':
        return this.urlFetch(exec, method, args);
      case 'ScriptApp':
        return this.scriptApp(exec, method, args);
      case 'Session':
        return this.session(exec, method);
      default:
        return fail(`Unknown service call ${op}`);
    }
  }

  private requireAuth(exec: Exec, what: string): void {
    // https://developers.google.com/apps-script/add-ons/concepts/editor-auth-lifecycle: in AuthMode.NONE
    // (onOpen before the add-on is enabled) only services without personal data are available.
    if (exec.authMode === 'NONE')
      fail(`You do not have permission to call ${what}. Required permissions are missing.`);
  }

  private spreadsheetApp(exec: Exec, method: string, args: unknown[]): unknown {
    if (method === 'getUi') {
      if (!exec.ui) fail('Cannot call SpreadsheetApp.getUi() from this context.');
      return null;
    }
    if (method === 'flush') return null;
    if (method === 'openById') {
      // Custom functions: "Cannot open other spreadsheets (SpreadsheetApp.openById() or openByUrl())".
      if (exec.kind === 'custom') fail('You do not have permission to call SpreadsheetApp.openById.');
      this.requireAuth(exec, 'SpreadsheetApp.openById');
      const id = String(args[0]);
      if (!this.spreadsheets.has(id))
        fail(`Unexpected error while getting the method or property openById on object SpreadsheetApp.`);
      return { ss: id };
    }
    if (!exec.spreadsheetId) return null;
    const ss = this.spreadsheet(exec.spreadsheetId);
    switch (method) {
      case 'getActiveSpreadsheet':
        return { ss: ss.id };
      case 'getActiveSheet':
        return { ss: ss.id, sheet: ss.activeSheet().id };
      case 'getActiveRange':
        return this.activeRangeD(ss);
      case 'getCurrentCell': {
        const d = this.activeRangeD(ss);
        return d ? { ...d, numRows: 1, numCols: 1 } : null;
      }
      default:
        return fail(`Unknown method SpreadsheetApp.${method}`);
    }
  }

  private activeRangeD(ss: SpreadsheetModel): RangeD | null {
    // Custom functions see no selection in Sheets either; a null active range is what a script must handle.
    const active = ss.activeRange;
    if (!active) return { ss: ss.id, sheet: ss.activeSheet().id, row: 1, col: 1, numRows: 1, numCols: 1 };
    return {
      ss: ss.id,
      sheet: active.sheetId,
      row: active.row,
      col: active.col,
      numRows: active.numRows,
      numCols: active.numCols,
    };
  }

  private sheetOf(d: SheetD): { ss: SpreadsheetModel; sheet: SheetModel } {
    const ss = this.spreadsheet(d.ss);
    return { ss, sheet: ss.sheetById(d.sheet) };
  }

  private checkWrite(exec: Exec, op: string): void {
    // Custom functions: Spreadsheet is "Read-only (can use most get*() methods, but not set*())".
    if (exec.kind === 'custom') fail(`You do not have permission to call ${op}`);
    this.requireAuth(exec, op);
  }

  private spreadsheetOp(exec: Exec, method: string, args: unknown[]): unknown {
    const d = args[0] as { ss: string };
    const ss = this.spreadsheet(d.ss);
    if (SPREADSHEET_WRITES.has(method)) this.checkWrite(exec, `Spreadsheet.${method}`);
    switch (method) {
      case 'getName':
        return ss.name;
      case 'getSheets':
        return ss.sheets.map((sheet) => ({ ss: ss.id, sheet: sheet.id }));
      case 'getNumSheets':
        return ss.sheets.length;
      case 'getSheetByName': {
        const sheet = ss.sheetByName(String(args[1]));
        return sheet ? { ss: ss.id, sheet: sheet.id } : null;
      }
      case 'getActiveSheet':
        return { ss: ss.id, sheet: ss.activeSheet().id };
      case 'setActiveSheet':
        ss.activeSheetId = (args[1] as SheetD).sheet;
        return null;
      case 'getActiveRange':
        return this.activeRangeD(ss);
      case 'getActiveCell': {
        const active = this.activeRangeD(ss);
        return active ? { ...active, numRows: 1, numCols: 1 } : null;
      }
      case 'getRange': {
        const { sheet, box } = ss.resolve(String(args[1]));
        return { ss: ss.id, sheet: sheet.id, ...box };
      }
      case 'getRangeList':
        return (args[1] as string[]).map((a1) => {
          const { sheet, box } = ss.resolve(String(a1));
          return { ss: ss.id, sheet: sheet.id, ...box };
        });
      case 'insertSheet': {
        const sheet = ss.addSheet(String(args[1] ?? `Sheet${ss.sheets.length + 1}`));
        return { ss: ss.id, sheet: sheet.id };
      }
      case 'toast':
        if (exec.kind === 'custom') fail('You do not have permission to call toast');
        this.ui.toasts.push({ message: String(args[1]), title: String(args[2] ?? ''), spreadsheetId: ss.id });
        return null;
      case 'getSpreadsheetTimeZone':
        return ss.timeZone;
      case 'getOwner':
        return ss.owner;
      default:
        return fail(`Unknown method Spreadsheet.${method}`);
    }
  }

  private sheetOp(exec: Exec, method: string, args: unknown[]): unknown {
    const { ss, sheet } = this.sheetOf(args[0] as SheetD);
    if (SPREADSHEET_WRITES.has(method)) this.checkWrite(exec, `Sheet.${method}`);
    const base = { ss: ss.id, sheet: sheet.id };
    const n = (index: number, fallback?: number) => {
      const value = args[index] === undefined || args[index] === null ? fallback : Number(args[index]);
      if (value === undefined || !Number.isInteger(value)) fail(`Invalid argument: ${String(args[index])}`);
      return value;
    };
    switch (method) {
      case 'getName':
        return sheet.name;
      case 'setName':
        sheet.name = String(args[1]);
        return null;
      case 'getIndex':
        return ss.sheets.indexOf(sheet) + 1;
      case 'getRange': {
        if (typeof args[1] === 'string') {
          const { box } = ss.resolve(args[1], sheet);
          return { ...base, ...box };
        }
        const box = { row: n(1), col: n(2), numRows: n(3, 1), numCols: n(4, 1) };
        sheet.check(box);
        return { ...base, ...box };
      }
      case 'getRangeList':
        return (args[1] as string[]).map((a1) => ({ ...base, ...ss.resolve(a1, sheet).box }));
      case 'getDataRange':
        return {
          ...base,
          row: 1,
          col: 1,
          numRows: Math.max(1, sheet.lastRow()),
          numCols: Math.max(1, sheet.lastColumn()),
        };
      case 'getLastRow':
        return sheet.lastRow();
      case 'getLastColumn':
        return sheet.lastColumn();
      case 'getMaxRows':
        return sheet.maxRows;
      case 'getMaxColumns':
        return sheet.maxCols;
      case 'getFrozenRows':
        return sheet.frozenRows;
      case 'setFrozenRows':
        sheet.frozenRows = n(1);
        return null;
      case 'getActiveRange': {
        const active = ss.activeRange;
        return active && active.sheetId === sheet.id ? { ...base, ...stripSheet(active) } : null;
      }
      case 'activate':
        ss.activeSheetId = sheet.id;
        return null;
      case 'sort':
        sheet.sort(n(1), args[2] !== false);
        return null;
      case 'appendRow': {
        const values = args[1] as unknown[];
        const row = sheet.lastRow() + 1;
        if (row > sheet.maxRows) sheet.maxRows = row;
        writeValues(sheet, { row, col: 1, numRows: 1, numCols: values.length }, [values], 'appendRow');
        return null;
      }
      case 'clear':
      case 'clearContents':
        for (let r = 1; r <= sheet.lastRow(); r++)
          for (let c = 1; c <= sheet.maxCols; c++) clearCell(sheet, r, c, method === 'clear');
        return null;
      case 'insertColumnsAfter':
        sheet.insertColumns(n(1) + 1, n(2));
        return null;
      case 'insertColumnAfter':
        sheet.insertColumns(n(1) + 1, 1);
        return null;
      case 'insertColumnsBefore':
      case 'insertColumns':
        sheet.insertColumns(n(1), n(2, 1));
        return null;
      case 'insertColumnBefore':
        sheet.insertColumns(n(1), 1);
        return null;
      case 'insertRowsAfter':
        sheet.insertRows(n(1) + 1, n(2), ss.sheets);
        return null;
      case 'insertRowAfter':
        sheet.insertRows(n(1) + 1, 1, ss.sheets);
        return null;
      case 'insertRowsBefore':
      case 'insertRows':
        sheet.insertRows(n(1), n(2, 1), ss.sheets);
        return null;
      case 'insertRowBefore':
        sheet.insertRows(n(1), 1, ss.sheets);
        return null;
      case 'deleteRows':
        sheet.deleteRows(n(1), n(2), ss.sheets);
        return null;
      case 'deleteRow':
        sheet.deleteRows(n(1), 1, ss.sheets);
        return null;
      case 'deleteColumns':
        sheet.deleteColumns(n(1), n(2));
        return null;
      case 'deleteColumn':
        sheet.deleteColumns(n(1), 1);
        return null;
      default:
        // Layout only (column widths, hiding): no effect on values.
        if (exec.kind === 'custom') fail(`You do not have permission to call ${method}`);
        return null;
    }
  }

  private rangeOp(exec: Exec, method: string, args: unknown[]): unknown {
    const d = args[0] as RangeD;
    const { ss, sheet } = this.sheetOf(d);
    const box: RangeBox = { row: d.row, col: d.col, numRows: d.numRows, numCols: d.numCols };
    if (SPREADSHEET_WRITES.has(method) || method.startsWith('set')) this.checkWrite(exec, `Range.${method}`);
    const first = () => sheet.get(box.row, box.col);
    switch (method) {
      case 'getValues':
        return mapBox(box, (r, c) => sheet.get(r, c)?.value ?? '');
      case 'getValue':
        return first()?.value ?? '';
      case 'getDisplayValues':
        return mapBox(box, (r, c) => displayValue(sheet.get(r, c), ss.timeZone));
      case 'getDisplayValue':
        return displayValue(first(), ss.timeZone);
      case 'getFormulas':
        return mapBox(box, (r, c) => sheet.get(r, c)?.formula ?? '');
      case 'getFormula':
        return first()?.formula ?? '';
      case 'getNumberFormats':
        return mapBox(box, (r, c) => sheet.get(r, c)?.format ?? '0.###############');
      case 'getNumberFormat':
        return first()?.format ?? '0.###############';
      case 'getNotes':
        return mapBox(box, (r, c) => sheet.get(r, c)?.note ?? '');
      case 'getNote':
        return first()?.note ?? '';
      case 'isBlank':
        return mapBox(box, (r, c) => sheet.hasContent(r, c)).every((row) => row.every((has) => !has));
      case 'setValues':
        writeValues(sheet, box, args[1] as unknown[][], 'setValues');
        return null;
      case 'setValue':
        writeValues(sheet, box, fill(box, args[1]), 'setValue');
        return null;
      case 'setFormulas':
        writeValues(sheet, box, args[1] as unknown[][], 'setFormulas');
        return null;
      case 'setFormula':
        writeValues(sheet, box, fill(box, args[1]), 'setFormula');
        return null;
      case 'setNumberFormat':
        forBox(box, (r, c) => {
          sheet.ensure(r, c).format = String(args[1]);
        });
        return null;
      case 'setNumberFormats':
        checkDims(box, args[1] as unknown[][]);
        forBox(box, (r, c) => {
          sheet.ensure(r, c).format = String((args[1] as unknown[][])[r - box.row][c - box.col]);
        });
        return null;
      case 'setNotes':
        checkDims(box, args[1] as unknown[][]);
        forBox(box, (r, c) => {
          sheet.ensure(r, c).note = String((args[1] as unknown[][])[r - box.row][c - box.col] ?? '');
        });
        return null;
      case 'setNote':
        forBox(box, (r, c) => {
          sheet.ensure(r, c).note = String(args[1] ?? '');
        });
        return null;
      case 'clearContent':
        forBox(box, (r, c) => clearCell(sheet, r, c, false));
        return null;
      case 'clear':
        forBox(box, (r, c) => clearCell(sheet, r, c, true));
        return null;
      case 'clearFormat':
        forBox(box, (r, c) => {
          const cell = sheet.get(r, c);
          if (cell) cell.format = undefined;
        });
        return null;
      case 'activate':
        ss.activeSheetId = sheet.id;
        ss.activeRange = { sheetId: sheet.id, ...box };
        return null;
      case 'offset': {
        const [, rowOffset, colOffset, numRows, numCols] = args as [
          unknown,
          number,
          number,
          number?,
          number?,
        ];
        const next = {
          row: box.row + rowOffset,
          col: box.col + colOffset,
          numRows: numRows ?? box.numRows,
          numCols: numCols ?? box.numCols,
        };
        sheet.check(next);
        return { ...d, ...next };
      }
      default:
        // Formatting (backgrounds, fonts): no effect on values in the emulator.
        return null;
    }
  }

  private rangeListOp(exec: Exec, method: string, args: unknown[]): unknown {
    const ranges = args[0] as RangeD[];
    for (const d of ranges) this.rangeOp(exec, method, [d, ...args.slice(1)]);
    return null;
  }

  private uiOp(exec: Exec, method: string, args: unknown[]): unknown {
    const data = (args[0] ?? {}) as Record<string, unknown>;
    const output = (kind: RecordedOutput['kind']): RecordedOutput => ({
      serial: this.nextOutput++,
      kind,
      html: String(data.content ?? ''),
      title: String(data.title ?? ''),
      width: data.width as number | undefined,
      height: data.height as number | undefined,
      user: exec.user,
      spreadsheetId: exec.spreadsheetId,
    });
    switch (method) {
      case 'addMenu':
        this.ui.menus.push({
          title: data.title as string | undefined,
          addon: Boolean(data.addon),
          items: data.items as unknown[],
          spreadsheetId: exec.spreadsheetId,
          user: exec.user,
        });
        return null;
      case 'showSidebar':
        this.ui.sidebars.push(output('sidebar'));
        return null;
      case 'showModalDialog':
        this.ui.dialogs.push(output('modal'));
        return null;
      case 'showModelessDialog':
        this.ui.dialogs.push(output('modeless'));
        return null;
      case 'alert': {
        this.ui.alerts.push({
          title: data.title as string,
          prompt: String(data.prompt),
          buttons: data.buttons as string,
        });
        return this.ui.answers.shift()?.button ?? 'OK';
      }
      case 'prompt': {
        this.ui.alerts.push({
          title: data.title as string,
          prompt: String(data.prompt),
          buttons: data.buttons as string,
        });
        const answer = this.ui.answers.shift();
        return { button: answer?.button ?? 'OK', text: answer?.text ?? '' };
      }
      default:
        return fail(`Unknown method Ui.${method}`);
    }
  }

  private htmlFile(name: string): string {
    const file = join(this.distDir, name.endsWith('.html') ? name : `${name}.html`);
    if (!existsSync(file)) fail(`No HTML file named ${name} was found.`);
    return readFileSync(file, 'utf8');
  }

  private propertiesService(exec: Exec, method: string): unknown {
    this.requireAuth(exec, `PropertiesService.${method}`);
    switch (method) {
      case 'getScriptProperties':
        return { kind: 'script' };
      case 'getDocumentProperties':
        return exec.spreadsheetId ? { kind: 'document', id: exec.spreadsheetId } : null;
      case 'getUserProperties': {
        // Custom functions: "getUserProperties() only gets the properties of the spreadsheet owner"
        // (https://developers.google.com/apps-script/guides/sheets/functions#using_apps_script_services).
        const owner =
          exec.kind === 'custom' && exec.spreadsheetId
            ? this.spreadsheet(exec.spreadsheetId).owner
            : exec.user;
        return { kind: 'user', id: owner };
      }
      default:
        return fail(`Unknown method PropertiesService.${method}`);
    }
  }

  private propertyStore(d: { kind: string; id?: string }): PropertyStore {
    if (d.kind === 'script') return this.scriptProperties;
    if (d.kind === 'document') return this.documentProperties(String(d.id));
    return this.userProperties(String(d.id));
  }

  private propertiesOp(exec: Exec, method: string, args: unknown[]): unknown {
    const d = args[0] as { kind: string; id?: string };
    const store = this.propertyStore(d);
    const writes = ['setProperty', 'setProperties', 'deleteProperty', 'deleteAllProperties'];
    // "Spreadsheet editors can't set user properties in a custom function" (same page).
    if (writes.includes(method) && exec.kind === 'custom' && d.kind === 'user' && d.id !== exec.user) {
      fail(`You do not have permission to call ${method}`);
    }
    switch (method) {
      case 'getProperty':
        return store.get(String(args[1]));
      case 'getProperties':
        return store.all();
      case 'getKeys':
        return store.keys();
      case 'setProperty':
        store.set({ [String(args[1])]: args[2] });
        return null;
      case 'setProperties':
        store.set(args[1] as Record<string, unknown>, args[2] === true);
        return null;
      case 'deleteProperty':
        store.delete(String(args[1]));
        return null;
      case 'deleteAllProperties':
        store.clear();
        return null;
      default:
        return fail(`Unknown method Properties.${method}`);
    }
  }

  private cacheService(exec: Exec, method: string): unknown {
    switch (method) {
      case 'getScriptCache':
        return { kind: 'script' };
      case 'getDocumentCache':
        return exec.spreadsheetId ? { kind: 'document', id: exec.spreadsheetId } : null;
      case 'getUserCache':
        return { kind: 'user', id: exec.user };
      default:
        return fail(`Unknown method CacheService.${method}`);
    }
  }

  private cacheOp(method: string, args: unknown[]): unknown {
    const d = args[0] as { kind: string; id?: string };
    const cache =
      d.kind === 'script'
        ? this.scriptCache
        : d.kind === 'document'
          ? this.documentCache(String(d.id))
          : this.userCache(String(d.id));
    const now = this.now();
    switch (method) {
      case 'get':
        return cache.get(String(args[1]), now);
      case 'getAll':
        return cache.getAll(args[1] as string[], now);
      case 'put':
        cache.put({ [String(args[1])]: args[2] }, args[3] as number | undefined, now);
        return null;
      case 'putAll':
        cache.put(args[1] as Record<string, unknown>, args[2] as number | undefined, now);
        return null;
      case 'remove':
        cache.remove([String(args[1])]);
        return null;
      case 'removeAll':
        cache.remove(args[1] as string[]);
        return null;
      default:
        return fail(`Unknown method Cache.${method}`);
    }
  }

  private lockService(exec: Exec, method: string): unknown {
    switch (method) {
      case 'getScriptLock':
        return 'script';
      case 'getDocumentLock':
        return exec.spreadsheetId ? `document:${exec.spreadsheetId}` : null;
      case 'getUserLock':
        return `user:${exec.user}`;
      default:
        return fail(`Unknown method LockService.${method}`);
    }
  }

  private async lockOp(exec: Exec, method: string, args: unknown[]): Promise<unknown> {
    const key = String(args[0]);
    const owner = String(exec.id);
    switch (method) {
      case 'tryLock':
        return this.locks.acquire(key, owner, Number(args[1]) || 0);
      case 'waitLock':
        if (!(await this.locks.acquire(key, owner, Number(args[1]) || 0))) {
          // Apps Script's text: "Lock timeout: another process was holding the lock for too long."
          fail('Lock timeout: another process was holding the lock for too long.');
        }
        return null;
      case 'releaseLock':
        this.locks.release(key, owner);
        return null;
      case 'hasLock':
        return this.locks.holds(key, owner);
      default:
        return fail(`Unknown method Lock.${method}`);
    }
  }

  private async urlFetch(exec: Exec, method: string, args: unknown[]): Promise<unknown> {
    this.requireAuth(exec, `UrlFetchApp.${method}`);
    const requests = method === 'fetchAll' ? (args[0] as FetchRequest[]) : [args[0] as FetchRequest];
    for (const request of requests) validUrl(request.url);
    if (this.urlFetchUsed + requests.length > this.urlFetchQuota) {
      // The daily quota's error (https://developers.google.com/apps-script/guides/services/quotas).
      fail('Service invoked too many times for one day: urlfetch.');
    }
    this.urlFetchUsed += requests.length;
    // fetchAll sends every request at once and answers only when all have ended; one transport failure (or an
    // HTTP error without muteHttpExceptions) makes the whole call throw, and the other answers are lost.
    const settled = await Promise.allSettled(requests.map((request) => this.fetchOne(exec, request)));
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) throw failure.reason;
    const responses = settled.map((s) => (s as PromiseFulfilledResult<FetchResponse>).value);
    return method === 'fetchAll' ? responses : responses[0];
  }

  private async fetchOne(exec: Exec, request: FetchRequest): Promise<FetchResponse> {
    const record: FetchRecord = {
      execId: exec.id,
      url: request.url,
      method: (request.method ?? 'get').toLowerCase(),
      headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, String(v)])),
      payload: typeof request.payload === 'string' ? request.payload : undefined,
      startedAt: Date.now(),
      endedAt: 0,
    };
    this.fetches.push(record);
    try {
      const response = await performFetch(request, {
        timeoutMs: this.fetchTimeoutMs,
        signal: new AbortController().signal,
      });
      record.status = response.status;
      if (response.status >= 400 && !request.muteHttpExceptions) {
        fail(httpFailure(request.url, response.status, response.body.toString('utf8')));
      }
      return response;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      record.endedAt = Date.now();
    }
  }

  private scriptApp(exec: Exec, method: string, args: unknown[]): unknown {
    this.requireAuth(exec, `ScriptApp.${method}`);
    if (exec.kind === 'custom') fail(`You do not have permission to call ScriptApp.${method}`);
    const mine = (t: TriggerRecord) => t.user === exec.user && t.spreadsheetId === exec.spreadsheetId;
    const describe = (t: TriggerRecord) => ({
      id: t.id,
      handler: t.handler,
      eventType: t.eventType,
      source: t.source,
      sourceId: t.spreadsheetId,
    });
    switch (method) {
      case 'newTrigger.create': {
        const spec = args[0] as Record<string, unknown>;
        if (spec.eventType === 'CLOCK') {
          // Add-ons: "Time-driven triggers cannot run more frequently than once per hour"
          // (https://developers.google.com/workspace/add-ons/concepts/editor-triggers#restrictions).
          if (spec.everyMinutes !== undefined)
            fail('Add-ons may not create time-based triggers that run more often than once an hour.');
          // "Each add-on can only have one trigger of each type, per user, per document" (same page).
          if (this.triggers.some((t) => mine(t) && t.eventType === 'CLOCK')) {
            fail('This add-on has already created a time-based trigger for this document and user.');
          }
        }
        // An add-on's trigger belongs to the user and the document it was created in, and runs in that document.
        const trigger: TriggerRecord = {
          id: `trigger-${this.nextTrigger++}`,
          handler: String(spec.handler),
          eventType: String(spec.eventType),
          source: spec.eventType === 'CLOCK' ? 'CLOCK' : 'SPREADSHEETS',
          user: exec.user,
          spreadsheetId: exec.spreadsheetId,
          spec,
        };
        this.triggers.push(trigger);
        return describe(trigger);
      }
      case 'getProjectTriggers':
        // All of this user's triggers of the project, whatever the document (an add-on's are per document).
        return this.triggers.filter((t) => t.user === exec.user).map(describe);
      case 'getUserTriggers':
        return this.triggers
          .filter((t) => t.user === exec.user && t.spreadsheetId === String(args[0]))
          .map(describe);
      case 'deleteTrigger': {
        const index = this.triggers.findIndex((t) => t.id === args[0] && t.user === exec.user);
        if (index >= 0) this.triggers.splice(index, 1);
        return null;
      }
      case 'getOAuthToken':
        return `ya29.emulated-${exec.id}`;
      case 'getScriptId':
        return 'emulated-script-id';
      default:
        return fail(`Unknown method ScriptApp.${method}`);
    }
  }

  private session(exec: Exec, method: string): unknown {
    switch (method) {
      case 'getActiveUser':
        // Custom functions and simple triggers often get an empty active user.
        return exec.kind === 'custom' || exec.authMode === 'NONE' ? '' : exec.user;
      case 'getEffectiveUser':
        return exec.kind === 'custom' && exec.spreadsheetId
          ? this.spreadsheet(exec.spreadsheetId).owner
          : exec.user;
      case 'getTemporaryActiveUserKey':
        return `temp-${Buffer.from(exec.user).toString('base64url')}`;
      default:
        return fail(`Unknown method Session.${method}`);
    }
  }
}

// ---------------------------------------------------------------------- cells

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

function splitOp(op: string): [string, string] {
  const dot = op.indexOf('.');
  return [op.slice(0, dot), op.slice(dot + 1)];
}

function stripSheet(active: { sheetId: number } & RangeBox): RangeBox {
  return { row: active.row, col: active.col, numRows: active.numRows, numCols: active.numCols };
}

function mapBox<T>(box: RangeBox, read: (row: number, col: number) => T): T[][] {
  const rows: T[][] = [];
  for (let r = 0; r < box.numRows; r++) {
    const line: T[] = [];
    for (let c = 0; c < box.numCols; c++) line.push(read(box.row + r, box.col + c));
    rows.push(line);
  }
  return rows;
}

function forBox(box: RangeBox, visit: (row: number, col: number) => void): void {
  for (let r = 0; r < box.numRows; r++) for (let c = 0; c < box.numCols; c++) visit(box.row + r, box.col + c);
}

function fill(box: RangeBox, value: unknown): unknown[][] {
  return mapBox(box, () => value);
}

function checkDims(box: RangeBox, values: unknown[][]): void {
  if (!Array.isArray(values) || values.length !== box.numRows) {
    fail(
      `The number of rows in the data does not match the number of rows in the range. The data has ${Array.isArray(values) ? values.length : 0} but the range has ${box.numRows}.`,
    );
  }
  for (const row of values) {
    if (!Array.isArray(row) || row.length !== box.numCols) {
      fail(
        `The number of columns in the data does not match the number of columns in the range. The data has ${Array.isArray(row) ? row.length : 0} but the range has ${box.numCols}.`,
      );
    }
  }
}

function clearCell(sheet: SheetModel, row: number, col: number, formats: boolean): void {
  const cell = sheet.get(row, col);
  if (!cell) return;
  cell.value = '';
  cell.formula = undefined;
  cell.error = undefined;
  cell.spill = undefined;
  cell.spilledFrom = undefined;
  if (formats) {
    cell.format = undefined;
    cell.note = undefined;
  }
}

/**
 * setValues semantics: values are parsed as if typed (Range.setValues behaves like USER_ENTERED), so a string
 * starting with "=" becomes a formula, unless the cell's number format is plain text ("@"), where it stays text.
 * (https://developers.google.com/apps-script/reference/spreadsheet/range#setvaluesvalues; the plain-text rule is
 * Sheets' own: Format › Number › Plain text keeps entries as typed.)
 */
function writeValues(sheet: SheetModel, box: RangeBox, values: unknown[][], method: string): void {
  checkDims(box, values);
  sheet.check(box);
  forBox(box, (r, c) => {
    const raw = values[r - box.row][c - box.col];
    const cell = sheet.ensure(r, c);
    clearCell(sheet, r, c, false);
    if (raw === null || raw === undefined || raw === '') return;
    if (typeof raw === 'string') {
      if (raw.length > MAX_CELL_CHARS) {
        fail(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`);
      }
      const formula =
        method === 'setFormulas' ||
        method === 'setFormula' ||
        (raw.startsWith('=') && cell.format !== PLAIN_TEXT);
      if (formula && raw.startsWith('=') && raw.length > 1) {
        cell.formula = raw;
        cell.value = '';
        return;
      }
      const entered = parseEntered(raw, cell.format);
      cell.value = entered.value;
      if (entered.format && !cell.format) cell.format = entered.format;
      return;
    }
    if (typeof raw === 'number' || typeof raw === 'boolean') {
      cell.value = raw;
      return;
    }
    if (raw instanceof Date || Object.prototype.toString.call(raw) === '[object Date]') {
      cell.value = new Date((raw as Date).getTime());
      if (!cell.format) cell.format = 'M/d/yyyy';
      return;
    }
    cell.value = String(raw);
  });
}

function setCellError(
  sheet: SheetModel,
  row: number,
  col: number,
  value: '#ERROR!' | '#REF!',
  message: string,
): void {
  clearSpill(sheet, row, col);
  const cell = sheet.ensure(row, col);
  cell.value = value;
  cell.error = message;
}

function clearSpill(sheet: SheetModel, row: number, col: number): void {
  const cell = sheet.get(row, col);
  const spill = cell?.spill;
  if (!spill) return;
  for (let r = row; r < row + spill.rows; r++) {
    for (let c = col; c < col + spill.cols; c++) {
      const child = sheet.get(r, c);
      if (child?.spilledFrom?.row === row && child.spilledFrom.col === col) {
        child.value = '';
        child.spilledFrom = undefined;
      }
    }
  }
  if (cell) cell.spill = undefined;
}

function sheetValue(value: unknown): CellValue {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? value : '#NUM!';
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]')
    return new Date((value as Date).getTime());
  return String(value);
}

/**
 * A custom function's result: a value, or a 2-D array that spills right and down from the formula's cell.
 * A spill that would cover a cell holding data fails with #REF! (Sheets: "Array result was not expanded because it
 * would overwrite data in B3."). Strings are shown as they are: a returned "=…" is text, never a formula.
 */
function writeResult(sheet: SheetModel, row: number, col: number, value: unknown): void {
  clearSpill(sheet, row, col);
  const cell = sheet.ensure(row, col);
  cell.error = undefined;
  if (!Array.isArray(value)) {
    cell.value = sheetValue(value);
    return;
  }
  const rows = (value as unknown[]).map((line) => (Array.isArray(line) ? line : [line]));
  if (rows.length === 0) {
    cell.value = '';
    return;
  }
  const cols = Math.max(...rows.map((line) => line.length));
  if (row + rows.length - 1 > sheet.maxRows || col + cols - 1 > sheet.maxCols) {
    setCellError(
      sheet,
      row,
      col,
      '#REF!',
      'Array result was not expanded because it would go past the sheet.',
    );
    return;
  }
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < cols; c++) {
      if (r === 0 && c === 0) continue;
      const other = sheet.get(row + r, col + c);
      const ours = other?.spilledFrom?.row === row && other.spilledFrom.col === col;
      if (other && !ours && (other.value !== '' || other.formula !== undefined)) {
        setCellError(
          sheet,
          row,
          col,
          '#REF!',
          `Array result was not expanded because it would overwrite data in ${columnName(col + c)}${row + r}.`,
        );
        return;
      }
    }
  }
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < cols; c++) {
      const target = sheet.ensure(row + r, col + c);
      target.value = sheetValue(rows[r][c]);
      if (r !== 0 || c !== 0) target.spilledFrom = { row, col };
    }
  }
  cell.spill = { rows: rows.length, cols };
}

export { parseA1, rangeName };
